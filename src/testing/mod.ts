/**
 * For people writing their own backends: in-memory twins of every interface, to build a
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
