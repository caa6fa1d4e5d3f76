/**
 * For people writing their own backends: an in-memory twin of every backend interface, to build
 * a relayer in a test, and the conformance suites every backend of svc passes. A suite takes a
 * name and a factory of fresh instances and registers its `Deno.test`s. (The job queue is not a
 * backend: the relayer keeps it in its Deno KV, so its twin and suite are not exported.)
 *
 * @example Running the blob store suite against your own store
 * ```ts ignore
 * import { blobStoreSuite } from "./mod.ts";
 * import { DiskBlobStore } from "./disk_blob_store.ts";
 *
 * blobStoreSuite("DiskBlobStore", async () => await DiskBlobStore.open({ dir: await Deno.makeTempDir() }));
 * ```
 * @module
 */
export {
  cosineDistance,
  MemoryAccountDirectory,
  MemoryBlobStore,
  MemoryVectorStore,
} from "../backends/memory.ts";
export { MemoryCipher } from "../backends/memory_cipher.ts";
export { MemoryEmbedder } from "../backends/memory_embedder.ts";
export { MemoryReranker } from "../backends/memory_reranker.ts";
export { MemoryLlm } from "../backends/memory_llm.ts";
export {
  accountDirectorySuite,
  blobStoreSuite,
  cipherSuite,
  embedderSuite,
  llmSuite,
  rerankerSuite,
  vectorStoreSuite,
} from "./suites.ts";
export {
  type SponsorClock,
  type SponsorFixture,
  type SponsorSender,
  sponsorSuite,
} from "./sponsor_suite.ts";
