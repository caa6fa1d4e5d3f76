/**
 * The access log through the relayer's handler: each memory operation adds an entry per
 * namespace it touched, naming the key, the memory ids (for recall: the ids returned), the
 * client and the request id, never a query or a text; refusals add none; the owner key and
 * delegate keys with the `audit` scope read it, the latter only for their namespaces.
 */
import assert from "node:assert/strict";
import { addressOf } from "@svc/util/keys";
import { accessLogPath, SvcClient } from "../src/client/mod.ts";
import { SvcError } from "../src/errors.ts";
import { type AccessEntry, AccessLog } from "../src/services/access_log.ts";
import { MemoryAccessLogStore } from "../src/services/access_log_store.ts";
import {
  BASE,
  type Caller,
  jsonOf as json,
  rememberAll as remember,
  startTestRelayer,
  type TestRelayer,
} from "./fixtures.ts";

const asOwner = (caller: Caller): Caller => ({ ...caller, key: caller.ownerKey });

/** The caller's access log (signed by the account owner's key), newest first. */
async function logOf(t: TestRelayer, caller: Caller, query = ""): Promise<AccessEntry[]> {
  const page = await json(await t.signed(asOwner(caller), "GET", `/api/access-log${query}`));
  return page.entries;
}

/** KV entries as text, keys and values, to search for what must not be there in clear. */
async function rawKv(t: TestRelayer, prefix: Deno.KvKey = []): Promise<string> {
  const parts: string[] = [];
  for await (const entry of t.kv.list({ prefix })) {
    parts.push(JSON.stringify(entry.key));
    parts.push(
      entry.value instanceof Uint8Array
        ? new TextDecoder().decode(entry.value)
        : JSON.stringify(entry.value),
    );
  }
  return parts.join("\n");
}

Deno.test("the access log of a recall lists exactly the ids returned, and no text", async () => {
  await using t = await startTestRelayer();
  const label = "Research-Agent-Okapi";
  const agent = await t.newCaller({ label });
  const ids = await remember(t, agent, [
    { text: "My sister lives in Lisbon" },
    { text: "My brother lives in Porto" },
    { text: "I keep bees on the roof" },
    { text: "My cousin lives in Faro", namespace: "family" },
  ]);
  const query = "where does my sister live zanzibar";
  const res = await t.signed(agent, "POST", "/api/recall", { query, limit: 2, min_score: 0 }, {
    "x-request-id": "recall-request-1",
  });
  const recalled = await json(res);
  const returned = recalled.results.map((r: { id: string }) => r.id);
  assert.equal(returned.length, 2);
  assert.ok(returned.every((id: string) => ids.includes(id)));

  const entries = await logOf(t, agent, "?op=recall");
  assert.equal(entries.length, 1);
  const [entry] = entries;
  assert.deepEqual(entry.memory_ids, returned);
  assert.deepEqual(entry.key, { address: addressOf(agent.key.publicKey), label });
  assert.equal(entry.namespace, "default");
  assert.equal(entry.request_id, "recall-request-1");
  assert.equal(entry.client, "unknown"); // in-process: no connection info
  assert.ok(Math.abs(Date.parse(entry.at) - Date.now()) < 60_000);
  assert.deepEqual(Object.keys(entry).sort(), [
    "at",
    "client",
    "id",
    "key",
    "memory_ids",
    "namespace",
    "op",
    "request_id",
  ]);

  await t.relayer.accessLog.flush();
  const raw = await rawKv(t);
  assert.ok(raw.includes("access_log"), "the log is kept in KV");
  for (const secret of [query, "zanzibar", "Lisbon", "sister", label]) {
    assert.ok(!raw.includes(secret), `KV holds ${JSON.stringify(secret)} in clear`);
  }
  // The log's own keys and values name no owner, key, operation, namespace or memory.
  const log = await rawKv(t, ["access_log"]) + await rawKv(t, ["access_log_logs"]);
  const address = addressOf(agent.key.publicKey);
  for (const clear of [agent.owner, address, "recall", "default", ...returned]) {
    assert.ok(!log.includes(clear), `the access log holds ${JSON.stringify(clear)} in clear`);
  }
});

Deno.test("each memory operation adds its entry, with the ids it touched", async () => {
  await using t = await startTestRelayer();
  const agent = await t.newCaller({ label: "agent" });
  const signed = (method: string, path: string, body?: unknown, status = 200) =>
    t.signed(agent, method, path, body).then((res) => json(res, status));

  const one = await signed("POST", "/api/remember", { text: "I am vegetarian" }, 202);
  const bulk = await signed("POST", "/api/remember/bulk", {
    items: [{ text: "I keep bees" }, { text: "I cycle to work", namespace: "work" }],
  }, 202);
  await t.settle(agent, [one.job_id, ...bulk.job_ids]);
  const recalled = await signed("POST", "/api/recall", { query: "bees", limit: 1 });
  const listed = await signed("GET", "/api/memories?limit=2");
  await signed("GET", `/api/memories/${one.job_id}`);
  const updated = await signed("PUT", `/api/memories/${one.job_id}`, { text: "I am vegan" }, 202);
  await t.settle(agent, [updated.job_id]);
  const analysis = await signed("POST", "/api/analyze", { text: "I live in Oslo." }, 202);
  await t.settle(agent, analysis.job_ids);
  const asked = await signed("POST", "/api/ask", { question: "Where do I live?" });
  await signed("POST", "/api/restore", { namespace: "default" });
  await signed("DELETE", `/api/memories/${bulk.job_ids[0]}`);
  const erased = await signed("DELETE", "/api/memories?namespace=work&confirm=work");
  // Polling jobs is no memory operation: it adds nothing.
  await signed("GET", `/api/remember/${one.job_id}`);

  const entries = (await logOf(t, agent)).reverse();
  const seen = entries.map(({ op, namespace, memory_ids }) => ({ op, namespace, memory_ids }));
  assert.deepEqual(seen, [
    { op: "remember", namespace: "default", memory_ids: [one.job_id] },
    { op: "remember", namespace: "default", memory_ids: [bulk.job_ids[0]] },
    { op: "remember", namespace: "work", memory_ids: [bulk.job_ids[1]] },
    {
      op: "recall",
      namespace: "default",
      memory_ids: recalled.results.map((r: { id: string }) => r.id),
    },
    {
      op: "list",
      namespace: "default",
      memory_ids: listed.memories.map((m: { id: string }) => m.id),
    },
    { op: "get", namespace: "default", memory_ids: [one.job_id] },
    { op: "update", namespace: "default", memory_ids: [one.job_id, updated.job_id] },
    { op: "analyze", namespace: "default", memory_ids: analysis.job_ids },
    {
      op: "ask",
      namespace: "default",
      memory_ids: asked.memories.map((m: { id: string }) => m.id),
    },
    { op: "restore", namespace: "default", memory_ids: [] },
    { op: "erase", namespace: "default", memory_ids: [bulk.job_ids[0]] },
    { op: "erase", namespace: "work", memory_ids: [bulk.job_ids[1]] },
  ]);
  assert.equal(erased.erased, 1);
  assert.equal(recalled.results.length, 1);
  assert.ok(entries.every((e) => e.key.label === "agent"));
  // Newest first, each with its own id and request id.
  assert.equal(new Set(entries.map((e) => e.id)).size, entries.length);
  assert.equal(new Set(entries.map((e) => e.request_id)).size, entries.length - 1);
});

Deno.test("an export is logged with the memories it sent, not those it planned to", async () => {
  await using t = await startTestRelayer();
  const agent = await t.newCaller();
  const texts = Array.from({ length: 150 }, (_, i) => `Fact number ${i} about the garden`);
  const items = texts.map((text) => ({ text, namespace: "garden" }));
  // Settled a hundred at a time, as the job status route takes.
  const ids = [
    ...await remember(t, agent, items.slice(0, 100)),
    ...await remember(t, agent, items.slice(100)),
  ];

  const whole = await t.signed(agent, "GET", "/api/export?namespace=garden");
  const sent = (await whole.text()).trimEnd().split("\n").map((line) => JSON.parse(line).id);
  assert.deepEqual(sent, ids);
  const [full] = await logOf(t, agent, "?op=export");
  assert.deepEqual(full.memory_ids, ids);

  // A client that reads the first lines and leaves.
  const cut = await t.signed(agent, "GET", "/api/export?namespace=garden");
  const reader = cut.body!.getReader();
  await reader.read();
  await reader.cancel();
  const [left] = await logOf(t, agent, "?op=export");
  assert.notEqual(left.request_id, full.request_id);
  assert.ok(
    left.memory_ids.length > 0 && left.memory_ids.length < 150,
    `${left.memory_ids.length}`,
  );
  assert.deepEqual(left.memory_ids, ids.slice(0, left.memory_ids.length));
});

Deno.test("an export logs only the namespaces it sent from, and names at most 100", async () => {
  await using t = await startTestRelayer();
  const agent = await t.newCaller();
  const [id] = await remember(t, agent, [{ text: "Tomatoes need sun", namespace: "garden" }]);
  const names = Array.from({ length: 99 }, (_, i) => `namespace=empty-${i}`).join("&");
  const answer = await t.signed(agent, "GET", `/api/export?namespace=garden&${names}`);
  assert.equal(answer.status, 200);
  assert.equal(JSON.parse(await answer.text()).id, id);
  const entries = await logOf(t, agent, "?op=export");
  assert.deepEqual(entries.map((e) => [e.namespace, e.memory_ids]), [["garden", [id]]]);

  const many = await t.signed(agent, "GET", `/api/export?namespace=garden&${names}&namespace=x`);
  assert.equal(many.status, 400);
  assert.match((await many.json()).error, /namespace may name at most 100 namespaces/);
  const repeated = Array(150).fill("namespace=garden").join("&");
  const once = await t.signed(agent, "GET", `/api/export?${repeated}`);
  assert.equal(once.status, 200);
  await once.body?.cancel();
});

Deno.test("a duplicate in a bulk or an analysis is logged with the memory it repeats", async () => {
  await using t = await startTestRelayer();
  const agent = await t.newCaller();
  const signed = (path: string, body: unknown) =>
    t.signed(agent, "POST", path, body).then((res) => json(res, 202));
  const first = await signed("/api/analyze", { text: "I live in Oslo." });
  await t.settle(agent, first.job_ids);
  const [kept] = first.job_ids;
  const bulk = await signed("/api/remember/bulk", {
    items: [{ text: first.facts[0].text }, { text: "I keep bees" }],
  });
  const analysis = await signed("/api/analyze", { text: "I live in Oslo." });
  assert.deepEqual(bulk.duplicates, [{ index: 0, duplicate_of: kept }]);
  assert.equal(bulk.job_ids[0], kept);
  assert.deepEqual(analysis.job_ids, []);
  assert.equal(analysis.facts[0].duplicate_of, kept);

  const entries = await logOf(t, agent);
  assert.deepEqual(entries.slice(0, 2).map((e) => [e.op, e.memory_ids]), [
    ["analyze", [kept]],
    ["remember", [bulk.job_ids[1], kept]],
  ]);
  assert.deepEqual((await logOf(t, agent, `?memory=${kept}`)).map((e) => e.op), [
    "analyze",
    "remember",
    "analyze",
  ]);
});

Deno.test("manual remember and recall are logged as remember and recall", async () => {
  await using t = await startTestRelayer();
  const agent = await t.newCaller();
  const vector = Array.from({ length: t.vectors.dimensions }, (_, i) => (i === 1 ? 1 : 0));
  const stored = await json(
    await t.signed(agent, "POST", "/api/remember/manual", {
      encrypted_data: btoa("ciphertext"),
      vector,
      namespace: "manual",
    }),
  );
  await json(await t.signed(agent, "POST", "/api/recall/manual", { vector, namespace: "manual" }));
  const entries = await logOf(t, agent);
  assert.deepEqual(entries.map((e) => [e.op, e.memory_ids]), [
    ["recall", [stored.id]],
    ["remember", [stored.id]],
  ]);
});

Deno.test("refusals add no entry", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const [id] = await remember(t, owner, [{ text: "I am vegetarian", namespace: "b" }]);
  const before = (await logOf(t, owner)).length;
  const reader = await t.addKey(owner, { scope: { operations: ["read"], namespaces: ["a"] } });
  const refused: [string, string, unknown, number][] = [
    ["POST", "/api/remember", { text: "I keep bees", namespace: "a" }, 403],
    ["POST", "/api/recall", { query: "diet", namespace: "b" }, 403],
    ["GET", `/api/memories/${id}`, undefined, 404], // out of its namespaces: unknown to it
    ["DELETE", `/api/memories/${id}`, undefined, 403],
    ["POST", "/api/recall", { query: "", namespace: "a" }, 400],
  ];
  for (const [method, path, body, status] of refused) {
    await json(await t.signed(reader, method, path, body), status);
  }
  await json(await t.signed(owner, "GET", `/api/memories/${crypto.randomUUID()}`), 404);
  const stranger = await t.newCaller();
  await json(await t.signed(stranger, "GET", `/api/memories/${id}`), 404);
  // A bad signature: refused before anything is touched.
  const forged = await t.signed(owner, "POST", "/api/recall", { query: "diet", namespace: "b" }, {
    "x-signature": "00".repeat(64),
  });
  await json(forged, 401);
  assert.equal((await logOf(t, owner)).length, before);
  assert.deepEqual(await logOf(t, stranger), []);
});

Deno.test("the owner key and audit keys read the log; other keys get 403", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller({ label: "writer" });
  await remember(t, owner, [
    { text: "I keep bees", namespace: "a" },
    { text: "I cycle to work", namespace: "b" },
  ]);
  const auditor = await t.addKey(owner, { label: "auditor", scope: { operations: ["audit"] } });
  const all = await json(await t.signed(auditor, "GET", "/api/access-log"));
  assert.deepEqual(all.entries.map((e: AccessEntry) => e.namespace).sort(), ["a", "b"]);
  assert.equal(all.next_cursor, null);

  const reader = await t.addKey(owner, { scope: { operations: ["read", "write", "erase"] } });
  const refused = await json(await t.signed(reader, "GET", "/api/access-log"), 403);
  assert.deepEqual([refused.reason, refused.scope], ["missing_scope", "audit"]);

  const scoped = await t.addKey(owner, {
    scope: { operations: ["audit", "read"], namespaces: ["a"] },
  });
  const onlyA = await json(await t.signed(scoped, "GET", "/api/access-log"));
  assert.deepEqual(onlyA.entries.map((e: AccessEntry) => e.namespace), ["a"]);
  const onB = await json(await t.signed(scoped, "GET", "/api/access-log?namespace=b"), 403);
  assert.deepEqual([onB.scope, onB.namespace], ["namespace", "b"]);

  // Reading the log is not itself logged.
  assert.equal((await logOf(t, owner)).length, 2);
});

Deno.test("the log filters by key, operation, namespace, memory and time, and pages", async () => {
  await using t = await startTestRelayer();
  const first = await t.newCaller({ label: "first" });
  const second = await t.addKey(first, { label: "second" });
  const [bees] = await remember(t, first, [{ text: "I keep bees" }]);
  const [bike] = await remember(t, second, [{ text: "I cycle to work", namespace: "work" }]);
  for (let i = 0; i < 3; i++) {
    await json(await t.signed(second, "GET", `/api/memories/${bees}`));
  }
  const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
  await pause();
  const started = new Date().toISOString();
  await pause();
  await json(await t.signed(first, "POST", "/api/recall", { query: "work", namespace: "work" }));

  const byKey = await logOf(t, first, `?key=${addressOf(second.key.publicKey)}`);
  assert.deepEqual(byKey.map((e) => e.op), ["get", "get", "get", "remember"]);
  assert.deepEqual((await logOf(t, first, "?op=recall")).map((e) => e.memory_ids), [[bike]]);
  assert.deepEqual((await logOf(t, first, "?namespace=work")).map((e) => e.op), [
    "recall",
    "remember",
  ]);
  // Which agents read this memory.
  const ofBees = await logOf(t, first, `?memory=${bees}&op=get`);
  assert.deepEqual([...new Set(ofBees.map((e) => e.key.label))], ["second"]);
  const since = await logOf(t, first, `?since=${encodeURIComponent(started)}`);
  assert.deepEqual(since.map((e) => e.op), ["recall"]);
  const until = await logOf(t, first, `?until=${encodeURIComponent(started)}`);
  assert.equal(until.length, 5);

  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
    const page = await json(await t.signed(asOwner(first), "GET", `/api/access-log${query}`));
    pages.push(page.entries.map((e: AccessEntry) => e.id));
    cursor = page.next_cursor;
  } while (cursor);
  const all = await logOf(t, first);
  assert.deepEqual(pages.flat(), all.map((e) => e.id));
  assert.equal(all.length, 6);
  assert.ok(pages.length >= 3);
});

Deno.test("bad access-log queries are 400s naming the parameter", async () => {
  await using t = await startTestRelayer();
  const owner = asOwner(await t.newCaller());
  const cases: [string, RegExp][] = [
    ["?op=peek", /op must be one of/],
    ["?key=alice", /key must be/],
    ["?memory=nope", /memory must be/],
    ["?since=yesterday", /since must be/],
    ["?limit=0", /limit must be between 1 and 500/],
    ["?limit=ten", /limit must be an integer/],
    ["?cursor=abc", /cursor/],
  ];
  for (const [query, message] of cases) {
    const body = await json(await t.signed(owner, "GET", `/api/access-log${query}`), 400);
    assert.match(body.error, message, query);
  }
});

Deno.test("an owner's log holds none of another owner's entries", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  await remember(t, alice, [{ text: "I keep bees" }]);
  await remember(t, bob, [{ text: "I keep goats" }]);
  const [aliceEntry] = await logOf(t, alice);
  const [bobEntry] = await logOf(t, bob);
  assert.equal(aliceEntry.key.address, addressOf(alice.key.publicKey));
  assert.equal(bobEntry.key.address, addressOf(bob.key.publicKey));
  assert.equal((await logOf(t, alice)).length, 1);
});

Deno.test("entries past the retention are pruned and the others kept", async () => {
  const store = new MemoryAccessLogStore();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const writer = await AccessLog.open({ store, secret });
  const day = 86_400_000;
  const old = {
    op: "recall" as const,
    key: { address: "0x" + "cd".repeat(32), label: "old agent" },
    namespace: "default",
    memoryIds: [],
    client: "127.0.0.1",
    requestId: "old",
  };
  await using t = await startTestRelayer({ accessLogStore: store, secret, accessLogDays: 30 });
  const caller = await t.newCaller();
  writer.append([
    { ...old, owner: caller.owner, at: Date.now() - 31 * day },
    { ...old, owner: caller.owner, at: Date.now() - 29 * day, requestId: "kept" },
  ]);
  await writer.close();
  assert.deepEqual((await logOf(t, caller)).map((e) => e.request_id), ["kept", "old"]);
  assert.equal(await t.relayer.accessLog.prune(), 1);
  assert.deepEqual((await logOf(t, caller)).map((e) => e.request_id), ["kept"]);
});

Deno.test("a relayer starting prunes what is past the retention", async () => {
  const store = new MemoryAccessLogStore();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const writer = await AccessLog.open({ store, secret });
  writer.append([{
    owner: "0xowner",
    op: "get",
    key: { address: "0x" + "cd".repeat(32), label: "" },
    namespace: "default",
    memoryIds: [],
    client: "127.0.0.1",
    requestId: "old",
    at: Date.now() - 8 * 86_400_000,
  }]);
  await writer.close();
  assert.equal(await store.prune("0"), 0);
  await using t = await startTestRelayer({ accessLogStore: store, secret, accessLogDays: 7 });
  const reader = await AccessLog.open({ store, secret });
  for (let i = 0; i < 100 && (await reader.query("0xowner")).entries.length > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.deepEqual((await reader.query("0xowner")).entries, []);
  await reader.close();
  assert.ok(t.relayer.accessLog.retentionMs === 7 * 86_400_000);
});

Deno.test("SDK: accessLog reads the log with filters and pages; a key without audit is refused", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller({ label: "sdk agent" });
  const clientOf = (caller: Caller) =>
    SvcClient.create({
      baseUrl: BASE,
      privateKey: caller.key.privateKey,
      accountId: caller.accountId,
      retries: 0,
      fetch: (input, init) => t.relayer.handler(new Request(input, init)),
    });
  const agent = await clientOf(owner);
  const [id] = await remember(t, owner, [{ text: "I keep bees" }, { text: "I cycle" }]);
  await agent.get(id);
  await agent.recall("bees", { limit: 1 });

  const auditor = await clientOf(
    await t.addKey(owner, { label: "auditor", scope: { operations: ["audit"] } }),
  );
  const reads = await auditor.accessLog({ memory: id, op: "get" });
  assert.deepEqual(reads.entries.map((e) => [e.op, e.key.label, e.memory_ids]), [
    ["get", "sdk agent", [id]],
  ]);
  const first = await auditor.accessLog({ limit: 3, since: new Date(Date.now() - 60_000) });
  assert.equal(first.entries.length, 3);
  const rest = await auditor.accessLog({ limit: 3, cursor: first.next_cursor! });
  assert.deepEqual(rest.entries.map((e) => e.op), ["remember"]);
  assert.equal(rest.next_cursor, null);

  const refused = await agent.accessLog().then(() => null, (error) => error);
  // A key without any scope may do everything, audit included.
  assert.equal(refused, null);
  const reader = await clientOf(await t.addKey(owner, { scope: { operations: ["read"] } }));
  const error = await reader.accessLog().then(() => null, (error) => error);
  assert.ok(error instanceof SvcError && error.code === "forbidden");
  assert.equal(error.details?.scope, "audit");

  assert.equal(
    accessLogPath({ key: "0xab", op: "recall", since: new Date(0), limit: 5 }),
    "/api/access-log?since=1970-01-01T00%3A00%3A00.000Z&key=0xab&op=recall&limit=5",
  );
});
