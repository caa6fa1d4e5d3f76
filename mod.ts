/**
 * svc: private, user-owned memory for AI agents. The relayer as a library (`createRelayer`
 * over the stores and backends you pass in), the plugin interfaces,
 * the signed client and request signing. Writing a backend: `./kit`; in-memory twins and conformance
 * suites: `./testing`; the client alone: `./client`.
 *
 * @example A relayer with a blob store of your own, and an agent that remembers and recalls
 * ```ts
 * import {
 *   addressOf,
 *   type BlobEntry,
 *   type BlobMeta,
 *   type BlobStore,
 *   createRelayer,
 *   generateKeyPair,
 *   SvcClient,
 * } from "./mod.ts";
 * import {
 *   MemoryAccountDirectory,
 *   MemoryCipher,
 *   MemoryEmbedder,
 *   MemoryVectorStore,
 * } from "./src/testing/mod.ts";
 * import { openKvStores } from "@svc/denokv";
 *
 * // Any object with the BlobStore methods is a blob store: here, a Map.
 * class MapBlobStore implements BlobStore {
 *   readonly name = "map";
 *   #blobs = new Map<string, { bytes: Uint8Array<ArrayBuffer>; meta: BlobMeta }>();
 *
 *   async put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta): Promise<string> {
 *     const blobId = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)).toHex();
 *     this.#blobs.set(blobId, { bytes, meta });
 *     return blobId;
 *   }
 *   get(blobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
 *     return Promise.resolve(this.#blobs.get(blobId)?.bytes ?? null);
 *   }
 *   list(owner: string, namespace: string): Promise<BlobEntry[]> {
 *     const entries = [...this.#blobs].map(([blobId, { meta }]) => ({ blobId, meta }));
 *     return Promise.resolve(
 *       entries.filter(({ meta }) => meta.owner === owner && meta.namespace === namespace),
 *     );
 *   }
 *   delete(blobId: string): Promise<void> {
 *     this.#blobs.delete(blobId);
 *     return Promise.resolve();
 *   }
 * }
 *
 * // The job queue, the replay guard, the erase records and the access log, in one Deno KV.
 * const kv = await Deno.openKv(":memory:");
 * const secret = crypto.getRandomValues(new Uint8Array(32));
 * const directory = new MemoryAccountDirectory();
 * const embedder = new MemoryEmbedder(64);
 * const relayer = await createRelayer({
 *   ...await openKvStores(kv, secret),
 *   secret,
 *   directory,
 *   cipher: new MemoryCipher(),
 *   blobs: new MapBlobStore(),
 *   vectors: new MemoryVectorStore(embedder.dimensions),
 *   embedder,
 * });
 *
 * // An account with one delegate key, and an agent signing with it. Its requests go straight
 * // to the handler here; `Deno.serve(relayer.handler)` puts it on the network.
 * const agent = await generateKeyPair();
 * const owner = addressOf((await generateKeyPair()).publicKey);
 * directory.add({ accountId: "0x" + "a1".repeat(32), owner, active: true }, [agent.publicKey]);
 * const client = await SvcClient.create({
 *   baseUrl: "http://localhost",
 *   privateKey: agent.privateKey,
 *   fetch: (input: RequestInfo | URL, init?: RequestInit) =>
 *     relayer.handler(new Request(input, init)),
 * });
 *
 * const accepted = await client.remember("I am vegetarian");
 * if (accepted.status !== "duplicate") await client.waitForJob(accepted.job_id);
 * const { results } = await client.recall("Am I a vegetarian?");
 * if (results[0]?.text !== "I am vegetarian") throw new Error("The memory was not recalled");
 *
 * await relayer.close();
 * kv.close();
 * ```
 * @module
 */
export { createRelayer, type Relayer, type RelayerOptions } from "./src/relayer.ts";
export type {
  AcceptOptions,
  CiphertextToSave,
  JobCompletion,
  JobHandler,
  JobInput,
  JobMessage,
  JobQueue,
  JobQueueOptions,
  JobRecord,
  JobStatus,
  ListenOptions,
  PublicJob,
} from "./src/jobs/job_queue.ts";
export { LeaseLost } from "./src/jobs/job_queue.ts";
/** The index `SVC_VECTOR_STORE=memory` runs: nothing persisted, lost on exit. */
export { MemoryBlobStore, MemoryVectorStore } from "./src/backends/memory.ts";
export { MemoryVectorIndexSet } from "./src/backends/memory_index_set.ts";
export type { ConnectionInfo, HttpHandler } from "./src/http/kernel.ts";
export type { SidecarLink } from "./src/sidecar/link.ts";
export { healthProof } from "./src/sidecar/health.ts";
export type { EmbedderBudgetOptions } from "./src/embedder_budget.ts";
export { diskFull, type DiskRoom } from "./src/jobs/disk_backlog.ts";
export type * from "./src/backends/types.ts";
export {
  type EraseReceipt,
  receiptMessage,
  SvcClient,
  type SvcClientOptions,
  verifyReceipt,
} from "./src/client/mod.ts";
export {
  ERROR_STATUS,
  type ErrorCode,
  type ErrorDetails,
  isErrorCode,
  SvcError,
} from "./src/errors.ts";
export {
  AUDIENCE_HEADER,
  audienceOf,
  type AudiencePolicy,
  SIGNATURE_VERSION_HEADER,
  type SigningInput,
  signingMessage,
  signRequest,
  type SignRequestInput,
} from "./src/auth/signing.ts";
export { addressOf, generateKeyPair, type KeyPair, keyPairFromSeed } from "@svc/util/keys";
export {
  DelegateKeyCheck,
  type VerifiedCaller,
  type VerifyDependencies,
  verifySignedRequest,
} from "./src/auth/verify.ts";
export { Ed25519Verifier } from "@svc/util/ed25519";
export type { CarriedClaim, PendingClaim, ReplayGuard } from "./src/auth/replay_guard.ts";
export {
  createLogger,
  type LogFields,
  type Logger,
  type LogLevel,
  silentLogger,
} from "./src/log.ts";
