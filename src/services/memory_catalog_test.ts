import assert from "node:assert/strict";
import type { MemoryCatalogDependencies } from "./memory_catalog.ts";
import { createMemoryCatalog } from "./memory_catalog.ts";
import type { Expiry } from "./lifecycle_records.ts";

/**
 * A catalog over a store that tells each namespace's newest time, with `due` the expiries awaiting
 * the sweep, and a lexicon whose newest visible memory is at `visible`.
 */
function catalog(due: Expiry[], visible: number) {
  const deps = {
    vectors: {
      namespaces: () => Promise.resolve([{ namespace: "notes", count: 2, newest: 9_000 }]),
    },
    records: { due: (_now: number, limit: number) => Promise.resolve(due.slice(0, limit)) },
    lexicon: {
      namespace: () =>
        Promise.resolve({
          entry: () => undefined,
          list: () => [{ id: "m1", createdAt: visible }],
        }),
    },
    now: () => 10_000,
  } as unknown as MemoryCatalogDependencies;
  return createMemoryCatalog(deps);
}

const expiry = (owner: string, i: number): Expiry => ({
  memoryId: `m${i}`,
  owner,
  namespace: "notes",
  expiresAt: 1_000,
});

Deno.test("namespace activity: the store's newest time, unless expired memories may be behind it", async () => {
  assert.deepEqual(await catalog([], 5_000).namespaceActivity("0xa"), [
    { namespace: "notes", count: 2, updatedAt: 9_000 },
  ]);
  // More expiries await the sweep than are read: this owner's may be among those not read.
  const others = Array.from({ length: 1_000 }, (_, i) => expiry("0xb", i));
  assert.deepEqual(await catalog(others, 5_000).namespaceActivity("0xa"), [
    { namespace: "notes", count: 2, updatedAt: 5_000 },
  ]);
});
