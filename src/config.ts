/**
 * Configuration from environment variables, typed and checked; every problem is reported at
 * once. The README's configuration table lists the same variables.
 */
import type { LogLevel } from "./log.ts";
import { type NetworkConfig, readNetworkConfig } from "./network_config.ts";

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  chain: "local" | "sui";
  cipher: "local" | "seal";
  blobStore: "fs" | "walrus";
  /** Sui, Seal and Walrus settings (network mode). */
  network: NetworkConfig;
  vectorStore: "lancedb" | "memory";
  embedder: "local" | "lexical" | "ollama" | "openai";
  /** Where the offline embedder keeps its converted word vectors. */
  modelsDir: string;
  llm: "local" | "ollama" | "openai" | "none";
  /** The Ollama server; the plugin's default (`http://127.0.0.1:11434`) when absent. */
  ollamaHost?: string;
  openaiApiKey?: string;
  openaiBaseUrl?: string;
  /** Model names for the remote providers (each has its own default). */
  embedModel?: string;
  llmModel?: string;
  llmTimeoutMs: number;
  masterKeyHex?: string;
  logLevel: LogLevel;
  concurrency: number;
  callTimeoutMs: number;
  maxAttempts: number;
  /** Loopback address of the MCP sidecar. */
  sidecarUrl: URL;
  trustProxy: boolean;
  allowedOrigins: string[];
  mcpMaxTotalSessions: number;
  mcpMaxSessionsPerKey: number;
  mcpMaxNewSessionsPerIpPerMin: number;
  mcpSessionIdleMinutes: number;
  mcpWaitMs: number;
  sponsorRatePerMinute: number;
  /** Port of the local-mode dashboard. */
  dashboardPort: number;
  accountCacheSeconds: number;
}

/** Environment variables the relayer passes on to the sidecar it starts. */
export const SIDECAR_ENV = [
  "SIDECAR_URL",
  "SVC_DATA_DIR",
  "SVC_CHAIN",
  "SVC_CIPHER",
  "SVC_ALLOWED_ORIGINS",
  "SVC_LOG_LEVEL",
  "MCP_MAX_TOTAL_SESSIONS",
  "MCP_MAX_SESSIONS_PER_KEY",
  "MCP_MAX_SESSIONS_PER_IP",
  "MCP_MAX_NEW_SESSIONS_PER_IP_PER_MIN",
  "MCP_SESSION_IDLE_MINUTES",
  "SVC_MCP_WAIT_MS",
  // Network mode: the sponsor runs in the sidecar; Seal's settings are checked there too.
  "SVC_SUI_RPC_URL",
  "SVC_PACKAGE_ID",
  "SVC_REGISTRY_ID",
  "SVC_SPONSOR_PRIVATE_KEY",
  "SVC_SEAL_KEY_SERVERS",
  "SVC_SEAL_THRESHOLD",
];

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/** Reads the configuration from `env` (for example `Deno.env.toObject()`). */
export function readConfig(env: Record<string, string | undefined>): ConfigResult {
  const problems: string[] = [];

  function choice<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const value = env[name] ?? fallback;
    if ((allowed as readonly string[]).includes(value)) return value as T;
    problems.push(`${name} must be one of ${allowed.join(", ")} (got "${value}")`);
    return fallback;
  }

  function integer(name: string, fallback: number, min: number, max: number): number {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!/^[0-9]+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  }

  const masterKeyHex = env.SVC_MASTER_KEY || undefined;
  if (masterKeyHex !== undefined && !/^[0-9a-f]{64}$/.test(masterKeyHex)) {
    problems.push("SVC_MASTER_KEY must be 64 lowercase hex characters (32 bytes)");
  }
  let sidecarUrl = new URL("http://localhost:9000");
  try {
    sidecarUrl = new URL(env.SIDECAR_URL || sidecarUrl.href);
    if (sidecarUrl.protocol !== "http:" || !LOOPBACK.has(sidecarUrl.hostname) || !sidecarUrl.port) {
      throw new Error("not loopback");
    }
  } catch {
    problems.push(
      `SIDECAR_URL must be an http URL on a loopback host with a port, such as ` +
        `http://localhost:9000 (got "${env.SIDECAR_URL}")`,
    );
  }
  const allowedOrigins = (env.SVC_ALLOWED_ORIGINS ?? "").split(",").map((o) => o.trim())
    .filter(Boolean);
  for (const origin of allowedOrigins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      problems.push(
        `SVC_ALLOWED_ORIGINS must list origins such as https://app.example (got "${origin}")`,
      );
    }
  }
  const chain = choice("SVC_CHAIN", "local", ["local", "sui"] as const);
  const cipher = choice("SVC_CIPHER", "local", ["local", "seal"] as const);
  const blobStore = choice("SVC_BLOB_STORE", "fs", ["fs", "walrus"] as const);
  const config: Config = {
    host: env.SVC_HOST || "127.0.0.1",
    port: integer("SVC_PORT", 8000, 0, 65535),
    dataDir: env.SVC_DATA_DIR || "./data",
    chain,
    cipher,
    blobStore,
    network: readNetworkConfig(env, { chain, cipher, blobStore }, problems, integer),
    vectorStore: choice("SVC_VECTOR_STORE", "lancedb", ["lancedb", "memory"] as const),
    embedder: choice("SVC_EMBEDDER", "local", ["local", "lexical", "ollama", "openai"] as const),
    modelsDir: env.SVC_MODELS_DIR || `${env.SVC_DATA_DIR || "./data"}/models`,
    llm: choice("SVC_LLM", "local", ["local", "ollama", "openai", "none"] as const),
    ollamaHost: env.OLLAMA_HOST || undefined,
    openaiApiKey: env.OPENAI_API_KEY || undefined,
    openaiBaseUrl: env.OPENAI_BASE_URL || undefined,
    embedModel: env.SVC_EMBED_MODEL || undefined,
    llmModel: env.SVC_LLM_MODEL || undefined,
    llmTimeoutMs: integer("SVC_LLM_TIMEOUT_MS", 60_000, 1000, 600_000),
    masterKeyHex,
    logLevel: choice("SVC_LOG_LEVEL", "info", ["debug", "info", "warn", "error"] as const),
    concurrency: integer("SVC_WORKER_CONCURRENCY", 4, 1, 256),
    callTimeoutMs: integer("SVC_CALL_TIMEOUT_MS", 30_000, 100, 600_000),
    maxAttempts: integer("SVC_JOB_MAX_ATTEMPTS", 5, 1, 100),
    sidecarUrl,
    trustProxy: choice("SVC_TRUST_PROXY", "0", ["0", "1"] as const) === "1",
    allowedOrigins,
    mcpMaxTotalSessions: integer("MCP_MAX_TOTAL_SESSIONS", 1000, 1, 1_000_000),
    // Sessions are counted per key; the specification's per-address name is read as a fallback.
    mcpMaxSessionsPerKey: env.MCP_MAX_SESSIONS_PER_KEY
      ? integer("MCP_MAX_SESSIONS_PER_KEY", 16, 1, 1_000_000)
      : integer("MCP_MAX_SESSIONS_PER_IP", 16, 1, 1_000_000),
    mcpMaxNewSessionsPerIpPerMin: integer("MCP_MAX_NEW_SESSIONS_PER_IP_PER_MIN", 30, 1, 1_000_000),
    mcpSessionIdleMinutes: integer("MCP_SESSION_IDLE_MINUTES", 30, 1, 10_080),
    mcpWaitMs: integer("SVC_MCP_WAIT_MS", 20_000, 0, 600_000),
    sponsorRatePerMinute: integer("SVC_SPONSOR_RATE_PER_MIN", 30, 1, 1_000_000),
    dashboardPort: integer("SVC_DASHBOARD_PORT", 5173, 0, 65535),
    accountCacheSeconds: integer("SVC_ACCOUNT_CACHE_SECONDS", 60, 0, 3600),
  };
  for (
    const [name, value] of [["OLLAMA_HOST", config.ollamaHost], [
      "OPENAI_BASE_URL",
      config.openaiBaseUrl,
    ]]
  ) {
    if (value !== undefined && !/^https?:\/\//.test(value)) {
      problems.push(`${name} must be an http(s) URL (got "${value}")`);
    }
  }
  const usesOpenAi = config.embedder === "openai" || config.llm === "openai";
  if (usesOpenAi && !config.openaiApiKey && !config.openaiBaseUrl) {
    problems.push(
      "SVC_EMBEDDER/SVC_LLM=openai needs OPENAI_API_KEY (or OPENAI_BASE_URL for a local server)",
    );
  }
  return problems.length ? { ok: false, problems } : { ok: true, config };
}
