/**
 * svc: private, user-owned memory for AI agents — the relayer as a library, its plugin
 * interfaces with in-memory implementations, the MCP sidecar and the signed client.
 *
 * @example
 * ```ts
 * import { createRelayer, MemoryBlobStore, MemoryVectorStore } from "./mod.ts";
 * ```
 * @module
 */
export { createRelayer, type Relayer, type RelayerOptions } from "./src/relayer.ts";
export type { SidecarLink } from "./src/routes/sidecar.ts";
export { createSidecar, type Sidecar, type SidecarOptions } from "./src/sidecar/server.ts";
export { SidecarSupervisor, type SupervisorOptions } from "./src/sidecar/supervisor.ts";
export type * from "./src/backends/types.ts";
export {
  cosineDistance,
  MemoryAccountDirectory,
  MemoryBlobStore,
  MemoryVectorStore,
} from "./src/backends/memory.ts";
export { SvcClient, type SvcClientOptions } from "./src/client/mod.ts";
export { ERROR_STATUS, type ErrorCode, SvcError } from "./src/errors.ts";
export { signingMessage, signRequest } from "./src/auth/signing.ts";
export { addressOf, generateKeyPair, keyPairFromSeed } from "./src/auth/keys.ts";
export { verifySignedRequest } from "./src/auth/verify.ts";
export { LocalLedger } from "./plugins/local_ledger/mod.ts";
export { createLogger, type Logger } from "./src/log.ts";
