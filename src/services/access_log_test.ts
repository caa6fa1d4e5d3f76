import assert from "node:assert/strict";
import { accessLogStoreSuite } from "../testing/access_log_suite.ts";
import { type AccessEvent, AccessLog, idFloor, MAX_IDS_PER_ENTRY } from "./access_log.ts";
import {
  type AccessLogStore,
  type AccessRecordRange,
  MemoryAccessLogStore,
  type SealedAccessRecord,
} from "./access_log_store.ts";

accessLogStoreSuite("MemoryAccessLogStore", () => Promise.resolve(new MemoryAccessLogStore()));

const DAY = 86_400_000;
const secret = () => crypto.getRandomValues(new Uint8Array(32));

/** A store that counts its writes, and can be made to fail them. */
class CountingStore extends MemoryAccessLogStore {
  appends: number[] = [];
  failing = false;
  override append(records: SealedAccessRecord[]) {
    if (this.failing) return Promise.reject(new Error("store down"));
    this.appends.push(records.length);
    return super.append(records);
  }
}

/** A store that refuses a range ending before it starts, as Deno KV's `list` does. */
class StrictRangeStore extends MemoryAccessLogStore {
  override scan(log: string, range: AccessRecordRange, limit: number) {
    if (range.from && range.to && range.from > range.to) {
      return Promise.reject(new TypeError("Start key is greater than end key"));
    }
    return super.scan(log, range, limit);
  }
}

function event(owner: string, extra: Partial<AccessEvent> = {}): AccessEvent {
  return {
    owner,
    op: "recall",
    key: { address: "0x" + "ab".repeat(32), label: "agent" },
    namespace: "default",
    memoryIds: [],
    client: "127.0.0.1",
    requestId: crypto.randomUUID(),
    ...extra,
  };
}

Deno.test("appends queued together are written in one batch, off the caller's path", async () => {
  const store = new CountingStore();
  const log = await AccessLog.open({ store, secret: secret(), flushDelayMs: 5 });
  for (let i = 0; i < 50; i++) log.append([event("0xowner")]);
  assert.deepEqual(store.appends, [], "nothing is written while the request runs");
  // The flush runs after its delay, however busy the machine.
  for (let i = 0; i < 1000 && store.appends.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(store.appends, [50]);
  assert.equal((await log.query("0xowner", { limit: 100 })).entries.length, 50);
  await log.close();
});

Deno.test("a flush waits for more entries, but starts at once once enough are queued", async () => {
  const store = new CountingStore();
  const log = await AccessLog.open({
    store,
    secret: secret(),
    flushDelayMs: 60_000,
    flushEntries: 10,
  });
  for (let i = 0; i < 9; i++) log.append([event("0xowner")]);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(store.appends, [], "fewer than 10 wait");
  log.append([event("0xowner")]);
  for (let i = 0; i < 100 && store.appends.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.deepEqual(store.appends, [10]);
  await log.close();
});

Deno.test("query reads what was appended just before, newest first", async () => {
  const log = await AccessLog.open({ store: new MemoryAccessLogStore(), secret: secret() });
  log.append([event("0xa", { op: "remember", memoryIds: ["m1"] })]);
  log.append([event("0xa", { op: "get", memoryIds: ["m1"] })]);
  const { entries, next_cursor } = await log.query("0xa");
  assert.deepEqual(entries.map((e) => e.op), ["get", "remember"]);
  assert.equal(next_cursor, null);
  await log.close();
});

Deno.test("close writes what is queued; a failed write is kept and tried again", async () => {
  const store = new CountingStore();
  const log = await AccessLog.open({ store, secret: secret(), flushDelayMs: 1000 });
  store.failing = true;
  log.append([event("0xa"), event("0xa")]);
  await assert.rejects(() => log.flush(), /store down/);
  store.failing = false;
  await log.close();
  assert.deepEqual(store.appends, [2]);
  const reopened = await AccessLog.open({ store, secret: new Uint8Array(32) });
  assert.equal((await reopened.query("0xa")).entries.length, 0, "another secret opens nothing");
  await reopened.close();
});

Deno.test("an entry sealed for one owner does not open for another, nor moved", async () => {
  const store = new MemoryAccessLogStore();
  const key = secret();
  const log = await AccessLog.open({ store, secret: key });
  log.append([event("0xa"), event("0xb")]);
  await log.flush();
  // Copy a's records into b's log: they do not open there.
  const logs: SealedAccessRecord[] = [];
  const spy: AccessLogStore = {
    append: (records) => store.append(records),
    scan: async (log, range, limit) => {
      const found = await store.scan(log, range, limit);
      logs.push(...found);
      return found;
    },
    prune: (before) => store.prune(before),
  };
  const reader = await AccessLog.open({ store: spy, secret: key });
  await reader.query("0xa");
  await reader.query("0xb");
  const [a, b] = [logs[0], logs[1]];
  assert.notEqual(a.log, b.log);
  await store.append([{ ...a, log: b.log, id: idFloor(Date.now() + 60_000) }]);
  assert.equal((await reader.query("0xb")).entries.length, 1);
  await reader.close();
  await log.close();
});

Deno.test("prune deletes the entries past the retention, in every owner's log", async () => {
  let now = Date.UTC(2026, 0, 1);
  const store = new MemoryAccessLogStore();
  const log = await AccessLog.open({ store, secret: secret(), retentionDays: 90, now: () => now });
  log.append([event("0xa", { at: now - 100 * DAY }), event("0xb", { at: now - 91 * DAY })]);
  log.append([event("0xa", { at: now - 89 * DAY }), event("0xa")]);
  await log.flush();
  assert.equal(await log.prune(), 2);
  assert.equal((await log.query("0xa")).entries.length, 2);
  assert.equal((await log.query("0xb")).entries.length, 0);
  now += 2 * DAY;
  assert.equal(await log.prune(), 1);
  const [left] = (await log.query("0xa")).entries;
  assert.equal(left.at, new Date(Date.UTC(2026, 0, 1)).toISOString());
  await log.close();
});

Deno.test("a request touching many memories is logged in entries of at most 1000 ids", async () => {
  const log = await AccessLog.open({ store: new MemoryAccessLogStore(), secret: secret() });
  const ids = Array.from({ length: 2500 }, () => crypto.randomUUID());
  log.append([event("0xa", { op: "erase", memoryIds: [...ids, ids[0]] })]);
  const { entries } = await log.query("0xa");
  assert.deepEqual(entries.map((e) => e.memory_ids.length).sort(), [1000, 1000, 500]);
  assert.equal(MAX_IDS_PER_ENTRY, 1000);
  assert.deepEqual(new Set(entries.flatMap((e) => e.memory_ids)), new Set(ids));
  assert.equal(new Set(entries.map((e) => e.request_id)).size, 1);
  await log.close();
});

Deno.test("a page filtered down reads on, and its cursor goes on where it stopped", async () => {
  const log = await AccessLog.open({ store: new MemoryAccessLogStore(), secret: secret() });
  const at = Date.now() - 10_000;
  for (let i = 0; i < 300; i++) {
    log.append([event("0xa", { op: i % 100 === 0 ? "erase" : "recall", at: at + i })]);
  }
  const first = await log.query("0xa", { op: "erase", limit: 2 });
  assert.deepEqual(first.entries.map((e) => Date.parse(e.at) - at), [200, 100]);
  assert.ok(first.next_cursor);
  const second = await log.query("0xa", { op: "erase", limit: 2, cursor: first.next_cursor });
  assert.deepEqual(second.entries.map((e) => Date.parse(e.at) - at), [0]);
  assert.equal(second.next_cursor, null);
  const window = await log.query("0xa", { since: at + 50, until: at + 60 });
  assert.deepEqual(window.entries.map((e) => Date.parse(e.at) - at), [
    59,
    58,
    57,
    56,
    55,
    54,
    53,
    52,
    51,
    50,
  ]);
  await log.close();
});

Deno.test("a window that ends before it starts is an empty page, from the cursor on too", async () => {
  const log = await AccessLog.open({ store: new StrictRangeStore(), secret: secret() });
  const at = Date.now() - 10_000;
  for (let i = 0; i < 3; i++) log.append([event("0xa", { at: at + i * 1000 })]);
  const empty = { entries: [], next_cursor: null };
  assert.deepEqual(await log.query("0xa", { since: at + 2000, until: at }), empty);
  const first = await log.query("0xa", { limit: 1, until: at + 1500 });
  assert.equal(first.entries.length, 1);
  assert.deepEqual(await log.query("0xa", { cursor: first.next_cursor!, since: at + 1500 }), empty);
  assert.equal(
    (await log.query("0xa", { cursor: first.next_cursor!, since: at })).entries.length,
    1,
  );
  await log.close();
});

Deno.test("entries appended after close are dropped, and leave no timer behind", async () => {
  const store = new CountingStore();
  const log = await AccessLog.open({ store, secret: secret() });
  await log.close();
  log.append([event("0xa")]);
  assert.deepEqual(store.appends, []);
});

Deno.test("a store failing for a while is logged once, and once more when it takes the entries again", async () => {
  const store = new CountingStore();
  const said: string[] = [];
  const note = (message: string) => said.push(message);
  const logger = { debug: () => {}, info: note, warn: note, error: note };
  const log = await AccessLog.open({ store, secret: secret(), flushDelayMs: 10, logger });
  try {
    store.failing = true;
    log.append([event("0xa")]);
    // Three tries a second apart fail.
    for (let waited = 0; said.length === 0 || waited < 2_500; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    store.failing = false;
    for (let waited = 0; store.appends.length === 0 && waited < 10_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(store.appends, [1]);
    assert.deepEqual(said, [
      "cannot write the access log; trying again every second",
      "the access log is written again",
    ]);
  } finally {
    await log.close();
  }
});

/** A store whose writes wait until `open` is called. */
class GatedStore extends CountingStore {
  #gate = Promise.withResolvers<void>();
  open() {
    this.#gate.resolve();
  }
  override async append(records: SealedAccessRecord[]) {
    await this.#gate.promise;
    return super.append(records);
  }
}

Deno.test("a writer that outruns a slow store waits for it, and drops no one's entries", async () => {
  const store = new GatedStore();
  const log = await AccessLog.open({ store, secret: secret(), maxPending: 10, flushEntries: 5 });
  await log.append(Array.from({ length: 5 }, () => event("0xb")));
  let done = false;
  const flood = log.append(Array.from({ length: 50 }, () => event("0xa"))).then(() => done = true);
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(done, false, "the flood waits while the store holds 10 entries");
  store.open();
  await flood;
  await log.close();
  assert.equal((await log.query("0xb")).entries.length, 5);
  assert.equal((await log.query("0xa", { limit: 100 })).entries.length, 50);
});

Deno.test("while the store is down, a flood drops its own entries past the bound, not others'", async () => {
  const store = new CountingStore();
  const said: [string, unknown][] = [];
  const note = (message: string, data?: unknown) => said.push([message, data]);
  const logger = { debug: () => {}, info: note, warn: note, error: note };
  const log = await AccessLog.open({
    store,
    secret: secret(),
    maxPending: 10,
    flushDelayMs: 60_000,
    logger,
  });
  store.failing = true;
  await log.append(Array.from({ length: 5 }, () => event("0xb")));
  await assert.rejects(() => log.flush(), /store down/);
  await log.append(Array.from({ length: 50 }, () => event("0xa")));
  store.failing = false;
  await log.close();
  assert.equal((await log.query("0xb")).entries.length, 5);
  assert.equal((await log.query("0xa", { limit: 100 })).entries.length, 5);
  assert.deepEqual(said, [["access log entries dropped: the store is down", { entries: 45 }]]);
});

Deno.test("a writer waits for a store that stalls only so long, then drops its own entries past the bound", async () => {
  const store = new GatedStore();
  const log = await AccessLog.open({
    store,
    secret: secret(),
    maxPending: 10,
    flushEntries: 5,
    waitMs: 50,
  });
  await log.append(Array.from({ length: 5 }, () => event("0xb")));
  // Resolves although the store never answers.
  await log.append(Array.from({ length: 50 }, () => event("0xa")));
  store.open();
  await log.close();
  assert.equal((await log.query("0xb")).entries.length, 5);
  assert.equal((await log.query("0xa", { limit: 100 })).entries.length, 5);
});
