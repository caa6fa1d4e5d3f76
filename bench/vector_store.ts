/**
 * The vector store of the benchmarks, as `SVC_VECTOR_STORE` picks it: `encrypted` (the default)
 * or `lancedb`, in the benchmark's data directory.
 */
import type { Embedder, VectorStore } from "../src/backends/types.ts";
import { EncryptedVectorStore } from "../plugins/encrypted_index/mod.ts";
import { LanceDbVectorStore } from "../plugins/lancedb/mod.ts";

export type BenchStore = "encrypted" | "lancedb";

/** Opens `store` in `dataDir`; `idle()` resolves once background index work is done. */
export async function openBenchVectors(
  store: BenchStore,
  dataDir: string,
  embedder: Embedder,
  secret: Uint8Array<ArrayBuffer>,
): Promise<VectorStore & { idle(): Promise<void> }> {
  const { model, dimensions } = embedder;
  if (store === "lancedb") {
    return await LanceDbVectorStore.open({ dir: `${dataDir}/lancedb`, model, dimensions });
  }
  const vectors = await EncryptedVectorStore.open({
    path: `${dataDir}/index.sqlite`,
    secret,
    model,
    dimensions,
    soleWriter: true, // as in the relayer
  });
  return Object.assign(vectors, { idle: () => Promise.resolve() });
}
