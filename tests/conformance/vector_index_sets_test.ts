/** The vector index sets (what a reindex builds on) of every embedded vector store. */
import { EncryptedIndexSet } from "../../plugins/encrypted_index/mod.ts";
import { LanceDbIndexSet } from "../../plugins/lancedb/mod.ts";
import {
  MemoryVectorIndexSet,
  vectorIndexSetSuite,
  type VectorIndexSetUnderTest,
} from "../../src/testing/mod.ts";
import type { VectorIndexSet } from "../../src/kit.ts";

/** A set in a temporary folder, removed with it; `reopen` opens the folder again. */
async function inFolder(
  openIn: (dir: string) => Promise<VectorIndexSet>,
): Promise<VectorIndexSetUnderTest> {
  const dir = await Deno.makeTempDir();
  return Object.assign(await openIn(dir), {
    reopen: () => openIn(dir),
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  });
}

vectorIndexSetSuite("MemoryVectorIndexSet", () =>
  Promise.resolve(
    Object.assign(new MemoryVectorIndexSet(), { [Symbol.asyncDispose]: () => Promise.resolve() }),
  ));

vectorIndexSetSuite("EncryptedIndexSet", () => {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  return inFolder((dir) => EncryptedIndexSet.open({ dir, secret }));
});

vectorIndexSetSuite("LanceDbIndexSet", () => inFolder((dir) => LanceDbIndexSet.open({ dir })));
