/**
 * The relayer's configuration as `readConfig` (in `config.ts`) returns it: each backend's choice
 * is a tagged union carrying the settings that backend needs.
 */
import type { OllamaSettings } from "@svc/ollama/settings";
import type { OpenAiSettings } from "@svc/openai/settings";
import type { LogLevel } from "@svc/relayer/kit";
import type { SuiSettings } from "@svc/sui/settings";
import type { SealSettings } from "@svc/seal/settings";
import type { WalrusSettings } from "@svc/walrus/settings";
import type { OnnxSettings } from "@svc/onnx-embedder/settings";
import type { MasterKeySource } from "./master_key.ts";

/** Where accounts and delegate keys live. */
export type ChainConfig = { kind: "local" } | { kind: "sui"; sui: SuiSettings };
/** How memory text is encrypted. */
export type CipherConfig =
  | {
    kind: "local";
    /** `SVC_KEYS_LOST=1`: start without the key store (`keys.sqlite`) the data directory had. */
    keysLost?: boolean;
  }
  | { kind: "seal"; seal: SealSettings };
/** Where ciphertext is stored. */
export type BlobStoreConfig =
  | { kind: "sqlite" }
  | { kind: "postgres" }
  | { kind: "walrus"; walrus: WalrusSettings };
/**
 * Where the relayer's shared state lives (jobs, replay guard, ledger, index, access log):
 * files in the data directory, for one relayer, or one PostgreSQL database that many share.
 */
export type StoreConfig =
  | { kind: "embedded" }
  | {
    kind: "postgres";
    /** `SVC_DATABASE_URL`: never logged, since it may carry a password. */
    url: string;
    /** `SVC_DATABASE_POOL`: connections this relayer opens at most. */
    pool: number;
  };
/** Where memory vectors are indexed. */
export type VectorStoreConfig =
  | {
    kind: "encrypted";
    /** `SVC_INDEX_MEMORY_MB`: memory for decrypted namespaces. */
    memoryMb: number;
    /** `SVC_VECTOR_STORE` unset: an old `lancedb` index is imported once. */
    importLanceDb: boolean;
  }
  | { kind: "lancedb" }
  | { kind: "memory" };

/** The embedder: the plugin `SVC_EMBEDDER` chooses (`app/embedders.ts`) and its settings. */
export interface EmbedderConfig {
  kind: string;
  settings: unknown;
  /** `SVC_MODELS_DIR`: where downloaded models are kept (the GloVe re-ranker's words too). */
  modelsDir: string;
  /**
   * `SVC_EMBEDDER` unset in embedded mode: the recommended ONNX model, which a new data
   * directory chooses instead where the model hub answers (`default_embedder.ts`).
   */
  recommended?: OnnxSettings;
}
/** Whether a start whose embedder differs from the index's rebuilds the index, and how fast. */
export interface ReindexConfig {
  /** `SVC_REINDEX=1`: build the new index in the background while serving from the old one. */
  enabled: boolean;
  /**
   * `SVC_EMBEDDER` unset: a start without `SVC_REINDEX=1` serves with the embedder the index was
   * built with, when this relayer can open it, rather than refusing.
   */
  keepIndexEmbedder: boolean;
  /** `SVC_REINDEX_RATE`: at most this many memories a second (0: no limit). */
  ratePerSecond: number;
  /** `SVC_MODELS_DIR`: where the offline embedder's cache is, should it be the previous one. */
  modelsDir: string;
  /**
   * Each embedder plugin's settings as the configuration gives them, as if it were chosen: for
   * opening the embedder an index was built with (the Ollama host, the OpenAI-compatible API).
   */
  embedders: Record<string, unknown>;
}
export type LlmConfig =
  | { kind: "local" }
  | { kind: "none" }
  | { kind: "ollama"; ollama: OllamaSettings }
  | { kind: "openai"; openai: OpenAiSettings };

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  store: StoreConfig;
  chain: ChainConfig;
  cipher: CipherConfig;
  blobStore: BlobStoreConfig;
  vectorStore: VectorStoreConfig;
  embedder: EmbedderConfig;
  /** `SVC_REINDEX`, `SVC_REINDEX_RATE`: rebuilding the index for a new embedder at start. */
  reindex: ReindexConfig;
  llm: LlmConfig;
  /**
   * `SVC_MASTER_KEY` (the relayer's secret as hex), else `SVC_MASTER_KEY_FILE` or the keys
   * directory (`SVC_KEYS_DIR`) where the data directory's key file is (`master_key.ts`).
   */
  masterKey: MasterKeySource;
  logLevel: LogLevel;
  /** Batches of remember jobs the worker runs at once. */
  concurrency: number;
  /** Remember jobs a batch takes at most. */
  batchSize: number;
  callTimeoutMs: number;
  maxAttempts: number;
  /** `SVC_JOB_LEASE_SECONDS`: how long a worker holds a job it stopped renewing. */
  jobLeaseSeconds: number;
  /** Loopback address of the MCP sidecar. */
  sidecarUrl: URL;
  trustProxy: boolean;
  allowedOrigins: string[];
  mcpMaxTotalSessions: number;
  mcpMaxSessionsPerKey: number;
  /** `MCP_MAX_SESSIONS_PER_IP`: open MCP sessions per client address, loopback aside. */
  mcpMaxSessionsPerIp: number;
  mcpMaxNewSessionsPerIpPerMin: number;
  mcpSessionIdleMinutes: number;
  mcpWaitMs: number;
  /** Recalled texts kept in memory (local cipher only). */
  textCacheMb: number;
  /** The namespaces' lexical indexes, in all (a namespace that fills half of it takes no more). */
  lexiconMb: number;
  sponsorRatePerMinute: number;
  /** Bytes of unauthenticated request bodies held at once, in all and per client address. */
  bodyBudgetMb: number;
  bodyBudgetPerAddressMb: number;
  /** The time a request body has to arrive in full. */
  bodyTimeoutSeconds: number;
  /** How long a stopping relayer answers `/health` 503 while serving, before it stops. */
  stopDrainSeconds: number;
  /** Failed authentications per client address per minute before 429. */
  authFailuresPerMinute: number;
  /** KiB of text to embed one delegate key, and one account, may ask for per second. */
  embedKeyKbPerSecond: number;
  embedAccountKbPerSecond: number;
  /** Seconds of those rates a caller may ask for at once. */
  embedBurstSeconds: number;
  /** Port of the local-mode dashboard. */
  dashboardPort: number;
  accountCacheSeconds: number;
  /** `SVC_PUBLIC_URL`: the origins clients reach the relayer at (behind a proxy). */
  publicUrls: string[];
  /** `SVC_REQUIRE_AUDIENCE=1`: refuse version 1 signatures. */
  requireAudience: boolean;
  /** `SVC_ALLOWED_HOSTS`; absent: the loopback names, the public URLs' hosts, the bound host. */
  allowedHosts?: string[];
  /** `SVC_METRICS_TOKEN`: the bearer token of `GET /metrics`; absent, loopback clients only. */
  metricsToken?: string;
  /** `SVC_ACCESS_LOG_DAYS`: days an access-log entry is kept. */
  accessLogDays: number;
  /** `SVC_MIN_FREE_MB`: the free space the data directory's disk keeps; below it, writes wait. */
  minFreeMb: number;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };
