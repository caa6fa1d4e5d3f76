/**
 * The conformance suite of `LifecycleRecordStore`: erases recorded per owner, the expiry
 * schedule read soonest first within a limit, erased memories dropped from it, large batches
 * kept whole. A store may lease what `due` returns, so each case reads the schedule once between
 * changes.
 */
import assert from "node:assert/strict";
import type { Expiry, LifecycleRecordStore } from "../services/lifecycle_records.ts";

const T = 1_800_000_000_000;
const OWNER = "0x" + "a1".repeat(32);
const OTHER = "0x" + "b2".repeat(32);

function expiry(n: number, at: number, owner = OWNER, namespace = "notes"): Expiry {
  return { memoryId: `memory-${String(n).padStart(4, "0")}`, owner, namespace, expiresAt: at };
}

/** Registers the suite's tests for the stores `open` makes (each test gets a fresh one). */
export function lifecycleRecordStoreSuite(
  name: string,
  open: () => Promise<LifecycleRecordStore & Partial<AsyncDisposable>>,
): void {
  const test = (title: string, body: (store: LifecycleRecordStore) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const store = await open();
      try {
        await body(store);
      } finally {
        await store[Symbol.asyncDispose]?.();
      }
    });

  test("erased answers which memories of an owner were erased", async (store) => {
    const ids = Array.from({ length: 25 }, (_, i) => `memory-${i}`);
    assert.deepEqual(await store.erased(OWNER, ids), new Set());
    await store.markErased(
      OWNER,
      ids.filter((_, i) => i % 3 === 0).map((memoryId) => ({ memoryId })),
      T,
    );
    assert.deepEqual(await store.erased(OWNER, ids), new Set(ids.filter((_, i) => i % 3 === 0)));
    assert.deepEqual(await store.erased(OTHER, ids), new Set(), "another owner's are apart");
    assert.deepEqual(await store.erased(OWNER, []), new Set());
    // Erasing again is harmless.
    await store.markErased(OWNER, [{ memoryId: ids[0] }], T + 1);
    assert.deepEqual(await store.erased(OWNER, [ids[0], ids[1]]), new Set([ids[0]]));
  });

  test("erasure answers an erase's time, and the blob and namespace it was given", async (store) => {
    assert.equal(await store.erasure(OWNER, "memory-1"), null);
    await store.markErased(OWNER, [
      { memoryId: "memory-1" },
      { memoryId: "memory-2", blobId: "blob-2", namespace: "notes" },
      { memoryId: "memory-2", blobId: "blob-2b", namespace: "work", expiresAt: T + 5 },
    ], T);
    assert.deepEqual(await store.erasure(OWNER, "memory-1"), { erasedAt: T });
    assert.deepEqual(await store.erasure(OWNER, "memory-2"), {
      erasedAt: T,
      blobId: "blob-2b",
      namespace: "work",
    }, "the last given is kept");
    assert.equal(await store.erasure(OTHER, "memory-2"), null, "another owner's are apart");
  });

  test("due returns the expired memories soonest first, with owner and namespace", async (store) => {
    await store.schedule([
      expiry(1, T + 3000),
      expiry(2, T + 1000, OTHER, "chat"),
      expiry(3, T + 9000),
      expiry(4, T + 2000),
    ]);
    assert.deepEqual(await store.due(T + 500, 10), []);
    assert.deepEqual(await store.due(T + 3000, 10), [
      expiry(2, T + 1000, OTHER, "chat"),
      expiry(4, T + 2000),
      expiry(1, T + 3000),
    ]);
  });

  test("due keeps to its limit; erased memories are gone from it", async (store) => {
    await store.schedule([1, 2, 3, 4, 5].map((n) => expiry(n, T + n * 1000)));
    assert.deepEqual(await store.due(T + 10_000, 2), [expiry(1, T + 1000), expiry(2, T + 2000)]);
    await store.markErased(OWNER, [expiry(1, T + 1000), expiry(2, T + 2000)], T);
    assert.deepEqual(
      await store.due(T + 10_000, 10),
      [3, 4, 5].map((n) => expiry(n, T + n * 1000)),
    );
  });

  test("an erased memory leaves the schedule; scheduling twice keeps one entry", async (store) => {
    await store.schedule([expiry(1, T + 1000), expiry(2, T + 2000), expiry(3, T + 3000)]);
    await store.schedule([expiry(2, T + 2000)]);
    await store.markErased(OWNER, [{ memoryId: expiry(2, 0).memoryId, expiresAt: T + 2000 }], T);
    assert.deepEqual(await store.due(T + 5000, 10), [expiry(1, T + 1000), expiry(3, T + 3000)]);
    assert.deepEqual(await store.erased(OWNER, [expiry(2, 0).memoryId]), new Set(["memory-0002"]));
  });

  test("an entry taken off the schedule is not due, nor its memory recorded erased", async (store) => {
    await store.schedule([expiry(1, T + 1000), expiry(1, T + 2000), expiry(2, T + 3000)]);
    await store.unschedule([{ memoryId: expiry(1, 0).memoryId, expiresAt: T + 2000 }]);
    assert.deepEqual(await store.due(T + 5000, 10), [expiry(1, T + 1000), expiry(2, T + 3000)]);
    assert.deepEqual(await store.erased(OWNER, [expiry(1, 0).memoryId]), new Set());
  });

  test("a lease hands each due expiry to one caller until it ends", async (store) => {
    await store.schedule([expiry(1, T + 1000), expiry(2, T + 2000)]);
    assert.deepEqual(await store.due(T + 1500, 10, 60_000), [expiry(1, T + 1000)]);
    assert.deepEqual(await store.due(T + 2500, 10, 60_000), [expiry(2, T + 2000)], "1 is held");
    assert.deepEqual(await store.due(T + 2500, 10), [expiry(1, T + 1000), expiry(2, T + 2000)]);
    assert.deepEqual(await store.due(T + 61_500, 10, 60_000), [expiry(1, T + 1000)], "1's ended");
    await store.markErased(OWNER, [expiry(1, T + 1000)], T + 70_000);
    await store.schedule([expiry(1, T + 1000)]);
    assert.deepEqual(
      await store.due(T + 70_000, 1, 60_000),
      [expiry(1, T + 1000)],
      "erased, freed",
    );
  });

  test("large batches are kept whole", async (store) => {
    const many = Array.from({ length: 450 }, (_, i) => expiry(i, T + 1000 + i));
    await store.schedule(many.toReversed());
    const due = await store.due(T + 10_000, 1000);
    assert.equal(due.length, 450);
    assert.deepEqual(due, many);
    await store.markErased(
      OWNER,
      many.map(({ memoryId, expiresAt }) => ({ memoryId, expiresAt })),
      T,
    );
    assert.equal((await store.erased(OWNER, many.map((m) => m.memoryId))).size, 450);
    assert.deepEqual(await store.due(T + 10_000, 1000), []);
  });
}
