/**
 * Export and import through the relayer's handler and the SDK: an export erased and imported
 * back restores the same memories; imports skip duplicates, report malformed lines by number
 * and keep the rest; a scoped key exports only what it may read.
 */
import assert from "node:assert/strict";
import { type ExportedMemory, SvcClient } from "../src/client/mod.ts";
import { SvcError } from "../src/errors.ts";
import {
  BASE,
  type Caller,
  jsonOf,
  rememberAll,
  startTestRelayer,
  type TestRelayer,
} from "./fixtures.ts";

function clientOf(t: TestRelayer, caller: Caller): Promise<SvcClient> {
  return SvcClient.create({
    baseUrl: BASE,
    privateKey: caller.key.privateKey,
    accountId: caller.accountId,
    retries: 0,
    fetch: (input, init) => t.relayer.handler(new Request(input, init)),
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function refusal(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(() => null, (e) => e);
  assert.ok(error instanceof SvcError, `expected an SvcError, got ${error}`);
  return error;
}

/** Sends a raw import body, signed. */
function importRaw(t: TestRelayer, caller: Caller, body: string, type = "application/x-ndjson") {
  return t.signed(caller, "POST", "/api/import", body, { "content-type": type });
}

/** What an export keeps of a memory across relayers: all but its id and version time. */
const portable = ({ text, tags, namespace, thread, created_at, expires_at }: ExportedMemory) =>
  JSON.stringify({ text, tags, namespace, thread, created_at, expires_at });

Deno.test("export → erase everything → import restores the same texts, tags, threads and namespaces", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const client = await clientOf(t, caller);
  const inAWeek = new Date(Date.now() + 7 * 86400_000).toISOString();
  await rememberAll(t, caller, [
    { text: "I am vegetarian", tags: ["diet", "health"] },
    { text: "Standup is at 9:30", namespace: "work", tags: ["meetings"] },
    { text: "I am in Lisbon this week", namespace: "travel", expires_at: inAWeek },
    { text: "My manager is Dana", namespace: "work" },
    { text: 'Line one\nline two, with "quotes" and ünïcödé', namespace: "notes" },
    { text: "Shall we meet on Friday?", namespace: "chat", thread: "chat-1" },
    { text: "Shall we meet on Friday?", namespace: "chat" }, // no thread: another memory
  ]);

  const exported = await collect(client.export());
  assert.deepEqual(exported.map((m) => m.namespace), [
    "chat",
    "chat",
    "default",
    "notes",
    "travel",
    "work",
    "work",
  ], "namespace by namespace, oldest first");
  assert.deepEqual(exported.map((m) => m.thread), ["chat-1", null, null, null, null, null, null]);
  assert.deepEqual(Object.keys(exported[0]), [
    "text",
    "tags",
    "namespace",
    "thread",
    "created_at",
    "updated_at",
    "expires_at",
    "remembered_by",
    "id",
  ]);
  assert.deepEqual(exported[2].tags, ["diet", "health"]);
  assert.equal(exported.find((m) => m.namespace === "travel")!.expires_at, inAWeek);
  assert.deepEqual(exported.filter((m) => m.namespace === "work").map((m) => m.text), [
    "Standup is at 9:30",
    "My manager is Dana",
  ]);

  for (const namespace of new Set(exported.map((m) => m.namespace))) {
    await client.forgetNamespace(namespace);
  }
  assert.deepEqual(await collect(client.export()), []);

  const summary = await client.import(exported);
  assert.deepEqual(
    { ...summary, job_ids: summary.job_ids.length },
    { imported: 7, duplicates: 0, failed: [], job_ids: 7 },
  );
  await t.settle(caller, summary.job_ids);
  const restored = await collect(client.export());
  assert.deepEqual(restored.map(portable), exported.map(portable));
  assert.ok(restored.every((m, i) => m.id !== exported[i].id), "new memories, new ids");
  const recalled = await client.recall("who is my manager", { namespace: "work" });
  assert.equal(recalled.results[0].text, "My manager is Dana");

  // Importing the same lines again adds nothing.
  const again = await client.import(exported);
  assert.deepEqual(again, { imported: 0, duplicates: 7, failed: [], job_ids: [] });
  assert.equal((await collect(client.export())).length, 7);
});

Deno.test("export streams in batches: every memory once, with the count gathered up front", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const client = await clientOf(t, caller);
  const texts = Array.from({ length: 150 }, (_, i) => `Fact number ${i} about the garden`);
  const summary = await client.import(texts.map((text) => ({ text, namespace: "garden" })));
  assert.equal(summary.imported, 150);
  for (let i = 0; i < 150; i += 100) await t.settle(caller, summary.job_ids.slice(i, i + 100));

  const res = await t.signed(caller, "GET", "/api/export?namespace=garden");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/x-ndjson; charset=utf-8");
  assert.equal(res.headers.get("x-svc-export-count"), "150");
  const lines = (await res.text()).trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines.map((m) => m.text), texts);

  // The owner's own key may export too (the dashboard's export).
  const asOwner = await t.signed({ ...caller, key: caller.ownerKey }, "GET", "/api/export");
  assert.equal((await asOwner.text()).trimEnd().split("\n").length, 150);
});

Deno.test("a namespace-scoped key's export holds only its namespaces", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  await rememberAll(t, owner, [
    { text: "Alpha fact", namespace: "a" },
    { text: "Beta fact", namespace: "b" },
    { text: "Gamma fact", namespace: "c" },
  ]);
  const scoped = await clientOf(t, await t.addKey(owner, { scope: { namespaces: ["a", "c"] } }));
  assert.deepEqual((await collect(scoped.export())).map((m) => m.text), [
    "Alpha fact",
    "Gamma fact",
  ]);
  assert.deepEqual((await collect(scoped.export({ namespace: "a" }))).map((m) => m.text), [
    "Alpha fact",
  ]);
  const refused = await refusal(collect(scoped.export({ namespace: ["a", "b"] })));
  assert.deepEqual([refused.code, refused.details.scope, refused.details.namespace], [
    "forbidden",
    "namespace",
    "b",
  ]);
  const writeOnly = await clientOf(t, await t.addKey(owner, { scope: { operations: ["write"] } }));
  const noRead = await refusal(collect(writeOnly.export()));
  assert.deepEqual([noRead.code, noRead.details.scope], ["forbidden", "read"]);
  // Another account's export holds none of these.
  assert.deepEqual(await collect((await clientOf(t, await t.newCaller())).export()), []);
});

Deno.test("import reports each malformed line by its number and imports the rest", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const future = new Date(Date.now() + 86400_000).toISOString();
  const body = [
    JSON.stringify({ text: "I keep bees", tags: ["hobby"] }),
    "{not json",
    "",
    JSON.stringify({ text: "   " }),
    JSON.stringify({ text: "I sail", tags: "boats" }),
    JSON.stringify({ text: "I ski", created_at: future }),
    JSON.stringify({ text: "I ski", expires_at: "2001-01-01T00:00:00Z" }),
    JSON.stringify(["an", "array"]),
    JSON.stringify({ text: "I climb", namespace: "" }),
    JSON.stringify({ text: "I play the cello", namespace: "music", id: "ignored", extra: 1 }),
    JSON.stringify({ text: "I row", thread: "" }),
    String.raw`{"text":"I row \udc00"}`,
    // An older install's namespace, which remember now refuses, is carried over as it was.
    JSON.stringify({ text: "I swim", namespace: "sport " }),
  ].join("\r\n");
  const summary = await jsonOf(await importRaw(t, caller, body), 202);
  assert.equal(summary.imported, 3);
  assert.equal(summary.duplicates, 0);
  assert.deepEqual(summary.failed.map((f: { line: number }) => f.line), [
    2,
    4,
    5,
    6,
    7,
    8,
    9,
    11,
    12,
  ]);
  assert.deepEqual(summary.failed.map((f: { error: string }) => f.error), [
    "not valid JSON",
    "text must not be empty",
    "tags must be an array of strings",
    "created_at must not be in the future",
    "expires_at must be in the future",
    "line must be an object",
    "namespace must not be empty",
    "thread must be a string of 1 to 128 characters",
    String.raw`not valid Unicode: a string holds half of a UTF-16 surrogate pair (\ud800-\udfff)`,
  ]);
  await t.settle(caller, summary.job_ids);
  const music = await jsonOf(await t.signed(caller, "GET", "/api/memories?namespace=music"));
  assert.deepEqual(music.memories.map((m: { text: string }) => m.text), ["I play the cello"]);
});

Deno.test("import keeps created_at and expires_at, and counts repeats within it (in one thread) as duplicates", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const client = await clientOf(t, caller);
  const expires = new Date(Date.now() + 3 * 86400_000).toISOString();
  const summary = await client.import([
    { text: "I moved to Porto", created_at: "2021-03-04T05:06:07.000Z", expires_at: expires },
    { text: "i moved  to PORTO" },
    { text: "I moved to Porto", namespace: "elsewhere" },
    { text: "I moved to Porto", thread: "chat-1" },
    { text: "i moved to porto", thread: "chat-1" },
  ]);
  assert.deepEqual([summary.imported, summary.duplicates], [3, 2]);
  await t.settle(caller, summary.job_ids);
  const memory = await client.get(summary.job_ids[0]);
  assert.equal(memory.created_at, "2021-03-04T05:06:07.000Z");
  const [found] = (await client.recall("I moved to Porto")).results;
  assert.deepEqual([found.id, found.created_at], [memory.id, memory.created_at], "recall agrees");
  assert.equal(memory.expires_at, expires);
  assert.ok(Date.parse(memory.updated_at) > Date.parse("2025-01-01"), "stored now");
  assert.equal(memory.thread, null);
  assert.equal((await client.get(summary.job_ids[2])).thread, "chat-1");
});

Deno.test("import refuses a wrong content type, too many lines, a read-only or out-of-scope key", async () => {
  await using t = await startTestRelayer();
  const owner = await t.newCaller();
  const line = JSON.stringify({ text: "I keep bees" });
  const json = await jsonOf(await importRaw(t, owner, line, "application/json"), 415);
  assert.equal(json.code, "unsupported_media_type");
  const latin1 = "application/x-ndjson; charset=iso-8859-1";
  assert.equal((await jsonOf(await importRaw(t, owner, line, latin1), 415)).code, json.code);
  const many = Array.from({ length: 501 }, (_, i) => JSON.stringify({ text: `n${i}` }));
  assert.match(
    (await jsonOf(await importRaw(t, owner, many.join("\n")), 400)).error,
    /at most 500/,
  );
  assert.equal((await jsonOf(await importRaw(t, owner, "\n\n"), 400)).code, "bad_request");
  const huge = "x".repeat(4 * 1024 * 1024 + 1);
  assert.equal((await jsonOf(await importRaw(t, owner, huge), 413)).code, "payload_too_large");

  const reader = await t.addKey(owner, { scope: { operations: ["read"] } });
  assert.equal((await jsonOf(await importRaw(t, reader, line), 403)).scope, "write");
  const scoped = await t.addKey(owner, { scope: { namespaces: ["a"] } });
  const mixed = [
    JSON.stringify({ text: "In a", namespace: "a" }),
    JSON.stringify({ text: "In b", namespace: "b" }),
  ].join("\n");
  const refused = await jsonOf(await importRaw(t, scoped, mixed), 403);
  assert.deepEqual([refused.scope, refused.namespace], ["namespace", "b"]);
  // Refused before any work: nothing of the request was queued.
  const listed = await jsonOf(await t.signed(owner, "GET", "/api/memories?namespace=a"));
  assert.deepEqual(listed.memories, []);
});

Deno.test("restore brings memories back as they were; importing their lines again then adds nothing", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const lines = [
    { text: "I keep bees", tags: ["garden"], thread: "chat-1", created_at: "2024-05-01T10:00:00Z" },
    { text: "I water them at dawn", thread: "chat-1", created_at: "2024-05-01T10:01:00Z" },
    { text: "My parking spot is B12", expires_at: new Date(Date.now() + 3600_000).toISOString() },
  ].map((line) => JSON.stringify(line)).join("\n");
  const summary = await (await importRaw(t, caller, lines)).json();
  await t.settle(caller, summary.job_ids);
  // A correction: it keeps its first version's time, and names the version it replaced.
  const [bees] = summary.job_ids;
  const updated = await (await t.signed(caller, "PUT", `/api/memories/${bees}`, {
    text: "I keep two hives of bees",
  })).json();
  await t.settle(caller, [updated.job_id]);
  const listed = async () =>
    (await (await t.signed(caller, "GET", "/api/memories")).json()).memories
      .toSorted((a: { id: string }, b: { id: string }) => a.id < b.id ? -1 : 1);
  const before = await listed();
  assert.equal(before.length, 3);

  // The index is lost: its rows go, the blobs stay.
  await t.vectors.delete(before.map((m: { id: string }) => m.id));
  const restored = await (await t.signed(caller, "POST", "/api/restore", {
    namespace: "default",
  })).json();
  assert.equal(restored.restored, 3);
  assert.deepEqual(await listed(), before, "tags, threads, times, expiry, provenance, versions");
  const again = await (await importRaw(t, caller, lines)).json();
  assert.deepEqual([again.imported, again.duplicates], [1, 2], "all but the corrected line");
});

Deno.test("a key removed while its export streams gets no more of it", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const lines = Array.from({ length: 200 }, (_, i) => JSON.stringify({ text: `Fact number ${i}` }));
  const summary = await jsonOf(await importRaw(t, caller, lines.join("\n")), 202);
  for (let i = 0; i < 200; i += 100) await t.settle(caller, summary.job_ids.slice(i, i + 100));
  const response = await t.signed(caller, "GET", "/api/export");
  assert.equal(response.status, 200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let received = (await reader.read()).value!.split("\n").filter(Boolean).length;
  t.directory.remove(caller.key.publicKey);
  const ended = await (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return "done";
      received += value.split("\n").filter(Boolean).length;
    }
  })().catch((error) => error);
  assert.notEqual(ended, "done", "the stream breaks off rather than ending");
  assert.ok(received < 200, `${received} of 200 lines sent after the key went`);
});
