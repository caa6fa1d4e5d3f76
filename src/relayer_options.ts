/** What `createRelayer` takes: a relayer's stores, secret, backends and settings. */
import type { DiskRoom } from "./jobs/disk_backlog.ts";
import type { SvcError } from "./errors.ts";
import type { ReplayGuard } from "./auth/replay_guard.ts";
import type { EmbedderBudgetOptions } from "./embedder_budget.ts";
import type {
  AccountDirectory,
  BlobStore,
  Cipher,
  Embedder,
  Llm,
  Reranker,
  VectorStore,
} from "./backends/types.ts";
import type { JobQueue } from "./jobs/job_queue.ts";
import type { TextClaims } from "./remember/text_claims.ts";
import type { Logger } from "./log.ts";
import type { SidecarLink } from "./sidecar/link.ts";
import type { AccessLogStore } from "./services/access_log_store.ts";
import type { LifecycleRecordStore } from "./services/lifecycle_records.ts";
import type { StateStore } from "./state/state_store.ts";
import type { KeyStore } from "./backends/key_store.ts";
import type { UpdateClaims } from "./services/update_claims.ts";

/**
 * What a relayer is built from: its stores, its secret, its backends and its settings. Its state
 * (`state`, `queue`, `replayGuard`) is `@svc/denokv`'s `openKvStores` on one machine,
 * `@svc/postgres`'s for several relayers; the access log and the lifecycle records are kept in
 * `state` unless given.
 */
export interface RelayerOptions {
  /** The remember jobs. */
  queue: JobQueue;
  /**
   * 32 secret bytes; keys the texts waiting in the job queue, the memories' term hashes and the
   * sealed vectors of manual memories.
   */
  secret: Uint8Array<ArrayBuffer>;
  /** Resolves the public keys of signed requests to accounts (cached for `accountCacheMs`). */
  directory: AccountDirectory;
  /** Encrypts memory texts for their owner before they are stored. */
  cipher: Cipher;
  /** Stores the ciphertext of every memory. */
  blobs: BlobStore;
  /** The index recall searches; its dimensions must be the embedder's. */
  vectors: VectorStore;
  /** Turns memory texts and queries into vectors. */
  embedder: Embedder;
  /**
   * Re-scores recall's candidates on their plaintext; without one, recall ranks without it. A
   * function gives the one to use at each recall (while the embedder changes, the serving
   * index's).
   */
  reranker?: Reranker | (() => Reranker | undefined);
  /** The language model of analyze and ask; without one they answer 501. */
  llm?: Llm;
  /** Where the relayer logs (nowhere by default). */
  logger?: Logger;
  /** Reported by `/health` (default `"embedded"`). */
  mode?: string;
  /** The package id of the ledger, reported by `/health` (default empty). */
  packageId?: string;
  /** Run the job worker and reconciler (default true). */
  processJobs?: boolean;
  /** Batches of remember jobs processed at once (default 2). */
  concurrency?: number;
  /** Remember jobs a batch takes at most (default 64). */
  batchSize?: number;
  /** Time limit of each backend call of a remember job (default 30 s). */
  callTimeoutMs?: number;
  /** How often jobs the queue lost track of are re-driven (default 60 s). */
  reconcileIntervalMs?: number;
  /** How often expired memories are erased (default 60 s; also once at start). */
  expirySweepMs?: number;
  /** Remembers the signed requests already used. */
  replayGuard: ReplayGuard;
  /**
   * Clock for signed-request checks (Unix ms); the replay guard should read the same one
   * (`openKvStores`'s `now`).
   */
  now?: () => number;
  /** The MCP sidecar the MCP and sponsor routes forward to; without it they answer 503. */
  sidecar?: SidecarLink;
  /** Take the client address from `x-forwarded-for` (behind a reverse proxy only). */
  trustProxy?: boolean;
  /**
   * How long a resolved delegate key is trusted before the directory is asked again (60 s); a
   * directory whose `cacheable` is `false` (the local ledger) is asked on every request.
   */
  accountCacheMs?: number;
  /**
   * The relayer's own origins, each as `URL.origin` gives it (`https://svc.example`,
   * `http://127.0.0.1:8000`): a version 2 signature must name one of them as its audience (401
   * `wrong_audience`). Read on every request, so a set may be completed once the server
   * listens. Without it the audience is not checked.
   */
  audiences?: ReadonlySet<string>;
  /** Refuse version 1 signatures: 401 `audience_required` (default false). */
  requireAudience?: boolean;
  /**
   * The `Host` names the MCP routes accept (`host` on any port, or `host:port`; `*` for any):
   * others get 403, against DNS rebinding. Default: the loopback names.
   */
  allowedHosts?: readonly string[];
  /**
   * Bytes of recalled texts kept in memory while the cipher holds its own keys (default 64 MiB;
   * 0 keeps none): a recall then reads and decrypts each memory once.
   */
  textCacheBytes?: number;
  /**
   * Bytes the namespaces' lexical indexes may take (default 512 MiB): past it the least recently
   * used are let go, and a namespace whose memories fill half of it takes no new memory (507).
   */
  lexiconBytes?: number;
  /** Sponsored transactions per client address per minute (default 30). */
  sponsorRatePerMinute?: number;
  /**
   * Bytes held by bodies not yet authenticated (read before their signature is checked, or of
   * public routes), across all clients (default 32 MiB); past it, 503 `server_busy`.
   */
  bodyBudgetBytes?: number;
  /** The same, per client address (default 8 MiB); past it, 429 `rate_limited`. */
  bodyBudgetPerAddressBytes?: number;
  /** The time a request body has to arrive in full once it is read (default 10 s; then 408). */
  bodyTimeoutMs?: number;
  /** Failed authentications per client address per minute before 429 (default 30). */
  authFailuresPerMinute?: number;
  /**
   * The embedder's work (bytes of text to embed) each delegate key and each account may ask for
   * through `/api/embed`, recall, analyze and ask; past it, 429 `rate_limited` (defaults: 256
   * KiB a second per key, 512 KiB per account, bursts of 4 seconds' worth). Its clock is `now`.
   */
  embedderBudget?: Omit<EmbedderBudgetOptions, "now">;
  /**
   * The bearer token `GET /metrics` requires from every client (`SVC_METRICS_TOKEN`); without
   * it, the metrics answer loopback clients only.
   */
  metricsToken?: string;
  /** The relayer's state: the access log and the lifecycle records are kept in it unless given. */
  state?: StateStore;
  /**
   * Where the job queue keeps its texts' keys: recording a memory erased erases its job's key
   * there, so what the queue still holds of the text no longer opens.
   */
  jobTextKeys?: KeyStore;
  /** Where the owners' access logs are kept (default: in `state`). */
  accessLogStore?: AccessLogStore;
  /** The erased memories and the expiry schedule (default: in `state`). */
  records?: LifecycleRecordStore;
  /** Which update holds the memory it replaces (default: in this process's memory). */
  updateClaims?: UpdateClaims;
  /** Which job is storing a text (default: in this process's memory). */
  textClaims?: TextClaims;
  /** Days an access-log entry is kept (default 90); older ones are pruned hourly. */
  accessLogDays?: number;
  /**
   * The data directory's free space (the application watches it): while it is low, the routes that store
   * memories answer 503 (`reason: "disk_full"`), the worker takes no job (they wait, pending)
   * and `/health` says `writes: "refused"`. When it tells the room above the floor (a
   * `DiskRoom`), the jobs accepted and not yet written are charged against it (`disk_backlog.ts`).
   */
  diskSpace?: { readonly low: boolean; refusal(): SvcError | undefined } & Partial<DiskRoom>;
}
