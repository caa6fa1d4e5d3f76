/**
 * Configuration from environment variables, typed and checked; every problem is reported at
 * once. Each backend's choice is a tagged union carrying the settings that backend needs, and
 * the network plugins read their own settings (`plugins/{sui,seal,walrus}/settings.ts`). The
 * configuration page (docs/configuration.md) lists the same variables.
 */
import { isHostEntry, isHttpUrl, LOOPBACK_HOSTS } from "@svc/relayer/http";
import { SettingsReader, shown } from "@svc/relayer/kit";
import { readSuiSettings } from "@svc/sui/settings";
import { readSealSettings } from "@svc/seal/settings";
import { readWalrusSettings } from "@svc/walrus/settings";
import { readRecommendedOnnxSettings } from "@svc/onnx-embedder/settings";
import { readOllamaSettings } from "@svc/ollama/settings";
import { readOpenAiSettings } from "@svc/openai/settings";
import { embedderPlugin, EMBEDDERS } from "./embedders.ts";
import type {
  BlobStoreConfig,
  ChainConfig,
  CipherConfig,
  Config,
  ConfigResult,
  EmbedderConfig,
  LlmConfig,
  StoreConfig,
  VectorStoreConfig,
} from "./config_types.ts";
import type { MasterKeySource } from "./master_key.ts";

export type * from "./config_types.ts";

/**
 * What the PostgreSQL client reads besides the URL (`PGPASSWORD`, `PGUSER`, `PGSSL`, …): the
 * relayer passes these on to the sidecar too.
 */
export const POSTGRES_ENV = /^PG[A-Z_]+$/;

/** Environment variables the relayer passes on to the sidecar it starts. */
export const SIDECAR_ENV = [
  "SIDECAR_URL",
  "SVC_DATA_DIR",
  // The local ledger the sponsor records in: in the shared database with SVC_STORE=postgres.
  "SVC_STORE",
  "SVC_DATABASE_URL",
  "SVC_MASTER_KEY",
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

function readSidecarUrl(read: SettingsReader): URL {
  const raw = read.text("SIDECAR_URL") ?? "http://localhost:9000";
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol === "http:" && LOOPBACK_HOSTS.includes(url.hostname) && url.port) return url;
  read.problem(
    `SIDECAR_URL must be an http URL on a loopback host with a port, such as ` +
      `http://localhost:9000 (got ${shown(raw)})`,
  );
  return new URL("http://localhost:9000");
}

function readAllowedOrigins(read: SettingsReader): string[] {
  const origins = read.list("SVC_ALLOWED_ORIGINS");
  for (const origin of origins) {
    if (!URL.canParse(origin) || new URL(origin).origin !== origin) {
      read.problem(
        `SVC_ALLOWED_ORIGINS must list origins such as https://app.example (got ${shown(origin)})`,
      );
    }
  }
  return origins;
}

function readPublicUrls(read: SettingsReader): string[] {
  const origins: string[] = [];
  for (const entry of read.list("SVC_PUBLIC_URL")) {
    const url = isHttpUrl(entry) ? new URL(entry) : undefined;
    if (!url || url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
      read.problem(
        `SVC_PUBLIC_URL must list origins such as https://svc.example, without a path ` +
          `(got ${shown(entry)})`,
      );
    } else origins.push(url.origin);
  }
  return origins;
}

function readAllowedHosts(read: SettingsReader): string[] | undefined {
  const hosts = read.list("SVC_ALLOWED_HOSTS");
  for (const host of hosts.filter((entry) => !isHostEntry(entry))) {
    read.problem(
      `SVC_ALLOWED_HOSTS must list host names, with an optional port, such as svc.example or ` +
        `svc.example:8443, or be * (got ${shown(host)})`,
    );
  }
  return hosts.length ? hosts : undefined;
}

/**
 * Where the master key's file is (`SVC_MASTER_KEY_FILE`, `SVC_KEYS_DIR`): by default in the
 * user's configuration directory, else (no home) a directory beside the data directory; never
 * inside it.
 */
export function masterKeyFileOf(
  env: Record<string, string | undefined>,
  dataDir: string,
): Omit<MasterKeySource, "hex"> {
  const config = env.XDG_CONFIG_HOME || (env.HOME && `${env.HOME}/.config`);
  return {
    file: env.SVC_MASTER_KEY_FILE || undefined,
    keysDir: env.SVC_KEYS_DIR ||
      (config ? `${config}/svc/keys` : `${dataDir.replace(/\/+$/, "")}-keys`),
  };
}

/** The values of `SVC_EMBEDDER`. */
export const EMBEDDER_KINDS: readonly string[] = [...EMBEDDERS.keys()];

function readEmbedder(read: SettingsReader, modelsDir: string, store: StoreConfig): EmbedderConfig {
  if (read.text("SVC_EMBEDDER") === undefined && read.text("SVC_REINDEX") === "1") {
    read.problem(
      "SVC_REINDEX=1 needs SVC_EMBEDDER, the embedder to rebuild the index for (without it a " +
        "start keeps the embedder the index was built with)",
    );
  }
  const kind = read.choice("SVC_EMBEDDER", "use", EMBEDDER_KINDS);
  const settings = embedderPlugin(kind).settings(read, { modelsDir });
  // Without SVC_EMBEDDER in embedded mode, a new data directory tries the recommended model.
  const chosen = read.text("SVC_EMBEDDER") !== undefined || store.kind === "postgres";
  if (kind !== "use" || chosen) return { kind, settings, modelsDir };
  return { kind, settings, modelsDir, recommended: readRecommendedOnnxSettings(read, modelsDir) };
}

/**
 * Each embedder plugin's settings as `env` gives them, as if it were chosen (`undefined` where
 * they would be refused): for opening the embedder an index was built with.
 */
function embedderSettings(env: Record<string, string | undefined>, modelsDir: string) {
  return Object.fromEntries([...EMBEDDERS].map(([kind, plugin]) => {
    const read = new SettingsReader(env);
    const settings = plugin.settings(read, { modelsDir });
    return [kind, read.problems.length === 0 ? settings : undefined];
  }));
}

function readLlm(read: SettingsReader): LlmConfig {
  const kind = read.choice("SVC_LLM", "local", ["local", "ollama", "openai", "none"]);
  switch (kind) {
    case "local":
    case "none":
      return { kind };
    case "ollama":
      return { kind, ollama: readOllamaSettings(read, "SVC_LLM_MODEL") };
    case "openai":
      return { kind, openai: readOpenAiSettings(read, "SVC_LLM_MODEL") };
  }
}

function readVectorStore(read: SettingsReader): VectorStoreConfig {
  const kind = read.choice("SVC_VECTOR_STORE", "encrypted", ["encrypted", "lancedb", "memory"]);
  if (kind !== "encrypted") return { kind };
  return {
    kind,
    memoryMb: read.integer("SVC_INDEX_MEMORY_MB", 512, 16, 1_048_576),
    importLanceDb: read.text("SVC_VECTOR_STORE") === undefined,
  };
}

function readChain(read: SettingsReader): ChainConfig {
  const kind = read.choice("SVC_CHAIN", "local", ["local", "sui"]);
  return kind === "sui" ? { kind, sui: readSuiSettings(read) } : { kind };
}

function readCipher(read: SettingsReader, chain: ChainConfig): CipherConfig {
  const kind = read.choice("SVC_CIPHER", "local", ["local", "seal"]);
  if (kind === "local") {
    return { kind, ...read.choice("SVC_KEYS_LOST", "0", ["0", "1"]) === "1" && { keysLost: true } };
  }
  if (chain.kind !== "sui") {
    read.problem("SVC_CIPHER=seal needs SVC_CHAIN=sui (its policy reads the account on Sui)");
  }
  return { kind, seal: readSealSettings(read) };
}

/** The `sslmode`s the PostgreSQL client honours. */
const SSL_MODES = ["disable", "prefer", "require", "verify-full"];
/** libpq's parameters naming files, which the PostgreSQL client does not read. */
const FILE_PARAMETERS = ["sslrootcert", "sslcert", "sslkey"];

/** What is wrong with a PostgreSQL URL, or `undefined`; the URL itself is never repeated. */
function databaseUrlProblem(url: string): string | undefined {
  const escapes = "percent-encode the user's and password's special characters (@ as %40, " +
    "# as %23, / as %2F, ? as %3F, % as %25)";
  if (!/^postgres(ql)?:\/\//.test(url)) return "must start with postgres:// or postgresql://";
  // The PostgreSQL client accepts several hosts (h1:5432,h2:5432); the first stands for them.
  const authority = url.slice(url.indexOf("://") + 3).split(/[?/]/)[0];
  const hosts = authority.slice(authority.lastIndexOf("@") + 1);
  const first = url.replace(hosts, hosts.split(",")[0]);
  if (!URL.canParse(first)) {
    return `cannot be read as a URL: check the host and port, and ${escapes}`;
  }
  const { hash, username, password, pathname, search, searchParams } = new URL(first);
  // A password's unescaped # or / or ? ends the host early: the rest reads as a path.
  if (hash || (pathname + search).includes("@")) {
    return `has a # / or ? in its password: ${escapes}`;
  }
  const sslmode = searchParams.get("sslmode");
  if (sslmode !== null && !SSL_MODES.includes(sslmode)) {
    return `has sslmode=${sslmode.slice(0, 20)}: it takes ${SSL_MODES.join(", ")}`;
  }
  const files = FILE_PARAMETERS.filter((name) => searchParams.has(name));
  if (files.length > 0) {
    return `names ${
      files.join(", ")
    }, which are not read: see "Deployment guide" in docs/operations.md`;
  }
  try {
    decodeURIComponent(username);
    decodeURIComponent(password);
  } catch {
    return `has a malformed %-escape in its user or password: ${escapes}`;
  }
}

function readStore(read: SettingsReader): StoreConfig {
  const kind = read.choice("SVC_STORE", "embedded", ["embedded", "postgres"]);
  if (kind === "embedded") {
    // Else the relayer, or `svc account`, would quietly use the data directory instead.
    if (read.text("SVC_DATABASE_URL")) {
      read.problem(
        "SVC_DATABASE_URL is set but SVC_STORE is not postgres: set SVC_STORE=postgres to keep " +
          "the state in that database, or unset SVC_DATABASE_URL",
      );
    }
    return { kind };
  }
  const url = read.text("SVC_DATABASE_URL") ?? "";
  const wrong = url && databaseUrlProblem(url);
  if (!url) {
    read.problem(
      "SVC_STORE=postgres needs SVC_DATABASE_URL, such as postgres://svc@db.example:5432/svc",
    );
  } else if (wrong) {
    // The value may carry a password: it is not repeated.
    read.problem(`SVC_DATABASE_URL ${wrong} (its value is not shown: it may hold a password)`);
  }
  if (!read.text("SVC_MASTER_KEY")) {
    read.problem(
      "SVC_STORE=postgres needs SVC_MASTER_KEY: every relayer on the database must hold the " +
        "same master key (generate one with `openssl rand -hex 32`)",
    );
  }
  if (!["encrypted", undefined].includes(read.text("SVC_VECTOR_STORE"))) {
    read.problem(
      "SVC_STORE=postgres keeps the encrypted index in the database: unset SVC_VECTOR_STORE",
    );
  }
  if (read.text("SVC_REINDEX") === "1") {
    read.problem(
      "SVC_REINDEX=1 does not work with SVC_STORE=postgres yet: the relayers would have to switch " +
        "indexes together. Keep the embedder the index was built with",
    );
  }
  return { kind, url, pool: read.integer("SVC_DATABASE_POOL", 10, 2, 1000) };
}

function readBlobStore(
  read: SettingsReader,
  chain: ChainConfig,
  store: StoreConfig,
): BlobStoreConfig {
  const shared = store.kind === "postgres";
  if (read.text("SVC_BLOB_STORE") === "fs") {
    read.problem(
      "SVC_BLOB_STORE=fs is no longer offered: the relayer moves a data directory's blob files " +
        "into blobs/blobs.sqlite by itself; unset SVC_BLOB_STORE, or set it to sqlite",
    );
    return { kind: "sqlite" };
  }
  const kind = read.choice("SVC_BLOB_STORE", shared ? "postgres" : "sqlite", [
    "sqlite",
    "postgres",
    "walrus",
  ]);
  if (kind === "postgres" && !shared) {
    read.problem("SVC_BLOB_STORE=postgres needs SVC_STORE=postgres");
  }
  if (kind === "sqlite" && shared) {
    read.problem(
      "SVC_STORE=postgres cannot keep blobs in the data directory, which the relayers do not " +
        "share: use SVC_BLOB_STORE=postgres (the default) or walrus",
    );
  }
  if (kind !== "walrus") return { kind };
  const walrus = readWalrusSettings(read);
  if (chain.kind === "sui" && walrus.ownerKey === chain.sui.sponsorPrivateKey) {
    read.problem(
      "SVC_WALRUS_OWNER_KEY must differ from SVC_SPONSOR_PRIVATE_KEY: the sponsor and the blob " +
        "store run in two processes and would spend the same gas coins",
    );
  }
  return { kind, walrus };
}

/**
 * Reads the configuration from `env` (for example `Deno.env.toObject()`) with `read`, a reader
 * of `env` (the docs' generator passes its own, to see the defaults).
 */
export function readConfig(
  env: Record<string, string | undefined>,
  read: SettingsReader = new SettingsReader(env),
): ConfigResult {
  const dataDir = read.text("SVC_DATA_DIR") ?? "./data";
  const chain = readChain(read);
  const store = readStore(read);
  // Where downloaded models are kept.
  const modelsDir = read.text("SVC_MODELS_DIR") ?? `${dataDir}/models`;
  // Shared by many relayers, a job a dead relayer held is taken over once its lease runs out.
  const leaseSeconds = store.kind === "postgres" ? 30 : 120;
  const config: Config = {
    host: read.matching(
      "SVC_HOST",
      /^([0-9a-z-]+\.)*[0-9a-z-]+$|^[0-9a-f:.]*:[0-9a-f:.]*$/i,
      `SVC_HOST must be an IP address or host name of this machine, such as 127.0.0.1 or ` +
        `0.0.0.0 (got ${shown(read.text("SVC_HOST") ?? "")})`,
    ) ?? "127.0.0.1",
    port: read.integer("SVC_PORT", 8000, 0, 65535),
    dataDir,
    store,
    chain,
    cipher: readCipher(read, chain),
    blobStore: readBlobStore(read, chain, store),
    vectorStore: readVectorStore(read),
    embedder: readEmbedder(read, modelsDir, store),
    reindex: {
      enabled: read.choice("SVC_REINDEX", "0", ["0", "1"]) === "1",
      keepIndexEmbedder: read.text("SVC_EMBEDDER") === undefined,
      ratePerSecond: read.integer("SVC_REINDEX_RATE", 0, 0, 1_000_000),
      modelsDir,
      embedders: embedderSettings(env, modelsDir),
    },
    llm: readLlm(read),
    masterKey: {
      hex: read.matching(
        "SVC_MASTER_KEY",
        /^[0-9a-f]{64}$/,
        "SVC_MASTER_KEY must be 64 lowercase hex characters (32 bytes)",
      ),
      ...masterKeyFileOf(env, dataDir),
    },
    logLevel: read.choice("SVC_LOG_LEVEL", "info", ["debug", "info", "warn", "error"]),
    concurrency: read.integer("SVC_WORKER_CONCURRENCY", 2, 1, 256),
    batchSize: read.integer("SVC_WORKER_BATCH", 64, 1, 1024),
    callTimeoutMs: read.integer("SVC_CALL_TIMEOUT_MS", 30_000, 100, 600_000),
    maxAttempts: read.integer("SVC_JOB_MAX_ATTEMPTS", 5, 1, 100),
    jobLeaseSeconds: read.integer("SVC_JOB_LEASE_SECONDS", leaseSeconds, 5, 3600),
    sidecarUrl: readSidecarUrl(read),
    trustProxy: read.choice("SVC_TRUST_PROXY", "0", ["0", "1"]) === "1",
    allowedOrigins: readAllowedOrigins(read),
    mcpMaxTotalSessions: read.integer("MCP_MAX_TOTAL_SESSIONS", 1000, 1, 1_000_000),
    mcpMaxSessionsPerKey: read.integer("MCP_MAX_SESSIONS_PER_KEY", 16, 1, 1_000_000),
    mcpMaxSessionsPerIp: read.integer("MCP_MAX_SESSIONS_PER_IP", 16, 1, 1_000_000),
    mcpMaxNewSessionsPerIpPerMin: read.integer(
      "MCP_MAX_NEW_SESSIONS_PER_IP_PER_MIN",
      30,
      1,
      1_000_000,
    ),
    mcpSessionIdleMinutes: read.integer("MCP_SESSION_IDLE_MINUTES", 30, 1, 10_080),
    mcpWaitMs: read.integer("SVC_MCP_WAIT_MS", 20_000, 0, 600_000),
    textCacheMb: read.integer("SVC_TEXT_CACHE_MB", 64, 0, 1_048_576),
    lexiconMb: read.integer("SVC_LEXICON_MEMORY_MB", 512, 16, 1_048_576),
    sponsorRatePerMinute: read.integer("SVC_SPONSOR_RATE_PER_MIN", 30, 1, 1_000_000),
    bodyBudgetMb: read.integer("SVC_BODY_BUDGET_MB", 32, 5, 65_536),
    bodyBudgetPerAddressMb: read.integer("SVC_BODY_BUDGET_PER_ADDRESS_MB", 8, 5, 65_536),
    bodyTimeoutSeconds: read.integer("SVC_BODY_TIMEOUT_SECONDS", 10, 1, 3600),
    stopDrainSeconds: read.integer("SVC_STOP_DRAIN_SECONDS", 0, 0, 300),
    authFailuresPerMinute: read.integer("SVC_AUTH_FAILURES_PER_MIN", 30, 1, 1_000_000),
    embedKeyKbPerSecond: read.integer("SVC_EMBED_KEY_KB_PER_SEC", 256, 1, 1_048_576),
    embedAccountKbPerSecond: read.integer("SVC_EMBED_ACCOUNT_KB_PER_SEC", 512, 1, 1_048_576),
    embedBurstSeconds: read.integer("SVC_EMBED_BURST_SECONDS", 4, 1, 3600),
    dashboardPort: read.integer("SVC_DASHBOARD_PORT", 5173, 0, 65535),
    accountCacheSeconds: read.integer("SVC_ACCOUNT_CACHE_SECONDS", 60, 0, 3600),
    publicUrls: readPublicUrls(read),
    requireAudience: read.choice("SVC_REQUIRE_AUDIENCE", "0", ["0", "1"]) === "1",
    allowedHosts: readAllowedHosts(read),
    metricsToken: read.matching(
      "SVC_METRICS_TOKEN",
      /^[\x21-\x7e]{16,256}$/,
      "SVC_METRICS_TOKEN must be 16 to 256 printable ASCII characters without spaces",
    ),
    accessLogDays: read.integer("SVC_ACCESS_LOG_DAYS", 90, 1, 36_500),
    minFreeMb: read.integer("SVC_MIN_FREE_MB", 64, 0, 1_048_576),
  };
  if (config.port !== 0 && config.port === config.dashboardPort) {
    read.problem(`SVC_DASHBOARD_PORT must differ from SVC_PORT (both are ${config.port})`);
  }
  return read.problems.length ? { ok: false, problems: read.problems } : { ok: true, config };
}
