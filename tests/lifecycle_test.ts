/**
 * The lifecycle routes through the relayer's handler: list, get, erase (with receipts), erase a
 * namespace, update and `replaces`, duplicates, tags and time filters, expiry, owner-key calls.
 */
import assert from "node:assert/strict";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import type { Cipher } from "../src/backends/types.ts";
import { MemoryVectorStore } from "../src/backends/memory.ts";
import { SvcError } from "../src/errors.ts";
import { createLogger } from "../src/log.ts";
import { verifyReceipt } from "../src/client/receipt.ts";
import { SlowEmbedder } from "../src/testing/mod.ts";
import { SharedVectorStore } from "../src/testing/job_fixtures.ts";
import { KvStateStore } from "@svc/denokv";
import { StateLifecycleRecords } from "../src/services/lifecycle_records.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import {
  type Caller,
  jsonOf as json,
  rememberAll as remember,
  startTestRelayer,
  testClock,
  type TestRelayer,
} from "./fixtures.ts";

/** The ids recall finds, every candidate included (`min_score` 0): what it may show at all. */
async function recallIds(t: TestRelayer, caller: Caller, query: string, extra = {}) {
  const { results } = await json(
    await t.signed(caller, "POST", "/api/recall", { query, limit: 20, min_score: 0, ...extra }),
  );
  return results.map((r: { id: string }) => r.id);
}

Deno.test("list: newest first, paged by an opaque cursor, filtered by tags and time", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const ids = await remember(t, alice, [
    { text: "I am vegetarian", tags: ["diet", "health"] },
    { text: "I commute by bicycle", tags: ["travel"] },
    { text: "My sister lives in Lisbon" },
    { text: "I keep bees in the garden", tags: ["hobby", "health"] },
  ]);
  const page1 = await json(await t.signed(alice, "GET", "/api/memories?limit=3"));
  assert.deepEqual(page1.memories.map((m: { id: string }) => m.id), ids.slice(1).reverse());
  const first = page1.memories[0];
  assert.equal(first.text, "I keep bees in the garden");
  assert.deepEqual(first.tags, ["hobby", "health"]);
  assert.equal(first.namespace, "default");
  assert.equal(first.expires_at, null);
  assert.equal(first.supersedes, null);
  assert.equal(first.created_at, first.updated_at);
  assert.equal(typeof page1.next_cursor, "string");
  const page2 = await json(
    await t.signed(alice, "GET", `/api/memories?limit=3&cursor=${page1.next_cursor}`),
  );
  assert.deepEqual(page2.memories.map((m: { id: string }) => m.id), [ids[0]]);
  assert.equal(page2.next_cursor, null);

  const health = await json(
    await t.signed(alice, "GET", "/api/memories?tag=health"),
  );
  assert.deepEqual(health.memories.map((m: { id: string }) => m.id), [ids[3], ids[0]]);
  const both = await json(await t.signed(alice, "GET", "/api/memories?tag=health&tag=diet"));
  assert.deepEqual(both.memories.map((m: { id: string }) => m.id), [ids[0]]);
  const future = new Date(Date.now() + 60_000).toISOString();
  const none = await json(await t.signed(alice, "GET", `/api/memories?since=${future}`));
  assert.deepEqual(none.memories, []);
  const before = await json(await t.signed(alice, "GET", `/api/memories?until=${future}`));
  assert.equal(before.memories.length, 4);
  const other = await json(await t.signed(alice, "GET", "/api/memories?namespace=work"));
  assert.deepEqual(other, { memories: [], next_cursor: null });

  for (
    const [query, message] of [
      ["limit=0", /limit must be between 1 and 500/],
      ["limit=501", /limit must be between 1 and 500/],
      ["limit=ten", /limit must be an integer/],
      ["cursor=bogus", /cursor/],
      [`cursor=${btoa(JSON.stringify({ after: "zz" }))}`, /cursor is not a cursor/],
      ["since=yesterday", /since must be an ISO 8601/],
      [`tag=${"x".repeat(65)}`, /tags\[0\] must be a string of 1 to 64/],
    ] as const
  ) {
    const body = await json(await t.signed(alice, "GET", `/api/memories?${query}`), 400);
    assert.match(body.error, message);
  }
});

Deno.test("get: one memory; another owner's or an unknown id is 404, a malformed one 400", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  const [id] = await remember(t, alice, [{
    text: "I am allergic to peanuts",
    namespace: "health",
  }]);
  const memory = await json(await t.signed(alice, "GET", `/api/memories/${id}`));
  assert.equal(memory.text, "I am allergic to peanuts");
  assert.equal(memory.namespace, "health");
  const foreign = await json(await t.signed(bob, "GET", `/api/memories/${id}`), 404);
  const unknown = await json(
    await t.signed(alice, "GET", `/api/memories/${crypto.randomUUID()}`),
    404,
  );
  assert.deepEqual(foreign, { ...unknown, request_id: foreign.request_id });
  await json(await t.signed(alice, "GET", "/api/memories/not-an-id"), 400);
});

Deno.test("erase: a signed receipt, and the memory is gone from get, list, recall and restore", async () => {
  const cipher = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  await using t = await startTestRelayer({ cipher });
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  const [bees, tea] = await remember(t, alice, [
    { text: "I keep bees in the garden" },
    { text: "I drink green tea every morning" },
  ]);
  assert.deepEqual(await recallIds(t, alice, "bees garden"), [bees, tea]);
  const blob_id = (await t.blobs.list(alice.owner, "default"))
    .find((entry) => entry.meta.memoryId === bees)!.blobId;
  const before = (await t.blobs.get(blob_id))!;

  await json(await t.signed(bob, "DELETE", `/api/memories/${bees}`), 404);
  const receipt = await json(await t.signed(alice, "DELETE", `/api/memories/${bees}`));
  assert.equal(receipt.memory_id, bees);
  assert.equal(receipt.owner, alice.owner);
  assert.equal(receipt.blob_id, blob_id);
  assert.ok(Math.abs(Date.parse(receipt.erased_at) - Date.now()) < 60_000);
  const { receiptKey } = await json(await t.send("GET", "/health"));
  assert.equal(await verifyReceipt(receipt, receiptKey), true);
  assert.equal(await verifyReceipt({ ...receipt, memory_id: tea }, receiptKey), false);

  await json(await t.signed(alice, "GET", `/api/memories/${bees}`), 404);
  // Sent again (its answer lost), the erase answers the same receipt; to no one else.
  assert.deepEqual(await json(await t.signed(alice, "DELETE", `/api/memories/${bees}`)), receipt);
  const scoped = await t.addKey(alice, { scope: { namespaces: ["work"] } });
  const mine = await t.addKey(alice, { scope: { namespaces: ["default"] } });
  assert.deepEqual(await json(await t.signed(mine, "DELETE", `/api/memories/${bees}`)), receipt);
  // An erase an earlier version recorded names no blob: sent again, it says the memory was erased.
  const record = (await Array.fromAsync(t.kv.list({ prefix: [] })))
    .find(({ key }) => key.includes("erased") && key.at(-1) === bees)!;
  await t.kv.set(record.key, Date.parse(receipt.erased_at));
  const again = await json(await t.signed(alice, "DELETE", `/api/memories/${bees}`), 404);
  assert.deepEqual([again.code, again.reason], ["not_found", "erased"]);
  assert.match(again.error, /erased already/);
  for (const [who, id] of [[bob, bees], [scoped, bees], [alice, crypto.randomUUID()]] as const) {
    const other = await json(await t.signed(who, "DELETE", `/api/memories/${id}`), 404);
    assert.equal(other.reason, undefined);
  }
  const { memories } = await json(await t.signed(alice, "GET", "/api/memories"));
  assert.deepEqual(memories.map((m: { id: string }) => m.id), [tea]);
  assert.deepEqual(await recallIds(t, alice, "bees garden"), [tea]);
  assert.equal(await t.blobs.get(blob_id), null, "the blob is deleted");

  // A copy of the blob taken before (a backup) does not decrypt, nor come back by restore.
  await assert.rejects(
    cipher.decrypt(alice.owner, before),
    (e: SvcError) => e.code === "forbidden",
  );
  await t.blobs.put(before, {
    owner: alice.owner,
    namespace: "default",
    memoryId: bees,
    createdAt: Date.now(),
  });
  const restored = await json(
    await t.signed(alice, "POST", "/api/restore", { namespace: "default" }),
  );
  assert.deepEqual([restored.restored, restored.skipped], [0, 2]);
  assert.deepEqual(await recallIds(t, alice, "bees garden"), [tea]);
  assert.equal(await t.blobs.get(blob_id), null, "restore deletes an erased memory's blob");
});

Deno.test("erase cut short after the blob went, before the index row: sent again, it finishes", async () => {
  const vectors = new MemoryVectorStore(new LexicalEmbedder().dimensions);
  let indexDown = false;
  const remove = vectors.delete.bind(vectors);
  vectors.delete = (ids) => {
    if (!indexDown) return remove(ids);
    indexDown = false;
    return Promise.reject(new SvcError("backend_unavailable", "Cannot delete: the index is down"));
  };
  await using t = await startTestRelayer({ vectors });
  const alice = await t.newCaller();
  const [bees] = await remember(t, alice, [{ text: "I keep bees in the garden" }]);
  const [{ blobId }] = await t.blobs.list(alice.owner, "default");
  indexDown = true;
  // Read once, so that its text is kept for the next reads.
  assert.equal(
    (await json(await t.signed(alice, "GET", `/api/memories/${bees}`))).text,
    "I keep bees in the garden",
  );
  await json(await t.signed(alice, "DELETE", `/api/memories/${bees}`), 503);
  assert.equal(await t.blobs.get(blobId), null, "the blob goes before the index row");
  const half = await json(await t.signed(alice, "GET", `/api/memories/${bees}`));
  assert.equal(half.text, null, "nothing read before serves it once its key is gone");
  assert.equal(half.manual, false, "it is not a memory its client encrypted");
  const receipt = await json(await t.signed(alice, "DELETE", `/api/memories/${bees}`));
  assert.equal(receipt.memory_id, bees);
  await json(await t.signed(alice, "GET", `/api/memories/${bees}`), 404);
  assert.equal(await vectors.count({ owner: alice.owner }), 0);
});

Deno.test("erase a namespace: confirm must repeat it; every memory gets a receipt", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const ids = await remember(t, alice, [
    { text: "Project Falcon ships in May", namespace: "work" },
    { text: "The standup is at nine", namespace: "work" },
    { text: "I am vegetarian" },
  ]);
  await json(await t.signed(alice, "DELETE", "/api/memories?namespace=work"), 400);
  await json(await t.signed(alice, "DELETE", "/api/memories?namespace=work&confirm=Work"), 400);
  for (
    const ambiguous of [
      "namespace=work&namespace=default&confirm=work",
      "namespace=work&confirm=work&confirm=x",
    ]
  ) {
    const refused = await json(await t.signed(alice, "DELETE", `/api/memories?${ambiguous}`), 400);
    assert.match(refused.error, /^(namespace|confirm) must be given once$/);
  }
  const done = await json(
    await t.signed(alice, "DELETE", "/api/memories?namespace=work&confirm=work"),
  );
  assert.equal(done.erased, 2);
  assert.deepEqual(
    done.receipts.map((r: { memory_id: string }) => r.memory_id).sort(),
    [
      ids[0],
      ids[1],
    ].sort(),
  );
  const work = await json(await t.signed(alice, "GET", "/api/memories?namespace=work"));
  assert.deepEqual(work.memories, []);
  const rest = await json(await t.signed(alice, "GET", "/api/memories"));
  assert.deepEqual(rest.memories.map((m: { id: string }) => m.id), [ids[2]]);
});

Deno.test("erase a namespace: what was remembered before it and is still being stored never lands", async () => {
  // Memories are stored a while after they are accepted, as under load.
  const embedder = new SlowEmbedder(new LexicalEmbedder(), { delayMs: 300 });
  await using t = await startTestRelayer({ embedder });
  const alice = await t.newCaller();
  const remembered = (text: string) =>
    t.signed(alice, "POST", "/api/remember", { text, namespace: "work" }).then((r) => json(r, 202));
  const before = await remembered("The launch code is 1234");
  await json(await t.signed(alice, "DELETE", "/api/memories?namespace=work&confirm=work"));
  const after = await remembered("The standup is at nine");
  for (const { job_id } of [before, after]) {
    for (let i = 0; i < 200; i++) {
      const job = await json(await t.signed(alice, "GET", `/api/remember/${job_id}`));
      if (job.status === "done" || job.status === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  const work = await json(await t.signed(alice, "GET", "/api/memories?namespace=work"));
  assert.deepEqual(work.memories.map((m: { id: string }) => m.id), [after.job_id]);
  assert.deepEqual(await recallIds(t, alice, "launch code", { namespace: "work" }), [after.job_id]);
  const ended = await json(await t.signed(alice, "GET", `/api/remember/${before.job_id}`));
  assert.equal(ended.status, "failed");
  assert.match(ended.error, /it was erased/);
});

/** A vector store whose writes wait, once `hold` is called, until the test lets them go. */
function heldVectors() {
  const vectors = new MemoryVectorStore(new LexicalEmbedder().dimensions);
  let held: { reached: PromiseWithResolvers<void>; release: PromiseWithResolvers<void> } | null =
    null;
  const upsert = vectors.upsert.bind(vectors);
  vectors.upsert = async (rows, options) => {
    if (held) {
      held.reached.resolve();
      await held.release.promise;
    }
    return await upsert(rows, options);
  };
  return {
    vectors,
    /** Holds the next writes; resolves once one waits. */
    hold() {
      held = { reached: Promise.withResolvers(), release: Promise.withResolvers() };
      return held.reached.promise;
    },
    release() {
      held?.release.resolve();
      held = null;
    },
  };
}

Deno.test("erase a namespace while a client-encrypted memory's row is being written: it goes whole", async () => {
  const { vectors, hold, release } = heldVectors();
  await using t = await startTestRelayer({ vectors });
  const alice = await t.newCaller();
  const vector = Array.from({ length: vectors.dimensions }, (_, i) => (i === 0 ? 1 : 0));
  const manual = (namespace: string) =>
    t.signed(alice, "POST", "/api/remember/manual", {
      encrypted_data: btoa("client ciphertext"),
      vector,
      namespace,
    });
  const eraseAll = async (namespace: string) =>
    await json(
      await t.signed(alice, "DELETE", `/api/memories?namespace=${namespace}&confirm=${namespace}`),
    );

  // Its row lands after the erase: its remember finds it erased, takes the row away and says so.
  let reached = hold();
  const late = manual("home");
  await reached; // its blob is stored, its row not yet
  const home = await eraseAll("home");
  release();
  const refused = await json(await late, 409);
  assert.match(refused.error, /namespace "home" was erased while the memory was being stored/);
  assert.equal(home.erased, 1);

  // Its row lands once the erase found its blob without one, and its remember answers before
  // the erase is recorded: the erase takes the row away.
  reached = hold();
  const early = manual("work");
  await reached;
  const has = vectors.has.bind(vectors);
  let stored: { id: string } | undefined;
  vectors.has = async (ids, options) => {
    const found = await has(ids, options);
    if (!stored) {
      release();
      stored = await json(await early);
    }
    return found;
  };
  const work = await eraseAll("work");
  assert.deepEqual(work.receipts.map((r: { memory_id: string }) => r.memory_id), [stored!.id]);

  for (const namespace of ["home", "work"]) {
    const listed = await json(await t.signed(alice, "GET", `/api/memories?namespace=${namespace}`));
    assert.deepEqual(listed.memories, [], `nothing of ${namespace} is left`);
    assert.deepEqual(await t.blobs.list(alice.owner, namespace), []);
  }
});

Deno.test("restore while an update that keeps its text is stored: the update lands", async () => {
  const { vectors, hold, release } = heldVectors();
  await using t = await startTestRelayer({ vectors });
  const alice = await t.newCaller();
  const [bees] = await remember(t, alice, [{ text: "I keep bees" }]);
  const reached = hold();
  const update = await json(
    await t.signed(alice, "PUT", `/api/memories/${bees}`, { text: "I keep bees", tags: ["hobby"] }),
    202,
  );
  await reached; // the new version's blob is stored, its row not yet
  const restored = await json(
    await t.signed(alice, "POST", "/api/restore", { namespace: "default" }),
  );
  assert.equal(restored.restored, 0);
  release();
  await t.settle(alice, [update.job_id]);
  const { memories } = await json(await t.signed(alice, "GET", "/api/memories"));
  assert.deepEqual(
    memories.map((m: { id: string; tags: string[] }) => [m.id, m.tags]),
    [[update.job_id, ["hobby"]]],
  );
  assert.equal((await t.blobs.list(alice.owner, "default")).length, 1);
});

Deno.test("erase a namespace the cipher cannot erase: refused, and what is on its way still lands", async () => {
  const embedder = new SlowEmbedder(new LexicalEmbedder(), { delayMs: 300 });
  const local = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  const cipher: Cipher = {
    name: local.name,
    encrypt: (...args) => local.encrypt(...args),
    decrypt: (...args) => local.decrypt(...args),
    erase: () => Promise.reject(new SvcError("not_implemented", "Cannot erase: no sponsor")),
  };
  await using t = await startTestRelayer({ embedder, cipher });
  const alice = await t.newCaller();
  const saved = await json(
    await t.signed(alice, "POST", "/api/remember", { text: "Keep this", namespace: "work" }),
    202,
  );
  await json(await t.signed(alice, "DELETE", "/api/memories?namespace=work&confirm=work"), 501);
  for (let i = 0; i < 200; i++) {
    const job = await json(await t.signed(alice, "GET", `/api/remember/${saved.job_id}`));
    if (job.status === "done" || job.status === "failed") break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const work = await json(await t.signed(alice, "GET", "/api/memories?namespace=work"));
  assert.deepEqual(work.memories.map((m: { id: string }) => m.id), [saved.job_id]);
});

Deno.test("update with a cipher that erases only with the caller's key: the old version goes, and the log names the remedy", async () => {
  const local = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  // As Seal without a server key: an erase without a caller's key is refused.
  const cipher: Cipher = {
    name: "seal",
    encrypt: (...args) => local.encrypt(...args),
    decrypt: (...args) => local.decrypt(...args),
    erase: (owner, ids, options) =>
      options?.credentials
        ? local.erase(owner, ids, options)
        : Promise.reject(new SvcError("bad_request", "Cannot erase: send x-delegate-key")),
  };
  const lines: string[] = [];
  await using t = await startTestRelayer({
    cipher,
    logger: createLogger("info", (line) => lines.push(line)),
  });
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [{ text: "I live in Oslo" }]);
  const res = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  await t.settle(alice, [res.job_id]);
  await json(await t.signed(alice, "GET", `/api/memories/${old}`), 404);
  const warned = lines.map((line) => JSON.parse(line))
    .filter((entry) => /cannot erase keys without a caller's key/.test(entry.msg));
  assert.equal(warned.length, 1, lines.join("\n"));
  assert.match(warned[0].msg, /SVC_SEAL_SERVER_KEY/);
  assert.doesNotMatch(JSON.stringify(warned[0]), /x-delegate-key/, "not the cipher's advice");
});

Deno.test("duplicates with a cipher that decrypts only with the caller's key: named alone without it", async () => {
  const local = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  // As Seal: a read without the caller's key is refused.
  const cipher: Cipher = {
    name: "seal",
    encrypt: (...args) => local.encrypt(...args),
    decrypt: (owner, bytes, options) =>
      options?.credentials?.delegatePrivateKey
        ? local.decrypt(owner, bytes, options)
        : Promise.reject(new SvcError("forbidden", "Cannot decrypt: send x-delegate-key")),
    erase: (...args) => local.erase(...args),
  };
  await using t = await startTestRelayer({ cipher });
  const alice = await t.newCaller();
  const [id] = await remember(t, alice, [{ text: "I keep bees" }]);
  const again = await json(
    await t.signed(alice, "POST", "/api/remember", { text: "i keep bees" }),
    200,
  );
  assert.deepEqual(again, { status: "duplicate", duplicate_of: id, job_id: id });
  const shown = await json(
    await t.signed(alice, "POST", "/api/remember", { text: "I keep BEES" }, {
      "x-delegate-key": alice.key.privateKey,
    }),
    200,
  );
  assert.equal(shown.memory.text, "I keep bees");
});

Deno.test("update: the expiry is kept, replaced by a new one, or cleared with expires_at null", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const [first] = await remember(t, alice, [{ text: "Parking spot B12", ttl_seconds: 600 }]);
  const update = async (id: string, body: object) => {
    const { job_id } = await json(await t.signed(alice, "PUT", `/api/memories/${id}`, body), 202);
    await t.settle(alice, [job_id]);
    return await json(await t.signed(alice, "GET", `/api/memories/${job_id}`));
  };
  const expiresAt = (await json(await t.signed(alice, "GET", `/api/memories/${first}`))).expires_at;
  const kept = await update(first, { text: "Parking spot B14" });
  assert.equal(kept.expires_at, expiresAt);
  const cleared = await update(kept.id, { text: "Parking spot B16", expires_at: null });
  assert.equal(cleared.expires_at, null);
  const again = await update(cleared.id, { text: "Parking spot B18", ttl_seconds: 60 });
  assert.ok(Date.parse(again.expires_at) < Date.parse(expiresAt));
});

Deno.test("update: the new version supersedes the old, which is erased; recall never returns both", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [
    { text: "I live in Oslo", tags: ["home"], namespace: "me" },
  ]);
  const original = await json(await t.signed(alice, "GET", `/api/memories/${old}`));
  const res = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  assert.equal(res.supersedes, old);
  await t.settle(alice, [res.job_id]);
  const fresh = await json(await t.signed(alice, "GET", `/api/memories/${res.job_id}`));
  assert.equal(fresh.text, "I live in Bergen");
  assert.equal(fresh.supersedes, old);
  assert.equal(fresh.namespace, "me");
  assert.deepEqual(fresh.tags, ["home"], "tags kept unless given");
  assert.equal(fresh.created_at, original.created_at, "first remembered then");
  assert.ok(fresh.updated_at > original.updated_at);
  await json(await t.signed(alice, "GET", `/api/memories/${old}`), 404);
  assert.deepEqual(await recallIds(t, alice, "where do I live", { namespace: "me" }), [
    res.job_id,
  ]);

  // `replaces` on remember does the same, with new tags.
  const again = await json(
    await t.signed(alice, "POST", "/api/remember", {
      text: "I live in Tromsø",
      replaces: res.job_id,
      tags: ["north"],
    }),
    202,
  );
  await t.settle(alice, [again.job_id]);
  const { memories } = await json(await t.signed(alice, "GET", "/api/memories?namespace=me"));
  assert.deepEqual(memories.map((m: { id: string; tags: string[] }) => [m.id, m.tags]), [
    [again.job_id, ["north"]],
  ]);
  await json(
    await t.signed(alice, "PUT", `/api/memories/${crypto.randomUUID()}`, { text: "x" }),
    404,
  );
  // Both versions before the current one name it.
  const refused = await json(
    await t.signed(alice, "POST", "/api/remember", { text: "x", replaces: old }),
    409,
  );
  assert.equal(refused.current, again.job_id);
});

Deno.test("duplicates: the same text again stores nothing and answers with the memory", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const [id] = await remember(t, alice, [{ text: "I am vegetarian" }]);
  const dup = await json(
    await t.signed(alice, "POST", "/api/remember", { text: "  i AM\nvegetarian " }),
  );
  assert.equal(dup.status, "duplicate");
  assert.equal(dup.duplicate_of, id);
  assert.equal(dup.memory.text, "I am vegetarian");
  // A job to follow, as every remember answer names one (clients of 0.1.0 poll it): the job that
  // stored the memory.
  assert.equal(dup.job_id, id);
  const job = await json(await t.signed(alice, "GET", `/api/remember/${dup.job_id}`));
  assert.deepEqual([job.status, job.memory_id], ["done", id]);
  const other = await t.signed(alice, "POST", "/api/remember", {
    text: "I am vegetarian",
    namespace: "elsewhere",
  });
  assert.equal(other.status, 202, "another namespace is another memory");
  const bulk = await json(
    await t.signed(alice, "POST", "/api/remember/bulk", {
      items: [{ text: "I AM VEGETARIAN" }, { text: "I run on Sundays" }, {
        text: "i run on sundays",
      }],
    }),
    202,
  );
  assert.deepEqual(bulk.duplicates, [{ index: 0, duplicate_of: id }]);
  assert.equal(bulk.total, 3);
  assert.equal(bulk.job_ids[0], id, "job_ids[i] is items[i]'s: the memory holding its text");
  await t.settle(alice, bulk.job_ids);
  // The second of two equal texts in flight is found by the worker.
  const statuses = await json(
    await t.signed(alice, "POST", "/api/remember/bulk/status", { job_ids: bulk.job_ids }),
  );
  const [original, first, second] = statuses.results;
  assert.deepEqual([original.job_id, original.status], [id, "done"]);
  assert.equal(first.duplicate_of, undefined);
  assert.equal(second.duplicate_of, first.job_id);
  assert.equal(second.memory_id, first.job_id);
  const { memories } = await json(await t.signed(alice, "GET", "/api/memories"));
  assert.equal(memories.length, 2);
});

Deno.test("duplicates: a text held by a memory that expires sooner is stored anew, not lost with it", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const [soon] = await remember(t, alice, [{
    text: "My blood type is O negative",
    ttl_seconds: 60,
  }]);
  const ask = async (body: object) =>
    await json(await t.signed(alice, "POST", "/api/remember", body), 200);
  // As long (sent again a moment later) or shorter: held already.
  const again = await ask({ text: "My blood type is O negative", ttl_seconds: 60 });
  assert.equal(again.duplicate_of, soon);
  const shorter = await ask({ text: "My blood type is O negative", ttl_seconds: 30 });
  assert.equal(shorter.duplicate_of, soon);
  // Longer, or for good: a new memory, which a later remember finds.
  const kept = await t.signed(alice, "POST", "/api/remember", {
    text: "My blood type is O negative",
  });
  assert.equal(kept.status, 202);
  const { job_id } = await kept.json();
  await t.settle(alice, [job_id]);
  const later = await ask({ text: "My blood type is O negative" });
  assert.equal(later.duplicate_of, job_id);
  // Twice in one bulk: the one that lives longer is stored too.
  const inHour = new Date(Date.now() + 3_600_000).toISOString();
  const bulk = await json(
    await t.signed(alice, "POST", "/api/remember/bulk", {
      items: [{ text: "I parked on level 3", namespace: "car", expires_at: inHour }, {
        text: "I parked on level 3",
        namespace: "car",
      }],
    }),
    202,
  );
  await t.settle(alice, bulk.job_ids);
  const { memories } = await json(await t.signed(alice, "GET", "/api/memories?namespace=car"));
  assert.deepEqual(memories.map((m: { expires_at: string | null }) => m.expires_at), [
    null,
    inHour,
  ]);
});

Deno.test("tags and time filters on recall; tags and expiry are validated", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const [tea, coffee] = await remember(t, alice, [
    { text: "I drink green tea in the morning", tags: ["drinks"] },
    { text: "I drink coffee in the morning", tags: ["drinks", "work"] },
  ]);
  assert.deepEqual((await recallIds(t, alice, "morning drink")).sort(), [tea, coffee].sort());
  assert.deepEqual(await recallIds(t, alice, "morning drink", { tags: ["work"] }), [coffee]);
  assert.deepEqual(await recallIds(t, alice, "morning drink", { tags: ["nope"] }), []);
  const later = new Date(Date.now() + 60_000).toISOString();
  assert.deepEqual(await recallIds(t, alice, "morning drink", { since: later }), []);
  const { results } = await json(
    await t.signed(alice, "POST", "/api/recall", { query: "coffee", tags: ["work"] }),
  );
  assert.deepEqual(results[0].tags, ["drinks", "work"]);

  const tooMany = Array.from({ length: 17 }, (_, i) => `t${i}`);
  for (
    const [body, message] of [
      [{ tags: tooMany }, /at most 16/],
      [{ tags: [""] }, /1 to 64/],
      [{ tags: "diet" }, /must be an array/],
      [{ ttl_seconds: 0 }, /ttl_seconds must be between/],
      [{ ttl_seconds: 60, expires_at: later }, /either ttl_seconds or expires_at/],
      [{ expires_at: "2001-01-01T00:00:00Z" }, /in the future/],
      [{ expires_at: "soon" }, /ISO 8601/],
      [{ replaces: "42" }, /replaces must be a memory id/],
    ] as const
  ) {
    const res = await t.signed(alice, "POST", "/api/remember", { text: "x", ...body });
    assert.match((await json(res, 400)).error, message);
  }
});

Deno.test("expiry: an expired memory is never returned; the sweep erases it", async () => {
  const clock = testClock();
  await using t = await startTestRelayer({ expirySweepMs: 3_600_000, now: clock.now });
  const alice = await t.newCaller();
  // Long enough for the remember and the first read to finish before it expires, on a slow
  // machine too.
  const [brief, lasting, hotel] = await remember(t, alice, [
    { text: "My parking spot today is B12", ttl_seconds: 3 },
    { text: "My car is a blue Volvo" },
    { text: "The hotel room is 214", namespace: "trip", ttl_seconds: 3 },
  ]);
  const shown = await json(await t.signed(alice, "GET", `/api/memories/${brief}`));
  assert.ok(Date.parse(shown.expires_at) > Date.now() - 1_000);
  // Recall tells the expiry as get does.
  const found = await json(
    await t.signed(alice, "POST", "/api/recall", { query: "parking spot car", min_score: 0 }),
  );
  assert.deepEqual(
    Object.fromEntries(
      found.results.map((r: { id: string; expires_at: string }) => [r.id, r.expires_at]),
    ),
    { [brief]: shown.expires_at, [lasting]: null },
  );
  clock.advance(4_000); // past every ttl_seconds: 3
  await json(await t.signed(alice, "GET", `/api/memories/${brief}`), 404);
  assert.deepEqual(await recallIds(t, alice, "parking spot car"), [lasting]);
  // Nor counted, before the sweep; a namespace holding only expired memories is not listed.
  const counts = await json(await t.signed(alice, "GET", "/api/namespaces"));
  assert.deepEqual(counts.namespaces, [{ namespace: "default", count: 1 }]);
  // Not updated; erased by id before the sweep, it is erased now, with its receipt.
  await json(await t.signed(alice, "PUT", `/api/memories/${hotel}`, { text: "Room 215" }), 404);
  const receipt = await json(await t.signed(alice, "DELETE", `/api/memories/${hotel}`));
  assert.equal(receipt.memory_id, hotel);
  assert.deepEqual(await t.blobs.list(alice.owner, "trip"), []);
  const blobsBefore = (await t.blobs.list(alice.owner, "default")).length;
  assert.equal(await t.relayer.lifecycle.sweep(), 1);
  assert.equal((await t.blobs.list(alice.owner, "default")).length, blobsBefore - 1);
  assert.equal(await t.relayer.lifecycle.sweep(), 0, "nothing left to sweep");
});

Deno.test("expiry: one sweep erases every expired memory, a batch at a time; a second asked meanwhile shares it", async () => {
  const clock = testClock();
  await using t = await startTestRelayer({ expirySweepMs: 3_600_000, now: clock.now });
  const alice = await t.newCaller();
  await remember(
    t,
    alice,
    Array.from({ length: 5 }, (_, i) => ({ text: `Parking spot ${i} today`, ttl_seconds: 2 })),
  );
  const [kept] = await remember(t, alice, [{ text: "My car is a blue Volvo" }]);
  clock.advance(3_000); // past every ttl_seconds: 2
  const blobsBefore = (await t.blobs.list(alice.owner, "default")).length;
  // Batches of 2: three of them.
  assert.deepEqual(
    await Promise.all([t.relayer.lifecycle.sweep(2), t.relayer.lifecycle.sweep(2)]),
    [5, 5],
  );
  assert.equal((await t.blobs.list(alice.owner, "default")).length, blobsBefore - 5);
  assert.equal(await t.relayer.lifecycle.sweep(2), 0, "nothing left to sweep");
  const listed = await json(await t.signed(alice, "GET", "/api/memories"));
  assert.deepEqual(listed.memories.map((m: { id: string }) => m.id), [kept]);

  // Once the relayer closes, a sweep starts no batch: it would run on closed stores.
  // A ttl is counted from the wall clock; the relayer's own clock is ahead of it by now.
  const expires_at = new Date(clock.now() + 1_000).toISOString();
  await remember(t, alice, [{ text: "A short-lived note", expires_at }]);
  clock.advance(2_000);
  await t.relayer.lifecycle.stopSweeping();
  assert.equal(await t.relayer.lifecycle.sweep(), 0);
});

Deno.test("the owner key may list, get, update, erase and recall (the dashboard's), and nothing else", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const [id] = await remember(t, alice, [{ text: "I am vegetarian" }]);
  const owner = { ...alice, key: alice.ownerKey };
  const { memories } = await json(await t.signed(owner, "GET", "/api/memories"));
  assert.deepEqual(memories.map((m: { id: string }) => m.id), [id]);
  await json(await t.signed(owner, "GET", `/api/memories/${id}`));
  const { results } = await json(
    await t.signed(owner, "POST", "/api/recall", { query: "vegetarian" }),
  );
  assert.deepEqual(results.map((r: { id: string }) => r.id), [id]);
  const refused = await json(
    await t.signed(owner, "POST", "/api/remember", { text: "I am vegan" }),
    403,
  );
  assert.match(
    refused.error,
    /owner's key signs only list, get, update, erase, recall.*namespaces.*key add or the dashboard; on Sui, the package's add_delegate_key/,
  );
  const update = await json(
    await t.signed(owner, "PUT", `/api/memories/${id}`, { text: "I am vegan" }),
    202,
  );
  await t.settle(alice, [update.job_id]);
  const job = await json(await t.signed(owner, "GET", `/api/remember/${update.job_id}`));
  assert.equal(job.status, "done");
  const corrected = await json(await t.signed(alice, "GET", `/api/memories/${update.job_id}`));
  assert.equal(corrected.text, "I am vegan");
  assert.equal(corrected.remembered_by.label, "owner");
  await json(await t.signed(owner, "DELETE", `/api/memories/${update.job_id}`));
  await json(await t.signed(alice, "GET", `/api/memories/${update.job_id}`), 404);
});

Deno.test("namespaces: each with its memory count, by name; a scoped key sees only its own", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  await remember(t, alice, [
    { text: "I am vegetarian" },
    { text: "The launch is on Tuesday", namespace: "work" },
    { text: "The budget is 40k", namespace: "work" },
    { text: "I keep bees", namespace: "hobby" },
  ]);
  await remember(t, bob, [{ text: "I commute by bicycle", namespace: "bob" }]);
  const all = [
    { namespace: "default", count: 1 },
    { namespace: "hobby", count: 1 },
    { namespace: "work", count: 2 },
  ];
  assert.deepEqual(await json(await t.signed(alice, "GET", "/api/namespaces")), {
    namespaces: all,
  });
  // The dashboard's: signed by the owner key.
  const owner = { ...alice, key: alice.ownerKey };
  assert.deepEqual((await json(await t.signed(owner, "GET", "/api/namespaces"))).namespaces, all);
  // With an account named, the owner key answers for it alone.
  const named = (accountId: string) =>
    t.signed(owner, "GET", "/api/namespaces", undefined, { "x-account-id": accountId });
  assert.deepEqual((await json(await named(alice.accountId))).namespaces, all);
  const foreign = await json(await named(bob.accountId), 401);
  assert.equal(foreign.reason, "unknown_key");
  // An id is one however it is written: in capitals, or shortened as Sui writes small ones.
  assert.deepEqual(
    (await json(await named(`0x${alice.accountId.slice(2).toUpperCase()}`))).namespaces,
    all,
  );
  const ownerKey = await generateKeyPair();
  t.directory.add(
    { accountId: `0x${"5".padStart(64, "0")}`, owner: addressOf(ownerKey.publicKey), active: true },
    [(await generateKeyPair()).publicKey],
  );
  const small = await t.signed({ ...alice, key: ownerKey }, "GET", "/api/namespaces", undefined, {
    "x-account-id": "0x5",
  });
  assert.deepEqual(await json(small), { namespaces: [] });
  const scoped = await t.addKey(alice, { scope: { namespaces: ["work", "travel"] } });
  assert.deepEqual((await json(await t.signed(scoped, "GET", "/api/namespaces"))).namespaces, [
    { namespace: "work", count: 2 },
  ]);
  const writer = await t.addKey(alice, { scope: { operations: ["write"] } });
  const refused = await json(await t.signed(writer, "GET", "/api/namespaces"), 403);
  assert.equal(refused.code, "forbidden");
  await json(await t.signed(alice, "DELETE", "/api/memories?namespace=hobby&confirm=hobby"));
  assert.deepEqual((await json(await t.signed(alice, "GET", "/api/namespaces"))).namespaces, [
    { namespace: "default", count: 1 },
    { namespace: "work", count: 2 },
  ]);
  const fresh = await t.newCaller();
  assert.deepEqual(await json(await t.signed(fresh, "GET", "/api/namespaces")), {
    namespaces: [],
  });
});

Deno.test("on a deactivated account the owner key may read and erase, not correct", async () => {
  await using t = await startTestRelayer();
  const retired = await t.newCaller({ active: false });
  const owner = { ...retired, key: retired.ownerKey };
  const id = crypto.randomUUID();
  await json(await t.signed(owner, "GET", "/api/memories"));
  await json(await t.signed(owner, "DELETE", `/api/memories/${id}`), 404);
  const refused = await json(
    await t.signed(owner, "PUT", `/api/memories/${id}`, { text: "I am vegan" }),
    403,
  );
  assert.equal(
    refused.error,
    "The account is deactivated: its owner's key may read, export and erase its memories, not write them",
  );
});

Deno.test("erase during concurrent recalls: every recall answers, none after the erase returns it", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const ids = await remember(
    t,
    alice,
    Array.from({ length: 20 }, (_, i) => ({ text: `Note ${i}: the garden needs water` })),
  );
  let erased = false;
  // Each client recalls 15 times, and on until it has recalled 3 times after the erase answered,
  // however fast recalls are next to the erase.
  const recalls = Array.from({ length: 4 }, async () => {
    for (let i = 0, after = 0; i < 15 || after < 3; i++) {
      const startedAfter = erased;
      const found = await recallIds(t, alice, "garden water");
      if (startedAfter) {
        after++;
        assert.ok(!found.includes(ids[0]), "an erased memory came back");
      }
    }
  });
  await new Promise((r) => setTimeout(r, 5));
  try {
    await json(await t.signed(alice, "DELETE", `/api/memories/${ids[0]}`));
  } finally {
    erased = true;
    await Promise.all(recalls);
  }
});

Deno.test("expiry: a memory another relayer stored, not heard of yet, is erased whole by this one's sweep", async () => {
  // Two relayers on one store (as on PostgreSQL), each with a lexical index of its own that
  // hears of the other's writes only when it reads the namespace's stored version.
  const shared = new SharedVectorStore(new LexicalEmbedder().dimensions);
  await using kv = await Deno.openKv(":memory:");
  const records = new StateLifecycleRecords(
    new KvStateStore(kv),
    crypto.getRandomValues(new Uint8Array(32)),
  );
  await using one = await startTestRelayer({ vectors: shared.view(), records });
  const alice = await one.newCaller();
  const clock = testClock();
  await using two = await startTestRelayer({
    vectors: shared.view(),
    records,
    blobs: one.blobs,
    directory: one.directory,
    now: clock.now,
  });
  // The second has read the namespace (empty) before the first stores into it.
  await json(await two.signed(alice, "GET", "/api/memories"));
  await remember(one, alice, [{ text: "My parking spot today is B12", ttl_seconds: 1 }]);
  clock.advance(1_100);
  assert.equal(await two.relayer.lifecycle.sweep(), 1);
  assert.equal(await shared.inner.count(), 0, "its index row went with it");
  assert.deepEqual(await one.blobs.list(alice.owner, "default"), [], "and its blob");
});

Deno.test("an owner's key another account registered as its delegate key is still its owner's", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const mallory = await t.newCaller();
  const [mine] = await remember(t, alice, [{ text: "I am vegetarian" }]);
  await remember(t, mallory, [{ text: "Mallory's own memory" }]);
  // Anyone may register any public key as a delegate key of their own account.
  t.directory.add(
    { accountId: mallory.accountId, owner: mallory.owner, active: true },
    [alice.ownerKey.publicKey],
  );
  // Signed by Alice's owner key without x-account-id: Alice's account, as its owner.
  const owner = { ...alice, key: alice.ownerKey };
  const { memories } = await json(await t.signed(owner, "GET", "/api/memories"));
  assert.deepEqual(memories.map((m: { id: string }) => m.id), [mine]);
  await json(await t.signed(owner, "POST", "/api/remember", { text: "into whose account?" }), 403);
  const mallorys = await json(await t.signed(mallory, "GET", "/api/memories"));
  assert.deepEqual(mallorys.memories.map((m: { text: string }) => m.text), [
    "Mallory's own memory",
  ]);
});
