/**
 * Operator-blind namespaces through `BlindMemory` and an in-process relayer: the relayer's state
 * holds no text, two devices share one memory, a removed key no longer syncs, an erase gives a
 * receipt and leaves every cache at the next sync, and the ranking is normal mode's.
 */
import assert from "node:assert/strict";
import { BlindMemory } from "../src/client/blind.ts";
import { BlindCache } from "../src/client/blind_cache.ts";
import type { ImportLine } from "../src/client/portability.ts";
import { blindKeys, unwrapWith, wrapFor } from "../src/client/blind_keys.ts";
import { sha256Hex } from "@svc/util/keys";
import { verifyReceipt } from "../src/client/receipt.ts";
import { SvcError } from "../src/errors.ts";
import { BlindLog } from "../src/services/blind_log.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import type { EmbedOptions } from "../src/backends/types.ts";
import {
  BASE,
  type Caller,
  jsonOf,
  rememberAll,
  startTestRelayer,
  type TestRelayer,
} from "./fixtures.ts";

const FACTS = [
  "I am vegetarian and never eat fish",
  "My sister Niamh lives in Galway",
  "The car is a blue Volvo bought in 2021",
  "I practise the cello every Sunday morning",
  "My dentist appointment is on the third of March",
];

/**
 * A `BlindMemory` of `caller` talking to the in-process relayer `t`; `paths` hears each path,
 * `appends` each body sent to `POST /api/blind/entries`.
 */
function device(
  t: TestRelayer,
  caller: Caller,
  namespace = "private",
  options: {
    cacheFile?: string;
    paths?: string[];
    appends?: string[];
    refuse?: (path: string) => boolean;
  } = {},
) {
  return BlindMemory.open({
    baseUrl: BASE,
    privateKey: caller.key.privateKey,
    embedder: new LexicalEmbedder(),
    namespace,
    retries: 0,
    cacheFile: options.cacheFile,
    fetch: (input, init) => {
      const path = new URL(input as string).pathname;
      options.paths?.push(path);
      if (path === "/api/blind/entries" && init?.method === "POST") {
        options.appends?.push(init.body as string);
      }
      if (options.refuse?.(path)) return Promise.reject(new TypeError("connection reset"));
      return t.relayer.handler(new Request(input, init));
    },
  });
}

/** The device cache at `path` of `caller`'s key, for the namespace "private" as it is now. */
async function cacheOf(t: TestRelayer, path: string, caller: Caller) {
  const head = await jsonOf(await t.signed(caller, "GET", "/api/blind?namespace=private"));
  const wrapped = Uint8Array.fromBase64(head.wrapped);
  const contentKey = await unwrapWith(wrapped, caller.key.privateKey, "private");
  const keyId = await sha256Hex((await blindKeys(contentKey)).entries);
  return await BlindCache.open(path, caller.key.privateKey, "private", keyId);
}

/** Every value under `["blind"]` in the relayer's state, as text. */
async function storedBlind(t: TestRelayer): Promise<string> {
  const parts: string[] = [];
  for await (const { value } of t.kv.list({ prefix: [] })) {
    parts.push(
      value instanceof Uint8Array ? new TextDecoder().decode(value) : JSON.stringify(value),
    );
  }
  return parts.join("\n");
}

/** The ids of the sealed entries the relayer's state holds. */
async function sealedIds(t: TestRelayer): Promise<string[]> {
  const ids: string[] = [];
  for await (const { value } of t.kv.list<{ id?: string; sealed?: unknown }>({ prefix: [] })) {
    if (value?.sealed && value.id) ids.push(value.id);
  }
  return ids;
}

Deno.test("a blind namespace recalls on the client; the relayer's state holds no text", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const memory = await device(t, caller);
  await memory.enable();
  const ids = await memory.remember(
    FACTS.map((text, i) => ({ text, tags: i === 1 ? ["family"] : [] })),
  );
  assert.equal(ids.length, FACTS.length);

  const { results } = await memory.recall("where does my sister live?", { limit: 3 });
  assert.equal(results[0].text, FACTS[1]);
  assert.deepEqual(results[0].tags, ["family"]);
  const tagged = await memory.recall("my sister", { tags: ["family"], minScore: 0 });
  assert.deepEqual(tagged.results.map((r) => r.id), [ids[1]]);

  const stored = await storedBlind(t);
  for (const word of ["vegetarian", "Niamh", "Volvo", "cello", "dentist", "family", "private"]) {
    assert.ok(!stored.includes(word), `"${word}" is in the relayer's state`);
  }
  // The scan reads the log's entries: it finds what they hold in clear, their ids.
  for (const id of ids) assert.ok(stored.includes(id));
});

Deno.test("two devices share a blind namespace; a removed key no longer syncs", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller();
  const phone = await t.addKey(laptop);
  const first = await device(t, laptop);
  await first.enable();
  await first.remember([{ text: FACTS[0] }]);

  const second = await device(t, phone);
  await assert.rejects(second.sync(), (error: SvcError) => error.code === "forbidden");
  await first.letIn(second.publicKey);
  const { results } = await (await device(t, phone)).recall("do I eat fish?");
  assert.equal(results[0].text, FACTS[0]);

  const reader = await device(t, phone);
  await reader.sync();
  await first.remember([{ text: FACTS[3] }]);
  assert.equal((await reader.recall("cello on Sunday")).results[0].text, FACTS[3]);

  t.directory.remove(phone.key.publicKey);
  await assert.rejects(reader.sync(), (error: SvcError) => error.code === "unauthorized");
  await assert.rejects(reader.recall("cello"), (error: SvcError) => error.code === "unauthorized");
});

Deno.test("an erase answers a receipt and leaves other devices' caches at their next sync", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller();
  const phone = await t.addKey(laptop);
  const first = await device(t, laptop);
  await first.enable();
  await first.letIn(phone.key.publicKey);
  const [id] = await first.remember([{ text: FACTS[2] }]);
  assert.deepEqual(await sealedIds(t), [id]);
  const second = await device(t, phone);
  assert.equal((await second.recall("Volvo")).total, 1);

  const receipt = await first.forget(id);
  assert.equal(receipt.memory_id, id);
  const health = await jsonOf(await t.send("GET", "/health"));
  assert.ok(await verifyReceipt(receipt, health.receiptKey));
  assert.equal(health.operatorBlind, true);
  assert.equal((await second.recall("Volvo", { minScore: 0 })).total, 0);
  assert.deepEqual(await first.forget(id), receipt, "sent again: the same receipt");
  await assert.rejects(first.forget(crypto.randomUUID()), (e: SvcError) => e.code === "not_found");
  assert.deepEqual(await sealedIds(t), []);
});

Deno.test("a blind namespace is enabled once, and read only with its embedder", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const memory = await device(t, caller);
  await memory.enable();
  await assert.rejects(memory.enable(), (error: SvcError) => error.code === "conflict");
  const lexical = new LexicalEmbedder();
  const other = await BlindMemory.open({
    baseUrl: BASE,
    privateKey: caller.key.privateKey,
    embedder: { ...lexical, model: "another-model", embed: (texts) => lexical.embed(texts) },
    namespace: "private",
    fetch: (input, init) => t.relayer.handler(new Request(input, init)),
  });
  await assert.rejects(other.sync(), (error: SvcError) => error.code === "conflict");
  const normal = await device(t, caller, "elsewhere");
  await assert.rejects(normal.sync(), (error: SvcError) => error.code === "not_found");
});

Deno.test("the relayer refuses to take a blind namespace's text on the normal routes", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  // A memory stored before the namespace was made blind, and not moved in yet.
  const [earlier] = await rememberAll(t, caller, [{ text: "I eat fish", namespace: "private" }]);
  await (await device(t, caller)).enable();
  const update = await t.signed(caller, "PUT", `/api/memories/${earlier}`, { text: "I am vegan" });
  assert.equal((await jsonOf(update, 409)).reason, "operator_blind");
  const refused = async (path: string, body: object) => {
    const answer = await jsonOf(await t.signed(caller, "POST", path, body), 409);
    assert.equal(answer.reason, "operator_blind");
  };
  await refused("/api/remember", { text: "I am vegetarian", namespace: "private" });
  await refused("/api/remember/bulk", {
    items: [{ text: "a" }, { text: "I am vegetarian", namespace: "private" }],
  });
  const vector = Array.from({ length: t.vectors.dimensions }, (_, i) => (i === 5 ? 1 : 0));
  await refused("/api/remember/manual", { encrypted_data: "YQ==", vector, namespace: "private" });
  await refused("/api/analyze", { text: "I am vegetarian", namespace: "private" });
  await refused("/api/ask", { question: "What do I eat?", namespace: "private" });
  const line = JSON.stringify({ text: "I am vegetarian", namespace: "private" });
  const imported = await t.signed(caller, "POST", "/api/import", line, {
    "content-type": "application/x-ndjson",
  });
  assert.equal((await jsonOf(imported, 409)).reason, "operator_blind");
  // An import is refused whole: none of its lines for other namespaces is queued either.
  const many = Array.from({ length: 100 }, (_, i) => JSON.stringify({ text: `fact ${i}` }));
  const whole = await t.signed(caller, "POST", "/api/import", [...many, line].join("\n"), {
    "content-type": "application/x-ndjson",
  });
  assert.equal((await jsonOf(whole, 409)).reason, "operator_blind");
  await rememberAll(t, caller, [{ text: "a later fact" }]); // queued after any of them
  const untouched = await jsonOf(await t.signed(caller, "GET", "/api/memories?namespace=default"));
  assert.deepEqual(untouched.memories.map((m: { text: string }) => m.text), ["a later fact"]);
  await rememberAll(t, caller, [{ text: "I am vegetarian", namespace: "public" }]);
  const listed = await jsonOf(await t.signed(caller, "GET", "/api/memories?namespace=private"));
  assert.deepEqual(listed.memories.map((m: { text: string }) => m.text), ["I eat fish"]);
  // An export holds what the relayer can read of it: the memory not moved in yet.
  const exported = await t.signed(caller, "GET", "/api/export?namespace=private");
  assert.deepEqual(
    (await exported.text()).trim().split("\n").map((line) => JSON.parse(line).text),
    [
      "I eat fish",
    ],
  );
});

Deno.test("a namespace's erase erases its operator-blind log too, a receipt per memory", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [earlier] = await rememberAll(t, caller, [{ text: "I eat fish", namespace: "private" }]);
  const memory = await device(t, caller);
  await memory.enable();
  const [kept] = await memory.remember([{ text: "I am vegetarian" }]);
  const path = "/api/memories?namespace=private&confirm=private";
  const erased = await jsonOf(await t.signed(caller, "DELETE", path));
  const ids = erased.receipts.map((receipt: { memory_id: string }) => receipt.memory_id);
  assert.deepEqual(ids.toSorted(), [earlier, kept].toSorted());
  assert.ok(!(await storedBlind(t)).includes(kept), "the log's entry is left");
  await assert.rejects(memory.sync(), (error: SvcError) => error.code === "not_found");
});

Deno.test("a namespace's erase whose operator-blind log cannot be erased leaves everything as it was", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [earlier] = await rememberAll(t, caller, [{ text: "I eat fish", namespace: "private" }]);
  const memory = await device(t, caller);
  await memory.enable();
  await memory.remember([{ text: "I am vegetarian" }]);
  const eraseNamespace = BlindLog.prototype.eraseNamespace;
  BlindLog.prototype.eraseNamespace = () =>
    Promise.reject(new SvcError("backend_unavailable", "The state store is down"));
  try {
    const path = "/api/memories?namespace=private&confirm=private";
    await jsonOf(await t.signed(caller, "DELETE", path), 503);
  } finally {
    BlindLog.prototype.eraseNamespace = eraseNamespace;
  }
  const listed = await jsonOf(await t.signed(caller, "GET", "/api/memories?namespace=private"));
  assert.deepEqual(listed.memories.map((m: { id: string }) => m.id), [earlier]);
  assert.equal((await memory.memories()).length, 1);
});

Deno.test("blind recall ranks as normal recall with the same embedder, threads included", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const memory = await device(t, caller);
  await memory.enable();
  const thread = (i: number) => i < 3 ? "monday" : "tuesday";
  await memory.remember(FACTS.map((text, i) => ({ text, thread: thread(i) })));
  await rememberAll(
    t,
    caller,
    FACTS.map((text, i) => ({ text, namespace: "normal", thread: thread(i) })),
  );
  for (const query of ["where does my sister live", "what car do I drive", "Sunday music"]) {
    const normal = await jsonOf(
      await t.signed(caller, "POST", "/api/recall", { query, namespace: "normal", limit: 5 }),
    );
    const blind = await memory.recall(query, { limit: 5 });
    const shown = (results: { text: string; score: number }[]) =>
      results.map(({ text, score }) => `${text} ${score.toFixed(4)}`);
    assert.deepEqual(shown(blind.results), shown(normal.results), query);
  }
});

Deno.test("a device's cache, sealed at rest, spares a restart the log it holds", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const dir = await Deno.makeTempDir();
  const cacheFile = `${dir}/private.cache`;
  try {
    const first = await device(t, caller, "private", { cacheFile });
    await first.enable();
    const ids = await first.remember(FACTS.map((text) => ({ text })));
    await first.forget(ids[2]);
    const stored = new TextDecoder().decode(await Deno.readFile(cacheFile));
    for (const word of ["vegetarian", "Niamh", "Volvo"]) assert.ok(!stored.includes(word));
    const cache = await cacheOf(t, cacheFile, caller);
    const records = await cache.read();
    assert.ok(!records.some((record) => record.id === ids[2] && record.sealed));

    // A frame cut short by a crash is dropped; the relayer's log fills in what it held.
    await Deno.writeFile(cacheFile, new Uint8Array([0, 0, 1, 0, 7]), { append: true });
    const paths: string[] = [];
    const again = await device(t, caller, "private", { cacheFile, paths });
    const { results } = await again.recall("where does my sister live?", { limit: 1 });
    assert.equal(results[0].text, FACTS[1]);
    assert.deepEqual(paths, ["/api/blind"]);
    assert.equal((await cache.read()).length, records.length);
    const volvo = await again.recall("Volvo", { minScore: 0 });
    assert.ok(volvo.total > 0 && !volvo.results.some((result) => result.text === FACTS[2]));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a file that is no device cache is refused as the cache, and left as it was", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const first = await device(t, caller);
  await first.enable();
  await first.remember(FACTS.slice(0, 2).map((text) => ({ text })));
  const dir = await Deno.makeTempDir();
  try {
    for (const notes of ["my important notes\n", "ab", "\u0000\u0000\u0000\u0010short"]) {
      const cacheFile = `${dir}/notes.txt`;
      await Deno.writeTextFile(cacheFile, notes);
      const memory = await device(t, caller, "private", { cacheFile });
      await assert.rejects(
        memory.recall("where does my sister live?"),
        (error: SvcError) => error.code === "bad_request" && /is not a cache/.test(error.message),
      );
      assert.equal(await Deno.readTextFile(cacheFile), notes);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two processes making one cache file at once both keep their frames", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/shared.cache`;
    const key = "11".repeat(32);
    const [a, b] = await Promise.all([1, 2].map(() => BlindCache.open(path, key, "n", "k")));
    const records = (from: number) =>
      Array.from({ length: 20 }, (_, i) => ({ seq: from + i, id: `m${from + i}`, sealed: "x" }));
    for (let round = 0; round < 20; round++) {
      await Deno.remove(path).catch(() => {});
      await Promise.all([a.append(records(1)), b.append(records(21))]);
      const ids = (await a.read()).map((record) => record.seq).sort((x, y) => x - y);
      assert.deepEqual(ids, Array.from({ length: 40 }, (_, i) => i + 1));
    }
    await assert.rejects(Deno.stat(`${path}.tmp`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cache file another process wrote to after the head was read is no log gone back", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const dir = await Deno.makeTempDir();
  try {
    const cacheFile = `${dir}/shared.cache`;
    const other = await device(t, caller, "private", { cacheFile });
    await other.enable();
    await other.remember([{ text: FACTS[0] }]);
    let heads = 0;
    const late = await BlindMemory.open({
      baseUrl: BASE,
      privateKey: caller.key.privateKey,
      embedder: new LexicalEmbedder(),
      namespace: "private",
      retries: 0,
      cacheFile,
      fetch: async (input, init) => {
        const answer = await t.relayer.handler(new Request(input, init));
        // The other process appends, and writes its cache, between this head and the cache read.
        if (new URL(input as string).pathname === "/api/blind" && heads++ === 0) {
          await other.remember([{ text: FACTS[1] }]);
        }
        return answer;
      },
    });
    const texts = (await late.memories()).map((memory) => memory.text).sort();
    assert.deepEqual(texts, [FACTS[0], FACTS[1]].sort());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("blind recall reads since and until as the relayer does; forget takes ids only", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const memory = await device(t, caller);
  await memory.enable();
  const [id] = await memory.remember([{ text: FACTS[0] }]);
  const today = new Date().toISOString().slice(0, 10);
  const found = await memory.recall("fish", { since: `${today}T00:00:00`, minScore: 0 });
  assert.equal(found.results[0]?.id, id, "a time without an offset is UTC");
  for (const since of ["yesterday", "2030-02-30"]) {
    await assert.rejects(
      memory.recall("fish", { since }),
      (error: SvcError) =>
        error.code === "bad_request" && /since must be an ISO 8601/.test(error.message),
    );
  }
  await assert.rejects(
    memory.forget(".."),
    (error: SvcError) => error.code === "bad_request" && /is not an id/.test(error.message),
  );
  assert.equal((await memory.memories()).length, 1);
});

Deno.test("moveIn brings a namespace's earlier memories into its log, and picks up after a failure", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const ids = await rememberAll(
    t,
    caller,
    FACTS.map((text, i) => ({ text, namespace: "private", tags: i === 0 ? ["diet"] : [] })),
  );
  let failures = 1;
  const failing = await device(t, caller, "private", {
    refuse: (path) => path.startsWith("/api/memories/") && failures-- > 0,
  });
  await failing.enable();
  await assert.rejects(failing.moveIn());
  assert.deepEqual((await sealedIds(t)).length, FACTS.length);

  const memory = await device(t, caller);
  assert.equal(await memory.moveIn(), FACTS.length);
  assert.equal(await memory.moveIn(), 0);
  assert.deepEqual((await sealedIds(t)).sort(), [...ids].sort());
  const listed = await jsonOf(await t.signed(caller, "GET", "/api/memories?namespace=private"));
  assert.equal(listed.memories.length, 0);
  const { results } = await memory.recall("do I eat fish?", { limit: 1 });
  assert.equal(results[0].text, FACTS[0]);
  assert.deepEqual(results[0].tags, ["diet"]);
  assert.equal(results[0].id, ids[0]);
  // Erased by its id on the normal route, a memory moved in is erased from the log, not only
  // answered the receipt of its move.
  const receipt = await jsonOf(await t.signed(caller, "DELETE", `/api/memories/${ids[0]}`));
  assert.match(receipt.blob_id, /^blind-log:/);
  const left = (await memory.memories()).map((entry) => entry.id);
  assert.deepEqual(left.toSorted(), ids.slice(1).toSorted());
});

Deno.test("remember sends more than one append's worth in several", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const memory = await device(t, caller);
  await memory.enable();
  const texts = Array.from({ length: 250 }, (_, i) => ({ text: `note ${i} about item ${i * 3}` }));
  assert.equal((await memory.remember(texts)).length, 250);
  assert.equal((await sealedIds(t)).length, 250);
});

Deno.test("forgetAll erases a blind namespace: its log, its keys and its cache; it can be made again", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const dir = await Deno.makeTempDir();
  const cacheFile = `${dir}/private.cache`;
  try {
    const memory = await device(t, caller, "private", { cacheFile });
    await memory.enable();
    const ids = await memory.remember(FACTS.map((text) => ({ text })));
    await memory.forget(ids[0]);
    const erased = await memory.forgetAll();
    assert.equal(erased.erased, FACTS.length - 1);
    const health = await jsonOf(await t.send("GET", "/health"));
    for (const receipt of erased.receipts) {
      assert.ok(await verifyReceipt(receipt, health.receiptKey));
    }
    assert.deepEqual(erased.receipts.map((r) => r.memory_id).sort(), ids.slice(1).sort());
    const stored = await storedBlind(t);
    for (const id of ids) assert.ok(!stored.includes(id), "an entry or tombstone is left");
    await assert.rejects(Deno.stat(cacheFile));
    await assert.rejects(memory.sync(), (error: SvcError) => error.code === "not_found");
    await rememberAll(t, caller, [{ text: "normal again", namespace: "private" }]);
    const again = await device(t, caller, "other");
    await again.enable();
    const refused = await t.signed(caller, "DELETE", "/api/blind?namespace=other&confirm=else");
    assert.equal(refused.status, 400);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a key's scope holds in a blind namespace: its operations and its namespaces", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const first = await device(t, owner);
  await first.enable();
  await first.remember([{ text: FACTS[0] }]);
  const reader = await t.addKey(owner, { scope: { operations: ["read"] } });
  const elsewhere = await t.addKey(owner, { scope: { namespaces: ["work"] } });
  for (const key of [reader, elsewhere]) await first.letIn(key.key.publicKey);

  const reading = await device(t, reader);
  assert.equal((await reading.recall("fish")).results[0].text, FACTS[0]);
  await assert.rejects(reading.remember([{ text: "x" }]), (e: SvcError) => e.code === "forbidden");
  await assert.rejects(reading.forget((await reading.recall("fish")).results[0].id));
  const outside = await device(t, elsewhere);
  await assert.rejects(outside.sync(), (error: SvcError) => error.code === "forbidden");
});

Deno.test("a device given a content key the log was not written with reads nothing, and says so", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller();
  const phone = await t.addKey(laptop);
  const first = await device(t, laptop);
  await first.enable();
  await first.remember([{ text: FACTS[0] }]);
  // What a relayer that lies would hand the phone: a key of its own making.
  const forged = await wrapFor(
    crypto.getRandomValues(new Uint8Array(32)),
    phone.key.publicKey,
    "private",
  );
  await jsonOf(
    await t.signed(laptop, "PUT", "/api/blind/keys", {
      namespace: "private",
      public_key: phone.key.publicKey,
      wrapped: forged.toBase64(),
    }),
  );
  const second = await device(t, phone);
  await assert.rejects(
    second.recall("fish"),
    (error: SvcError) => error.code === "conflict" && /does not open/.test(error.message),
  );
});

Deno.test("syncs at once take each record once", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const dir = await Deno.makeTempDir();
  try {
    const first = await device(t, caller);
    await first.enable();
    await first.remember(FACTS.map((text) => ({ text })));
    const cacheFile = `${dir}/private.cache`;
    const second = await device(t, caller, "private", { cacheFile });
    await Promise.all([second.sync(), second.sync(), second.recall("fish"), second.sync()]);
    assert.equal((await second.memories()).length, FACTS.length);
    const cache = await cacheOf(t, cacheFile, caller);
    assert.equal((await cache.read()).length, FACTS.length);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a cache left from before the namespace was made again is refused, not cut; removed, it reads anew", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const dir = await Deno.makeTempDir();
  const cacheFile = `${dir}/private.cache`;
  try {
    const laptop = await device(t, caller, "private", { cacheFile });
    await laptop.enable();
    await laptop.remember([{ text: FACTS[0] }]);
    const phone = await device(t, caller);
    await phone.forgetAll();
    await phone.enable();
    await phone.remember([{ text: FACTS[1] }]);
    const size = (await Deno.stat(cacheFile)).size;
    await assert.rejects(
      (await device(t, caller, "private", { cacheFile })).memories(),
      (error: SvcError) =>
        error.code === "conflict" && /remove this one only if/.test(error.message),
    );
    assert.equal((await Deno.stat(cacheFile)).size, size, "the refused cache was cut");
    await Deno.remove(cacheFile);
    const again = await device(t, caller, "private", { cacheFile });
    assert.deepEqual((await again.memories()).map((memory) => memory.text), [FACTS[1]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("update stores a new version that every device takes in place of the old", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const laptop = await device(t, caller);
  await laptop.enable();
  const [id] = await laptop.remember([{ text: FACTS[0], tags: ["diet"] }]);
  const phone = await device(t, caller);
  await phone.sync();

  const updated = await laptop.update(id, { text: "I am vegan now and eat no fish or eggs" });
  assert.equal(updated.supersedes, id);
  const health = await jsonOf(await t.send("GET", "/health"));
  assert.ok(await verifyReceipt(updated.receipt, health.receiptKey));
  assert.equal(updated.receipt.memory_id, id);
  const held = await phone.memories();
  assert.deepEqual(held.map((m) => [m.id, m.tags, m.supersedes]), [[updated.id, ["diet"], id]]);
  const { results } = await phone.recall("what do I eat?", { minScore: 0 });
  assert.deepEqual(results.map((r) => r.id), [updated.id]);
  assert.ok(!(await sealedIds(t)).includes(id), "the old entry is left on the relayer");
  await assert.rejects(
    laptop.update(id, { text: "again" }),
    (error: SvcError) => error.code === "not_found",
  );
  // As in normal mode, an update may not take a text another memory holds.
  const [other] = await laptop.remember([{ text: FACTS[1] }]);
  await assert.rejects(
    laptop.update(updated.id, { text: FACTS[1] }),
    (error: SvcError) => error.code === "conflict" && error.message.includes(other),
  );
  assert.deepEqual((await sealedIds(t)).sort(), [updated.id, other].sort());
});

Deno.test("of two updates of one memory at once, one lands; the other is refused and adds nothing", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const laptop = await device(t, caller);
  await laptop.enable();
  const [id] = await laptop.remember([{ text: FACTS[0] }]);
  const phone = await device(t, caller);
  await phone.sync();
  const settled = await Promise.allSettled([
    laptop.update(id, { text: "I am vegan now" }),
    phone.update(id, { text: "I eat fish again" }),
  ]);
  const landed = settled.flatMap((s) => s.status === "fulfilled" ? [s.value] : []);
  const refused = settled.flatMap((s) => s.status === "rejected" ? [s.reason as SvcError] : []);
  assert.equal(landed.length, 1);
  assert.equal(refused[0].code, "conflict");
  assert.match(refused[0].message, /erased or updated meanwhile/);
  assert.deepEqual(await sealedIds(t), [landed[0].id]);
  const fresh = await device(t, caller);
  assert.deepEqual((await fresh.memories()).map((m) => m.id), [landed[0].id]);
  // An update erases: a key that may write but not erase may not update.
  const writer = await t.addKey(caller, { scope: { operations: ["read", "write"] } });
  await (await device(t, caller)).letIn(writer.key.publicKey);
  await assert.rejects(
    (await device(t, writer)).update(landed[0].id, { text: "changed" }),
    (error: SvcError) => error.code === "forbidden" && /"erase" scope/.test(error.message),
  );
  // Nor hide it behind a new version appended without `replaces`, its old entry left: only the
  // log's erase of an entry hides it.
  const sneaky = await BlindMemory.open({
    baseUrl: BASE,
    privateKey: writer.key.privateKey,
    embedder: new LexicalEmbedder(),
    namespace: "private",
    retries: 0,
    fetch: (input, init) => {
      const body = typeof init?.body === "string" ? JSON.parse(init.body) : {};
      if (body.replaces === undefined) return t.relayer.handler(new Request(input, init));
      delete body.replaces;
      return t.signed(writer, "POST", "/api/blind/entries", body);
    },
  });
  await assert.rejects(sneaky.update(landed[0].id, { text: "changed" }), /"erase" scope/);
  const held = (await (await device(t, caller)).memories()).map((m) => m.id);
  assert.ok(held.includes(landed[0].id), "a key without the erase scope hid a memory");
});

Deno.test("the account's blind namespaces are listed with their counts; a scoped key sees its own", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const diary = await device(t, owner, "diary");
  await diary.enable();
  const ids = await diary.remember(FACTS.slice(0, 3).map((text) => ({ text })));
  await diary.forget(ids[0]);
  await (await device(t, owner, "work")).enable();
  const listed = async (caller: Caller) =>
    (await jsonOf(await t.signed(caller, "GET", "/api/blind/namespaces"))).namespaces
      .map(({ namespace, count }: { namespace: string; count: number }) => [namespace, count]);

  assert.deepEqual(await listed(owner), [["diary", 2], ["work", 0]]);
  const scoped = await t.addKey(owner, { scope: { namespaces: ["work"] } });
  assert.deepEqual(await listed(scoped), [["work", 0]]);
  await diary.forgetAll();
  assert.deepEqual(await listed(owner), [["work", 0]]);
  assert.deepEqual(await listed(await t.newCaller()), []);
  assert.ok(!(await storedBlind(t)).includes("diary"), "a namespace's name is in clear");
});

Deno.test("a log that went back is refused; a namespace made again elsewhere is refused until opened anew", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const laptop = await device(t, caller);
  await laptop.enable();
  await laptop.remember(FACTS.slice(0, 2).map((text) => ({ text })));
  await laptop.sync();
  for await (
    const { key, value } of t.kv.list<{ seq?: number; manifest?: unknown }>({ prefix: [] })
  ) {
    if (value?.manifest && value.seq) await t.kv.set(key, { ...value, seq: value.seq - 1 });
  }
  await assert.rejects(
    laptop.recall("cello"),
    (error: SvcError) =>
      error.code === "conflict" && /went back from record 2 to 1/.test(error.message),
  );

  const phone = await device(t, caller);
  await phone.forgetAll();
  await phone.enable();
  await phone.remember([{ text: FACTS[3] }]);
  await assert.rejects(
    laptop.recall("what do I practise on Sundays?"),
    (error: SvcError) => error.code === "conflict" && /never held/.test(error.message),
  );
  const anew = await device(t, caller);
  const { results } = await anew.recall("what do I practise on Sundays?", { minScore: 0 });
  assert.deepEqual(results.map((r) => r.text), [FACTS[3]]);
});

Deno.test("a log rolled back and written past where a device had read is refused; an erase since is not", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const laptop = await device(t, caller);
  await laptop.enable();
  await laptop.remember([{ text: FACTS[0] }]);
  const phone = await device(t, caller);
  const [erased] = await laptop.remember([{ text: FACTS[4] }]);
  await phone.sync();
  // The record the phone read last goes: erased, its tombstone later in the log. No alarm.
  await laptop.forget(erased);
  await laptop.remember([{ text: FACTS[2] }]);
  assert.equal((await phone.recall("dentist")).total, 0);
  // The relayer's state as a backup kept it, with its last record gone and the head back.
  const state = await Array.fromAsync(t.kv.list<Record<string, unknown>>({ prefix: [] }));
  const head = state.find(({ value }) => value?.manifest)!;
  const seq = head.value.seq as number;
  const at = head.key.slice(0, -1);
  const [lastId] = state.filter(({ key }) => key.at(-2) === "log" && key.at(-1) === seq)
    .map(({ value }) => value.id as string);
  await t.kv.atomic().delete([...at, "log", seq]).delete([...at, "id", lastId])
    .set(head.key, { ...head.value, seq: seq - 1, count: (head.value.count as number) - 1 })
    .commit();
  // Written past where the phone had read, by a device that did not read it.
  const tablet = await device(t, caller);
  await tablet.remember([{ text: FACTS[1] }, { text: FACTS[3] }]);
  await assert.rejects(
    phone.recall("Galway"),
    (error: SvcError) =>
      error.code === "conflict" && /no longer holds record \d+ as this device read it/
        .test(error.message),
  );
});

Deno.test("the record a device read last, erased behind more than a page of the log, is no log gone back", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const laptop = await device(t, caller);
  await laptop.enable();
  const [first] = await laptop.remember([{ text: FACTS[0] }]);
  const phone = await device(t, caller);
  await phone.sync();
  // Pages stop at about 4 MB: these long memories fill more than one.
  const long = (i: number) => `Note ${i}: ${"the tide tables for the harbour ".repeat(600)}`;
  for (let at = 0; at < 250; at += 10) {
    await laptop.remember(Array.from({ length: 10 }, (_, i) => ({ text: long(at + i) })));
  }
  await laptop.forget(first);
  assert.equal(await phone.sync(), await laptop.sync());
  assert.equal((await phone.recall("fish")).total, 0);
});

Deno.test("a relayer that offers a device a content key of its own gets nothing written under it", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const dir = await Deno.makeTempDir();
  const cacheFile = `${dir}/private.cache`;
  try {
    const laptop = await device(t, caller, "private", { cacheFile });
    await laptop.enable();
    await laptop.remember(FACTS.slice(0, 2).map((text) => ({ text })));
    const size = (await Deno.stat(cacheFile)).size;
    // The relayer replaces the device's wrapped key with one of its own and shows an empty log.
    const forged = crypto.getRandomValues(new Uint8Array(32));
    const wrapped = await wrapFor(forged, caller.key.publicKey, "private");
    for await (const { key, value } of t.kv.list<{ seq?: number }>({ prefix: [] })) {
      if (key.includes("wrap")) await t.kv.set(key, wrapped);
      if (key.at(-1) === "head") await t.kv.set(key, { ...value, seq: 0 });
    }
    const before = (await sealedIds(t)).length;
    for (const memory of [laptop, await device(t, caller, "private", { cacheFile })]) {
      await assert.rejects(
        memory.remember([{ text: "my bank PIN is 4321" }]),
        (error: SvcError) => error.code === "conflict",
      );
    }
    assert.equal((await sealedIds(t)).length, before, "an entry was written under the forged key");
    assert.equal((await Deno.stat(cacheFile)).size, size, "the cache was cut");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a key of the account cannot replace another key's wrapped content key", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller();
  const phone = await t.addKey(laptop);
  const first = await device(t, laptop);
  await first.enable();
  await first.letIn(phone.key.publicKey);
  await assert.rejects(
    first.letIn(phone.key.publicKey),
    (error: SvcError) => error.code === "conflict" && /let in already/.test(error.message),
  );
  const overLaptop = {
    namespace: "private",
    public_key: laptop.key.publicKey,
    wrapped: (await wrapFor(new Uint8Array(32), laptop.key.publicKey, "private")).toBase64(),
  };
  assert.equal((await t.signed(phone, "PUT", "/api/blind/keys", overLaptop)).status, 409);
  await first.remember([{ text: FACTS[0] }]);
  assert.equal((await (await device(t, phone)).recall("fish")).results[0].text, FACTS[0]);
});

Deno.test("a wrapped content key of the wrong length is refused, so no key is locked out for good", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller();
  const phone = await t.addKey(laptop);
  const wrap = async (key: string) => (await wrapFor(new Uint8Array(32), key, "m")).toBase64();
  const enable = (wrapped: string) =>
    t.signed(laptop, "POST", "/api/blind", { namespace: "m", model: "m", wrapped });
  for (const bad of ["AAAA", new Uint8Array(93).toBase64()]) {
    const refused = await jsonOf(await enable(bad), 400);
    assert.match(refused.error, /wrapped must be a content key wrapped for the key: 92 bytes/);
  }
  assert.equal((await enable(await wrap(laptop.key.publicKey))).status, 201);
  const letIn = (namespace: string, wrapped: string) =>
    t.signed(laptop, "PUT", "/api/blind/keys", {
      namespace,
      public_key: phone.key.publicKey,
      wrapped,
    });
  assert.equal((await letIn("m", "AAAA")).status, 400);

  // A key let in with a wrapped key that does not open (altered) is told so, clearly.
  await (await device(t, laptop)).enable();
  const altered = Uint8Array.fromBase64(await wrap(phone.key.publicKey));
  altered[50] ^= 1;
  assert.equal((await letIn("private", altered.toBase64())).status, 200);
  await assert.rejects(
    (await device(t, phone)).sync(),
    (error: SvcError) => error.code === "conflict" && /does not open/.test(error.message),
  );
});

Deno.test("enable takes a sealed content key only with its id, and only so large", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const wrapped = (await wrapFor(new Uint8Array(32), caller.key.publicKey, "private")).toBase64();
  const enable = (extra: object) =>
    t.signed(caller, "POST", "/api/blind", { namespace: "private", model: "m", wrapped, ...extra });
  assert.equal((await enable({ sealed_key: "AAAA" })).status, 400);
  const huge = { sealed_key: new Uint8Array(5000).toBase64(), key_id: crypto.randomUUID() };
  assert.equal((await enable(huge)).status, 413);
  const keyId = "0190f5a2-7c1e-7b3a-9f00-3c2d1e0f4a5b";
  assert.equal((await enable({ sealed_key: "AAAA", key_id: keyId })).status, 201);
  const head = await jsonOf(await t.signed(caller, "GET", "/api/blind?namespace=private"));
  assert.deepEqual([head.key_id, head.sealed_key], [keyId, undefined]);
  const other = await t.addKey(caller);
  const unwrapped = await jsonOf(await t.signed(other, "GET", "/api/blind?namespace=private"));
  assert.deepEqual([unwrapped.wrapped, unwrapped.sealed_key], [null, "AAAA"]);
});

Deno.test("the owner's key is let in, reads the log and erases, but does not write", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const memory = await device(t, caller);
  await memory.enable();
  const [id] = await memory.remember([{ text: FACTS[0] }]);
  await memory.letIn(caller.ownerKey.publicKey);
  const owner = { ...caller, key: caller.ownerKey };

  const head = await jsonOf(await t.signed(owner, "GET", "/api/blind?namespace=private"));
  const contentKey = await unwrapWith(
    Uint8Array.fromBase64(head.wrapped),
    caller.ownerKey.privateKey,
    "private",
  );
  assert.equal(contentKey.byteLength, 32);
  const page = await jsonOf(await t.signed(owner, "GET", "/api/blind/entries?namespace=private"));
  assert.deepEqual(page.records.map((r: { id: string }) => r.id), [id]);
  const listed = await jsonOf(await t.signed(owner, "GET", "/api/blind/namespaces"));
  assert.deepEqual(listed.namespaces.map((n: { count: number }) => n.count), [1]);
  const append = { namespace: "private", entries: [{ id: crypto.randomUUID(), sealed: "AAAA" }] };
  assert.equal((await t.signed(owner, "POST", "/api/blind/entries", append)).status, 403);
  const erased = await t.signed(owner, "DELETE", `/api/blind/entries/${id}?namespace=private`);
  assert.equal((await jsonOf(erased)).memory_id, id);
  assert.deepEqual(await memory.memories(), []);
});

/**
 * What a relayer that lies would do to bring back an erased memory: its first entry, kept from
 * before the erase, appended again after the tombstone.
 */
async function appendAgain(t: TestRelayer, entry: { key: Deno.KvKey; value: unknown }) {
  const [head] = await Array.fromAsync(t.kv.list<{ seq: number; count: number }>({ prefix: [] }))
    .then((all) => all.filter(({ key }) => key.at(-1) === "head"));
  const at = head.key.slice(0, -1);
  const seq = head.value.seq + 1;
  const { id } = entry.value as { id: string };
  await t.kv.atomic()
    .set([...at, "log", seq], entry.value)
    .set([...at, "id", id], seq)
    .set(head.key, { ...head.value, seq, count: head.value.count + 1 })
    .commit();
}

Deno.test("an erased memory stays erased: sent again, or appended again by a relayer that lies", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller();
  const phone = await t.addKey(laptop);
  const dir = await Deno.makeTempDir();
  try {
    // The laptop's append is kept as it was sent, to be sent again (a retry) after the erase.
    const appends: string[] = [];
    const first = await device(t, laptop, "private", { appends });
    await first.enable();
    await first.letIn(phone.key.publicKey);
    const [id] = await first.remember([{ text: FACTS[2] }]);
    const [kept] = await Array.fromAsync(t.kv.list<{ id?: string }>({ prefix: [] }))
      .then((all) => all.filter(({ value }) => value?.id === id));
    const synced = await device(t, phone, "private", { cacheFile: `${dir}/synced` });
    assert.equal((await synced.recall("Volvo")).total, 1);
    await first.forget(id);
    const again = await t.signed(laptop, "POST", "/api/blind/entries", JSON.parse(appends[0]));
    const { seq } = await jsonOf(again);
    assert.equal(seq, await synced.sync(), "the relayer took nothing");
    assert.equal((await synced.recall("Volvo")).total, 0);

    await appendAgain(t, kept);
    // One device took the erase before; one reads both records in one page; both restart.
    for (const cacheFile of [`${dir}/synced`, `${dir}/new`]) {
      const reader = await device(t, phone, "private", { cacheFile });
      assert.equal((await reader.recall("Volvo")).total, 0, cacheFile);
      const restarted = await device(t, phone, "private", { cacheFile });
      assert.equal((await restarted.recall("Volvo")).total, 0, cacheFile);
    }
    assert.deepEqual(await (await device(t, laptop)).memories(), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("only a key let in writes to a namespace's log", async () => {
  await using t = await startTestRelayer();
  const laptop = await t.newCaller();
  const other = await t.addKey(laptop);
  const first = await device(t, laptop);
  await first.enable();
  await first.remember([{ text: FACTS[0] }]);
  const entry = { id: "0190a0a0-0000-7000-8000-00000000000a", sealed: "AAAA".repeat(16) };
  const refused = await t.signed(other, "POST", "/api/blind/entries", {
    namespace: "private",
    entries: [entry],
  });
  const { code, error } = await jsonOf(refused, 403);
  assert.equal(code, "forbidden");
  assert.match(error, /not let in to the namespace/);
  assert.deepEqual((await first.recall("fish")).results.map((r) => r.text), [FACTS[0]]);
});

Deno.test("a text the namespace holds in its thread is a duplicate, as in normal mode", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const first = await device(t, caller);
  await first.enable();
  const [id, other] = await first.remember([{ text: FACTS[0] }, { text: FACTS[1], thread: "a" }]);
  // Sent again (a reply that was lost), in other case and spacing, or twice in one call.
  const again = await first.remember([
    { text: FACTS[0] },
    { text: `  ${FACTS[0].toUpperCase()} ` },
    { text: FACTS[1], thread: "a" },
  ]);
  assert.deepEqual(again, [id, id, other]);
  const [twice, secondTwice] = await first.remember([{ text: FACTS[3] }, { text: FACTS[3] }]);
  assert.equal(secondTwice, twice);
  // In another thread it is another memory.
  const [elsewhere] = await first.remember([{ text: FACTS[1], thread: "b" }]);
  assert.notEqual(elsewhere, other);
  assert.equal((await sealedIds(t)).length, 4);
  // An export imported back adds nothing.
  const lines = await first.exportLines();
  assert.deepEqual((await first.importLines(lines)).sort(), lines.map((line) => line.id).sort());
  assert.equal((await sealedIds(t)).length, 4);
  // What the relayer refuses of a normal memory is refused here too, naming the line.
  const refused: [unknown, RegExp][] = [
    [{ text: "  " }, /: line 1: text must not be empty/],
    [{ text: "a", created_at: "2999-01-01T00:00:00Z" }, /: line 1: created_at is in the future/],
    [{ text: "a", tags: ["x\u202ey"] }, /: line 1: tags\[0\] must not contain bidirectional/],
    ["a line", /: line 1: a line must be a JSON object/],
  ];
  for (const [line, error] of refused) {
    await assert.rejects(first.importLines([line as ImportLine]), error);
  }
  await assert.rejects(first.remember([{ text: "" }]), /text must not be empty/);
  await assert.rejects(first.recall("fish", { limit: -1 }), /limit must be between 1 and 100/);
  await assert.rejects(first.letIn("zz"), /The public key must be 64 hex characters/);
  assert.equal((await sealedIds(t)).length, 4);
});

/**
 * An embedder whose batches holding `word` wait for `gate`; `reached` resolves when one does.
 */
function heldAt(word: string) {
  const embedder = new LexicalEmbedder();
  const embed = embedder.embed.bind(embedder);
  const reached = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  embedder.embed = async (texts: string[], options?: EmbedOptions) => {
    if (texts.some((text) => text.includes(word))) {
      reached.resolve();
      await gate.promise;
    }
    return await embed(texts, options);
  };
  return { embedder, reached, gate };
}

Deno.test("a remember accepted before its namespace became operator-blind is refused when it runs", async () => {
  // The worker's first batch waits at its embedding until the namespace is operator-blind.
  const { embedder, reached, gate } = heldAt("HOLD");
  await using t = await startTestRelayer({ embedder, concurrency: 1 });
  const caller = await t.newCaller();
  const held = await t.signed(caller, "POST", "/api/remember", {
    text: "HOLD",
    namespace: "other",
  });
  await reached.promise;
  const late = await jsonOf(
    await t.signed(caller, "POST", "/api/remember", { text: FACTS[0], namespace: "private" }),
    202,
  );
  await (await device(t, caller)).enable();
  gate.resolve();
  await t.settle(caller, [(await held.json()).job_id, late.job_id]);
  const status = await jsonOf(await t.signed(caller, "GET", `/api/remember/${late.job_id}`));
  assert.equal(status.status, "failed");
  assert.match(status.error, /operator-blind/);
  assert.ok(!(await storedBlind(t)).includes("vegetarian"));
});

Deno.test("a remember vetted before its namespace became operator-blind is erased as it lands", async () => {
  // The batch was vetted; it waits at its embedding until the namespace is operator-blind.
  const { embedder, reached, gate } = heldAt("vegetarian");
  await using t = await startTestRelayer({ embedder, concurrency: 1 });
  const caller = await t.newCaller();
  const job = await jsonOf(
    await t.signed(caller, "POST", "/api/remember", { text: FACTS[0], namespace: "private" }),
    202,
  );
  await reached.promise;
  await (await device(t, caller)).enable();
  gate.resolve();
  await t.settle(caller, [job.job_id]);
  const status = await jsonOf(await t.signed(caller, "GET", `/api/remember/${job.job_id}`));
  assert.equal(status.status, "failed");
  assert.match(status.error, /operator-blind/);
  assert.deepEqual(await t.blobs.list(caller.owner, "private"), [], "its blob is erased");
});

Deno.test("a namespace whose erase was cut short says so on every route, until erased again", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const laptop = await device(t, caller);
  await laptop.enable();
  await laptop.remember([{ text: FACTS[0] }]);
  // The erase marked the head, then stopped before deleting anything.
  for await (const { key, value } of t.kv.list<{ manifest?: unknown }>({ prefix: [] })) {
    if (value?.manifest) await t.kv.set(key, { ...value, erasing: true });
  }
  const erasing = (error: SvcError) =>
    error.code === "conflict" && error.details.reason === "erasing" &&
    /erase it again/.test(error.message);
  await assert.rejects(laptop.recall("fish"), erasing);
  await assert.rejects(device(t, caller).then((phone) => phone.enable()), erasing);
  const remembered = await t.signed(caller, "POST", "/api/remember", {
    text: "I am vegetarian",
    namespace: "private",
  });
  assert.equal((await jsonOf(remembered, 409)).reason, "erasing");
  const head = await t.signed(caller, "GET", "/api/blind?namespace=private");
  assert.equal((await jsonOf(head, 409)).reason, "erasing");
  // The listing shows it, so that it can be erased again.
  const listed = async () =>
    (await jsonOf(await t.signed(caller, "GET", "/api/blind/namespaces"))).namespaces;
  assert.deepEqual(
    (await listed()).map(({ namespace, erasing }: Record<string, unknown>) => ({
      namespace,
      erasing,
    })),
    [
      { namespace: "private", erasing: true },
    ],
  );

  await (await device(t, caller)).forgetAll();
  assert.deepEqual(await sealedIds(t), []);
  assert.deepEqual(await listed(), []);
  await (await device(t, caller)).enable();
});
