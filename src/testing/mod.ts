/**
 * For people writing their own backends: in-memory twins of the interfaces, to build a
 * relayer in a test, and the conformance suites every backend of svc passes.
 *
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
export { MemoryLlm } from "../backends/memory_llm.ts";
