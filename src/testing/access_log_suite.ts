/**
 * The conformance suite of `AccessLogStore`: what the access log needs of a store of sealed
 * records (append, scan newest first within a range and a limit, prune before an id, logs kept
 * apart, bytes kept as given).
 */
import assert from "node:assert/strict";
import type { AccessLogStore, SealedAccessRecord } from "../services/access_log_store.ts";

/** Ids sorting in time order: a version 7 UUID of millisecond `ms` with `n` in its tail. */
function idOf(ms: number, n = 0): string {
  const time = ms.toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}-7000-8000-${n.toString(16).padStart(12, "0")}`;
}

function record(log: string, ms: number, n = 0): SealedAccessRecord {
  return { log, id: idOf(ms, n), sealed: new Uint8Array([ms % 256, n % 256, 7]) };
}

/** Registers the suite's tests for the stores `open` makes (each test gets a fresh one). */
export function accessLogStoreSuite(
  name: string,
  open: () => Promise<AccessLogStore & Partial<AsyncDisposable>>,
): void {
  const test = (title: string, body: (store: AccessLogStore) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const store = await open();
      try {
        await body(store);
      } finally {
        await store[Symbol.asyncDispose]?.();
      }
    });

  test("scan returns a log's records newest first, with their bytes", async (store) => {
    await store.append([record("a", 1000), record("a", 3000), record("b", 2000)]);
    await store.append([record("a", 2000)]);
    const found = await store.scan("a", {}, 10);
    assert.deepEqual(found.map((r) => r.id), [idOf(3000), idOf(2000), idOf(1000)]);
    assert.deepEqual(found.map((r) => r.log), ["a", "a", "a"]);
    assert.deepEqual([...found[0].sealed], [3000 % 256, 0, 7]);
    assert.deepEqual((await store.scan("b", {}, 10)).map((r) => r.id), [idOf(2000)]);
    assert.deepEqual(await store.scan("c", {}, 10), []);
  });

  test("scan keeps to its range (from inclusive, to exclusive) and its limit", async (store) => {
    await store.append([1, 2, 3, 4, 5].map((s) => record("a", s * 1000)));
    const ids = async (range: { from?: string; to?: string }, limit = 10) =>
      (await store.scan("a", range, limit)).map((r) => r.id);
    assert.deepEqual(await ids({ from: idOf(2000), to: idOf(4000) }), [idOf(3000), idOf(2000)]);
    assert.deepEqual(await ids({ from: idOf(4000) }), [idOf(5000), idOf(4000)]);
    assert.deepEqual(await ids({ to: idOf(2000) }), [idOf(1000)]);
    assert.deepEqual(await ids({}, 2), [idOf(5000), idOf(4000)]);
    assert.deepEqual(await ids({ to: idOf(4000) }, 1), [idOf(3000)]);
  });

  test("prune deletes the records of every log before an id, and counts them", async (store) => {
    await store.append([
      record("a", 1000),
      record("a", 2000),
      record("a", 3000),
      record("b", 1500),
      record("b", 2500),
    ]);
    assert.equal(await store.prune(idOf(2000)), 2);
    assert.deepEqual((await store.scan("a", {}, 10)).map((r) => r.id), [idOf(3000), idOf(2000)]);
    assert.deepEqual((await store.scan("b", {}, 10)).map((r) => r.id), [idOf(2500)]);
    assert.equal(await store.prune(idOf(2000)), 0);
    // A log pruned empty takes records again.
    assert.equal(await store.prune(idOf(9000)), 3);
    await store.append([record("a", 9500)]);
    assert.deepEqual((await store.scan("a", {}, 10)).map((r) => r.id), [idOf(9500)]);
  });

  test("a large batch of records is kept whole", async (store) => {
    const many = Array.from({ length: 1200 }, (_, i) => ({
      ...record("a", 10_000 + i),
      sealed: new Uint8Array(2000).fill(i % 256),
    }));
    await store.append(many);
    const found = await store.scan("a", {}, 2000);
    assert.equal(found.length, 1200);
    assert.equal(found[0].id, idOf(10_000 + 1199));
    assert.equal(found[0].sealed.byteLength, 2000);
    assert.equal(found[0].sealed[0], 1199 % 256);
  });
}
