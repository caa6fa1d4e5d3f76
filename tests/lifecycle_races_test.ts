/**
 * The lifecycle where it races: updates meeting updates and erases, duplicates of memories
 * hidden but not yet erased, an erase of a replaced version that failed once, and the paths
 * besides list and recall (manual recall, analyze) that must not show hidden memories.
 */
import assert from "node:assert/strict";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import type { Cipher } from "../src/backends/types.ts";
import {
  type Caller,
  jsonOf as json,
  openKvJobQueue,
  rememberAll as remember,
  startTestRelayer,
  testClock,
  type TestRelayer,
} from "./fixtures.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function listIds(t: TestRelayer, c: Caller, q = "") {
  const { memories } = await json(await t.signed(c, "GET", `/api/memories${q}`));
  return memories.map((m: { id: string }) => m.id);
}

/**
 * An embedder that holds the texts of the updates (Bergen, Tromso) until `release`, or for 10 s
 * at most: a test that fails before releasing them ends rather than hangs. `reached` resolves once
 * it holds one (its job was vetted).
 */
function heldEmbedder() {
  const inner = new LexicalEmbedder();
  const gate = Promise.withResolvers<void>();
  const reached = Promise.withResolvers<void>();
  const timer = setTimeout(gate.resolve, 10_000);
  const embedder = {
    name: inner.name,
    model: inner.model,
    dimensions: inner.dimensions,
    async embed(texts: string[], o?: { signal?: AbortSignal }) {
      if (texts.some((x) => /Bergen|Tromso/.test(x))) {
        reached.resolve();
        await gate.promise;
      }
      return await inner.embed(texts, o);
    },
  };
  const release = () => {
    clearTimeout(timer);
    gate.resolve();
  };
  return { embedder, release, reached: reached.promise };
}

/**
 * A local cipher whose next erase, once `hold` names a promise, waits for it; `holding` resolves
 * when it does.
 */
async function cipherHoldingNext() {
  let until: Promise<void> | undefined;
  const holding = Promise.withResolvers<void>();
  const cipher = await localCipherErasing(async (erase) => {
    const waiting = until;
    until = undefined;
    if (waiting) {
      holding.resolve();
      await waiting;
    }
    await erase();
  });
  return { cipher, holding: holding.promise, hold: (gate: Promise<void>) => until = gate };
}

/** A local cipher whose erases go through `erasing`, which runs the real one with `erase`. */
async function localCipherErasing(
  erasing: (erase: () => Promise<void>) => Promise<void>,
): Promise<Cipher> {
  const local = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  return {
    name: local.name,
    holdsKeys: true,
    encrypt: (o, p, x) => local.encrypt(o, p, x),
    decrypt: (o, c, x) => local.decrypt(o, c, x),
    erase: (o, ids, x) => erasing(() => local.erase(o, ids, x)),
  };
}

Deno.test("a text equal to an expired memory not yet swept is stored anew", async () => {
  const clock = testClock();
  await using t = await startTestRelayer({ expirySweepMs: 3_600_000, now: clock.now });
  const alice = await t.newCaller();
  const [brief] = await remember(t, alice, [{ text: "My parking spot is B12", ttl_seconds: 1 }]);
  clock.advance(1_100);
  const [again] = await remember(t, alice, [{ text: "My parking spot is B12" }]);
  const job = await json(await t.signed(alice, "GET", `/api/remember/${again}`));
  assert.equal(
    job.duplicate_of,
    undefined,
    `worker marked it duplicate_of ${job.duplicate_of} (expired ${brief})`,
  );
  assert.deepEqual(await listIds(t, alice), [again]);
});

Deno.test("two bulks of the same texts sent at once store each text once", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const items = Array.from({ length: 20 }, (_, i) => ({ text: `Fact ${i} about my garden` }));
  const answers = await Promise.all(
    [1, 2].map(async () =>
      json(await t.signed(alice, "POST", "/api/remember/bulk", { items }), 202)
    ),
  );
  const jobs = answers.flatMap((answer) => answer.job_ids);
  await t.settle(alice, jobs);
  const ids = await listIds(t, alice, "?limit=100");
  assert.equal(ids.length, 20, `${ids.length} memories for 20 texts`);
  const { results } = await json(
    await t.signed(alice, "POST", "/api/remember/bulk/status", { job_ids: jobs }),
  );
  const duplicates = results.filter((job: { duplicate_of?: string }) => job.duplicate_of);
  assert.equal(duplicates.length, jobs.length - 20, "the others are duplicates of them");
});

Deno.test("two concurrent updates of one memory leave one version", async () => {
  const held = heldEmbedder();
  await using t = await startTestRelayer({ embedder: held.embedder });
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [{ text: "I live in Oslo" }]);
  const [b, c] = await Promise.all([
    t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }).then((r) =>
      json(r, 202)
    ),
    t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Tromso" }).then((r) =>
      json(r, 202)
    ),
  ]);
  held.release();
  await t.settle(alice, [b.job_id, c.job_id]);
  const ids = await listIds(t, alice);
  assert.equal(ids.length, 1, `list shows ${ids.length} versions of one memory`);
});

Deno.test("an update to a text another memory holds is refused, also when both are on their way", async () => {
  const held = heldEmbedder();
  await using t = await startTestRelayer({ embedder: held.embedder });
  const alice = await t.newCaller();
  const [oslo, paris] = await remember(t, alice, [
    { text: "I live in Oslo" },
    { text: "I work in Paris" },
  ]);
  // Both updates are accepted before either is stored: one of them stays.
  const jobs = await Promise.all([oslo, paris].map(async (id) =>
    (await json(
      await t.signed(alice, "PUT", `/api/memories/${id}`, { text: "I live in Bergen" }),
      202,
    )).job_id as string
  ));
  held.release();
  await t.settle(alice, jobs);
  const ended = await Promise.all(
    jobs.map(async (id) => await json(await t.signed(alice, "GET", `/api/remember/${id}`))),
  );
  const [kept, refused] = ended[0].status === "done" ? ended : [ended[1], ended[0]];
  assert.equal(kept.status, "done");
  assert.equal(refused.status, "failed");
  assert.match(refused.error, new RegExp(`memory ${kept.memory_id} of its namespace holds`));
  const { memories } = await json(await t.signed(alice, "GET", "/api/memories"));
  assert.deepEqual(
    memories.map((m: { text: string }) => m.text).sort(),
    ["I live in Bergen", refused === ended[0] ? "I live in Oslo" : "I work in Paris"].sort(),
  );
  // Once one holds it, an update to that text (case and spaces aside) is refused at once.
  const other = memories.find((m: { text: string }) => m.text !== "I live in Bergen").id;
  const answer = await t.signed(alice, "PUT", `/api/memories/${other}`, {
    text: "i live  in BERGEN",
  });
  assert.equal(answer.status, 409);
  assert.match((await answer.json()).error, new RegExp(`memory ${kept.memory_id} of its`));
  // Its own text, changed in case only, is an update like any other.
  await json(
    await t.signed(alice, "PUT", `/api/memories/${kept.memory_id}`, { text: "I live in bergen" }),
    202,
  );
  // The refused update no longer holds the memory it was to replace: another update goes on.
  const again = await json(
    await t.signed(alice, "PUT", `/api/memories/${other}`, { text: "I work in Rome" }),
    202,
  );
  await t.settle(alice, [again.job_id]);
  const rome = await json(await t.signed(alice, "GET", `/api/remember/${again.job_id}`));
  assert.equal(rome.status, "done", rome.error);
});

Deno.test("an update still queued when its memory is erased does not bring it back", async () => {
  const held = heldEmbedder();
  await using t = await startTestRelayer({ embedder: held.embedder });
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [{ text: "I live in Oslo" }]);
  const upd = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  // Erased once the update was vetted, while it is being stored.
  await held.reached;
  await json(await t.signed(alice, "DELETE", `/api/memories/${old}`));
  held.release();
  await t.settle(alice, [upd.job_id]);
  assert.deepEqual(await listIds(t, alice), [], "the erased memory's update was stored anyway");
  const job = await json(await t.signed(alice, "GET", `/api/remember/${upd.job_id}`));
  assert.deepEqual([job.status, job.error], [
    "failed",
    `Cannot update memory ${old}: it was erased meanwhile`,
  ]);
});

Deno.test("an erase or update of a memory still being stored is a conflict that says to wait, not a 404", async () => {
  const held = heldEmbedder();
  await using t = await startTestRelayer({ embedder: held.embedder });
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  const { job_id } = await json(
    await t.signed(alice, "POST", "/api/remember", { text: "I live in Bergen" }),
    202,
  );
  for (const [method, body] of [["DELETE", undefined], ["PUT", { text: "I live in Oslo" }]]) {
    const refused = await json(
      await t.signed(alice, method as string, `/api/memories/${job_id}`, body),
      409,
    );
    assert.equal(
      refused.error,
      `Cannot ${method === "PUT" ? "update" : "erase"} memory ${job_id} yet: it is still ` +
        "being stored; try again once it is",
    );
    await json(await t.signed(bob, method as string, `/api/memories/${job_id}`, body), 404);
  }
  held.release();
  await t.settle(alice, [job_id]);
  await json(await t.signed(alice, "DELETE", `/api/memories/${job_id}`));
  assert.deepEqual(await listIds(t, alice), []);
});

Deno.test("an erase that finds no memory while its job ends meanwhile looks again and erases it", async () => {
  const held = heldEmbedder();
  await using t = await startTestRelayer({ embedder: held.embedder });
  const alice = await t.newCaller();
  const { job_id } = await json(
    await t.signed(alice, "POST", "/api/remember", { text: "I live in Bergen" }),
    202,
  );
  // The erase's look-up sees the namespaces of before the memory landed, answered once it has.
  const namespaces = t.vectors.namespaces.bind(t.vectors);
  t.vectors.namespaces = async (owner) => {
    const before = await namespaces(owner);
    t.vectors.namespaces = namespaces;
    held.release();
    await t.settle(alice, [job_id]);
    return before;
  };
  const receipt = await json(await t.signed(alice, "DELETE", `/api/memories/${job_id}`));
  assert.equal(receipt.memory_id, job_id);
  await json(await t.signed(alice, "GET", `/api/memories/${job_id}`), 404);
});

Deno.test("two erases of one memory at once are one erase, with one receipt", async () => {
  const gate = Promise.withResolvers<void>();
  let erases = 0;
  const cipher = await localCipherErasing(async (erase) => {
    erases++;
    await gate.promise;
    await erase();
  });
  await using t = await startTestRelayer({ cipher });
  const alice = await t.newCaller();
  const [bees] = await remember(t, alice, [{ text: "I keep bees in the garden" }]);
  // Both looked the memory up (the second then joins the first): only then may the first end.
  let lookups = 0;
  const namespaces = t.vectors.namespaces.bind(t.vectors);
  t.vectors.namespaces = (owner) => (lookups++, namespaces(owner));
  const both = [1, 2].map(async () =>
    json(await t.signed(alice, "DELETE", `/api/memories/${bees}`))
  );
  while (erases === 0 || lookups < 2) await sleep(5);
  await sleep(20);
  gate.resolve();
  const [a, b] = await Promise.all(both);
  assert.equal(erases, 1);
  assert.deepEqual(a, b);
  // Sent again later, it answers the same receipt, its key erased again (nothing left to erase).
  assert.deepEqual(await json(await t.signed(alice, "DELETE", `/api/memories/${bees}`)), a);
});

Deno.test("a namespace's erase shares its receipts with erases of it, or of its memories, meanwhile; nothing is left", async () => {
  // The first erase's keys wait for `first`, any other's for `later`; a cipher's check before an
  // erase (no id) waits for neither.
  const [first, later] = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  let [checks, held] = [0, 0];
  const local = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  const cipher: Cipher = {
    name: local.name,
    holdsKeys: true,
    encrypt: (o, p, x) => local.encrypt(o, p, x),
    decrypt: (o, c, x) => local.decrypt(o, c, x),
    erase: async (o, ids, x) => {
      if (ids.length === 0) checks++;
      else await (held++ === 0 ? first : later).promise;
      return await local.erase(o, ids, x);
    },
  };
  await using t = await startTestRelayer({ cipher });
  const alice = await t.newCaller();
  const texts = ["bees", "hens", "goats"].map((x) => ({ text: `I keep ${x}` }));
  const ids = await remember(t, alice, texts);
  [checks, held] = [0, 0];
  // A test that fails ends rather than hangs.
  const timer = setTimeout(() => (first.resolve(), later.resolve()), 10_000);
  const erase = async () =>
    json(await t.signed(alice, "DELETE", "/api/memories?namespace=default&confirm=default"));
  const whole = erase();
  while (held === 0) await sleep(5);
  // A memory that lands meanwhile: the second erase takes it too.
  const [ducks] = await remember(t, alice, [{ text: "I keep ducks" }]);
  const again = erase();
  const one = t.signed(alice, "DELETE", `/api/memories/${ids[1]}`).then((answer) => json(answer));
  while (checks < 2) await sleep(5);
  await sleep(20);
  first.resolve();
  const a = await whole;
  await sleep(5); // an erase of its own would answer a later time
  later.resolve();
  clearTimeout(timer);
  const [b, single] = await Promise.all([again, one]);
  assert.equal(a.erased, 3);
  // What the first erased answers its receipts, once each; the second erased the rest.
  assert.deepEqual(b.receipts.slice(0, 3), a.receipts, "two erases of one memory at once");
  assert.deepEqual(b.receipts.slice(3).map((r: { memory_id: string }) => r.memory_id), [ducks]);
  assert.deepEqual(await listIds(t, alice), []);
  assert.deepEqual(single, a.receipts.find((r: { memory_id: string }) => r.memory_id === ids[1]));
});

Deno.test("an update that lands while its memory is being erased is erased as well", async () => {
  // The owner's erase waits here while the update lands.
  const { cipher, hold, holding } = await cipherHoldingNext();
  const held = heldEmbedder();
  await using t = await startTestRelayer({ cipher, embedder: held.embedder });
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [{ text: "I live in Oslo" }]);
  const upd = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  const gate = Promise.withResolvers<void>();
  hold(gate.promise);
  const erasing = t.signed(alice, "DELETE", `/api/memories/${old}`);
  await holding;
  held.release();
  // The update lands: its new version is indexed while the erase holds.
  for (let shown = false; !shown; await sleep(5)) {
    const answer = await t.signed(alice, "GET", `/api/memories/${upd.job_id}`);
    shown = answer.status === 200;
    await answer.body?.cancel();
  }
  gate.resolve();
  await t.settle(alice, [upd.job_id]);
  const receipt = await json(await erasing);
  assert.equal(receipt.memory_id, old);
  assert.deepEqual(await listIds(t, alice), [], "the update landed during the erase and stayed");
  await json(await t.signed(alice, "GET", `/api/memories/${upd.job_id}`), 404);
  // It replaced the memory before the erase reached it: done, and erased with the memory.
  const job = await json(await t.signed(alice, "GET", `/api/remember/${upd.job_id}`));
  assert.equal(job.status, "done");
});

Deno.test("an erase reaching a memory its update is replacing erases both versions, with one receipt", async () => {
  // The update's erase of the memory it replaces waits here: its new version is indexed.
  const { cipher, hold, holding } = await cipherHoldingNext();
  await using t = await startTestRelayer({ cipher });
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [{ text: "I live in Oslo" }]);
  const gate = Promise.withResolvers<void>();
  hold(gate.promise);
  const upd = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  await holding;
  const erasing = t.signed(alice, "DELETE", `/api/memories/${old}`).then((answer) => json(answer));
  await sleep(50); // it reaches the memory while the update erases it
  gate.resolve();
  const receipt = await erasing;
  assert.equal(receipt.memory_id, old);
  await t.settle(alice, [upd.job_id]);
  assert.deepEqual(await listIds(t, alice), [], "the new version outlived the erase");
  await json(await t.signed(alice, "GET", `/api/memories/${upd.job_id}`), 404);
  // One erase of the memory, one receipt: sent again, the erase answers the same.
  assert.deepEqual(await json(await t.signed(alice, "DELETE", `/api/memories/${old}`)), receipt);
});

Deno.test("an erase or update of a memory an update replaced names its current version", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  // Another memory keeps the namespace's index in memory throughout.
  const [old, other] = await remember(t, alice, [{ text: "I live in Oslo" }, { text: "I cycle" }]);
  const upd = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  await t.settle(alice, [upd.job_id]);
  for (const [method, body] of [["DELETE"], ["PUT", { text: "I live in Bodø" }]] as const) {
    const refused = await json(await t.signed(alice, method, `/api/memories/${old}`, body), 409);
    assert.equal(refused.current, upd.job_id, JSON.stringify(refused));
    assert.match(refused.error, /an update replaced it, and its current version is/);
  }
  // Updated again: each earlier version names the newest.
  const last = await json(
    await t.signed(alice, "PUT", `/api/memories/${upd.job_id}`, { text: "I live in Tromsø" }),
    202,
  );
  await t.settle(alice, [last.job_id]);
  for (const id of [old, upd.job_id]) {
    const refused = await json(await t.signed(alice, "DELETE", `/api/memories/${id}`), 409);
    assert.equal(refused.current, last.job_id, JSON.stringify(refused));
  }
  await json(await t.signed(alice, "DELETE", `/api/memories/${last.job_id}`));
  // Every version gone: the first erase's receipt answers again, as for any erase sent again.
  for (const id of [old, upd.job_id]) {
    const again = await json(await t.signed(alice, "DELETE", `/api/memories/${id}`));
    assert.equal(again.memory_id, id);
  }
  assert.deepEqual(await listIds(t, alice), [other]);
});

Deno.test("an update retried after it erased the memory it replaces stays", async () => {
  // The update's job is not marked done the first time: as after a crash at that moment.
  using kv = await Deno.openKv(":memory:");
  const queue = await openKvJobQueue(kv, crypto.getRandomValues(new Uint8Array(32)), {
    leaseMs: 200,
  });
  let failUpdate = false;
  const completeMany = queue.completeMany.bind(queue);
  queue.completeMany = (items) => {
    if (!failUpdate) return completeMany(items);
    failUpdate = false;
    return Promise.reject(new Error("the job store is down"));
  };
  await using t = await startTestRelayer({ kv, queue, reconcileIntervalMs: 100 });
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [{ text: "I live in Oslo" }]);
  failUpdate = true;
  const upd = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I live in Bergen" }),
    202,
  );
  await t.settle(alice, [upd.job_id]);
  assert.equal(failUpdate, false, "the first completion failed");
  const job = await json(await t.signed(alice, "GET", `/api/remember/${upd.job_id}`));
  assert.equal(job.status, "done");
  assert.deepEqual(await listIds(t, alice), [upd.job_id]);
  await json(await t.signed(alice, "GET", `/api/memories/${old}`), 404);
});

Deno.test("a replaced version whose erase failed once is erased on the retry, never shown again", async () => {
  let failNext = false;
  const cipher = await localCipherErasing((erase) => {
    if (!failNext) return erase();
    failNext = false;
    return Promise.reject(new Error("key store unavailable"));
  });
  await using t = await startTestRelayer({ cipher });
  const alice = await t.newCaller();
  const [old] = await remember(t, alice, [{ text: "My PIN hint is the dog's name" }]);
  failNext = true;
  const upd = await json(
    await t.signed(alice, "PUT", `/api/memories/${old}`, { text: "I have no PIN hint" }),
    202,
  );
  await t.settle(alice, [upd.job_id]);
  await sleep(50);
  await json(await t.signed(alice, "GET", `/api/memories/${old}`), 404);
  await json(await t.signed(alice, "DELETE", `/api/memories/${upd.job_id}`));
  const back = await t.signed(alice, "GET", `/api/memories/${old}`);
  assert.equal(back.status, 404, `old version is back: ${await back.text()}`);
});

Deno.test("manual recall leaves expired memories out", async () => {
  const clock = testClock();
  await using t = await startTestRelayer({ expirySweepMs: 3_600_000, now: clock.now });
  const alice = await t.newCaller();
  const [brief] = await remember(t, alice, [{ text: "Locker combination 1234", ttl_seconds: 1 }]);
  clock.advance(1_100);
  const [vector] = await new LexicalEmbedder().embed(["Locker combination 1234"]);
  const { results } = await json(
    await t.signed(alice, "POST", "/api/recall/manual", { vector: [...vector], limit: 5 }),
  );
  assert.ok(
    !results.some((r: { id: string }) => r.id === brief),
    "expired memory returned by recall/manual",
  );
});

Deno.test("analyze does not call a fact a duplicate of an expired memory", async () => {
  const clock = testClock();
  await using t = await startTestRelayer({ expirySweepMs: 3_600_000, now: clock.now });
  const alice = await t.newCaller();
  const [brief] = await remember(t, alice, [{
    text: "The user keeps bees in the garden.",
    ttl_seconds: 1,
  }]);
  clock.advance(1_100);
  const a = await json(
    await t.signed(alice, "POST", "/api/analyze", { text: "I keep bees in the garden." }),
    202,
  );
  assert.ok(
    !a.facts.some((f: { duplicate_of?: string }) => f.duplicate_of === brief),
    JSON.stringify(a.facts),
  );
});
