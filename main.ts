/**
 * Composition root: environment → configuration → backends → relayer → HTTP server.
 * `deno task start` runs it; the embedded default needs no network.
 */
import { readConfig, SIDECAR_ENV } from "./src/config.ts";
import { createLogger } from "./src/log.ts";
import { createRelayer } from "./src/relayer.ts";
import { LOCAL_PACKAGE_ID, LocalLedger } from "./src/chain/local_ledger.ts";
import type {
  AccountDirectory,
  BlobStore,
  Cipher,
  Embedder,
  Llm,
  VectorStore,
} from "./src/backends/types.ts";
import { MemoryVectorStore } from "./src/backends/memory.ts";
import { SvcError } from "./src/errors.ts";
import { SidecarSupervisor } from "./src/sidecar/supervisor.ts";
import type { GloveEmbedder } from "./plugins/glove_embedder/mod.ts";

const result = readConfig(Deno.env.toObject());
if (!result.ok) {
  console.error(
    "svc: invalid configuration:\n" + result.problems.map((p) => `  - ${p}`).join("\n"),
  );
  Deno.exit(2);
}
const config = result.config;
const logger = createLogger(config.logLevel);

/** A start-up failure whose message is the whole story (no stack, no error type). */
class CannotStart extends Error {}

/** `Deno.serve`, with a port already in use named, and the setting that moves it. */
function serve(
  what: string,
  setting: string,
  options: Deno.ServeTcpOptions,
  handler: Deno.ServeHandler<Deno.NetAddr>,
): Deno.HttpServer<Deno.NetAddr> {
  try {
    return Deno.serve(options, handler);
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    throw new CannotStart(
      `the ${what} cannot listen on ${options.hostname}:${options.port}: the port is in use ` +
        `(another svc relayer, or another program). Stop it, or choose another port with ${setting}.`,
    );
  }
}

/** `http://host:port`; a wildcard `hostname` is reached on this machine through loopback. */
function localUrl(hostname: string, port: number): string {
  const loopback = hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname;
  return `http://${loopback.includes(":") ? `[${loopback}]` : loopback}:${port}`;
}

/** The configured embedder; a remote one is asked once for its vector size. */
async function openEmbedder(): Promise<Embedder> {
  const remote = { model: config.embedModel, timeoutMs: config.llmTimeoutMs };
  if (config.embedder === "ollama") {
    const { OllamaEmbedder, DEFAULT_OLLAMA_EMBED_MODEL } = await import("./plugins/ollama/mod.ts");
    return await OllamaEmbedder.open({
      ...remote,
      host: config.ollamaHost,
      model: remote.model ?? DEFAULT_OLLAMA_EMBED_MODEL,
    });
  }
  if (config.embedder === "openai") {
    const { OpenAiEmbedder, DEFAULT_OPENAI_EMBED_MODEL } = await import("./plugins/openai/mod.ts");
    return await OpenAiEmbedder.open({
      ...remote,
      apiKey: config.openaiApiKey,
      baseURL: config.openaiBaseUrl,
      model: remote.model ?? DEFAULT_OPENAI_EMBED_MODEL,
    });
  }
  if (config.embedder === "lexical") {
    const { LexicalEmbedder } = await import("./plugins/lexical_embedder/mod.ts");
    return new LexicalEmbedder();
  }
  const { GloveEmbedder } = await import("./plugins/glove_embedder/mod.ts");
  return await GloveEmbedder.open({ cacheDir: config.modelsDir });
}

async function openLlm(): Promise<Llm | undefined> {
  const remote = { model: config.llmModel, timeoutMs: config.llmTimeoutMs };
  if (config.llm === "ollama") {
    const { OllamaLlm, DEFAULT_OLLAMA_LLM_MODEL } = await import("./plugins/ollama/mod.ts");
    return new OllamaLlm({
      ...remote,
      host: config.ollamaHost,
      model: remote.model ?? DEFAULT_OLLAMA_LLM_MODEL,
    });
  }
  if (config.llm === "openai") {
    const { OpenAiLlm, DEFAULT_OPENAI_LLM_MODEL } = await import("./plugins/openai/mod.ts");
    return new OpenAiLlm({
      ...remote,
      apiKey: config.openaiApiKey,
      baseURL: config.openaiBaseUrl,
      model: remote.model ?? DEFAULT_OPENAI_LLM_MODEL,
    });
  }
  if (config.llm === "local") {
    return new (await import("./plugins/local_llm/mod.ts")).LocalExtractiveLlm();
  }
  return undefined;
}

/** The account directory, cipher and blob store: the embedded ones, or Sui, Seal and Walrus. */
async function openAccountBackends(
  ledger: LocalLedger | undefined,
  masterKey: Uint8Array<ArrayBuffer>,
) {
  const net = config.network;
  let directory: AccountDirectory;
  if (ledger) directory = ledger;
  else {
    const { SuiAccountDirectory } = await import("./plugins/sui/mod.ts");
    directory = SuiAccountDirectory.open({
      rpcUrl: net.suiRpcUrl!,
      packageId: net.packageId!,
      registryId: net.registryId,
    });
  }
  let cipher: Cipher;
  if (config.cipher === "seal") {
    const { SealCipher } = await import("./plugins/seal/mod.ts");
    cipher = await SealCipher.open({
      rpcUrl: net.suiRpcUrl!,
      packageId: net.packageId!,
      registryId: net.registryId!,
      keyServers: net.sealKeyServers,
      threshold: net.sealThreshold,
      serverKey: net.sealServerKey,
    });
  } else {
    const { LocalCipher } = await import("./plugins/local_cipher/mod.ts");
    cipher = await LocalCipher.fromKey(masterKey);
  }
  let blobs: BlobStore;
  if (config.blobStore === "walrus") {
    const { WalrusBlobStore } = await import("./plugins/walrus/mod.ts");
    blobs = await WalrusBlobStore.open({
      publisherUrl: net.walrusPublisherUrl!,
      aggregatorUrls: net.walrusAggregatorUrls,
      epochs: net.walrusEpochs,
      cacheDir: `${config.dataDir}/walrus_cache`,
      rpcUrl: net.suiRpcUrl!,
      systemObjectId: net.walrusSystemObjectId,
      walrusPackageId: net.walrusPackageId,
      operatorKey: net.walrusOwnerKey!,
      publisherToken: net.walrusPublisherToken,
    });
  } else {
    const { FsBlobStore } = await import("./plugins/fs_blob/mod.ts");
    blobs = await FsBlobStore.open(`${config.dataDir}/blobs`);
  }
  return { directory, cipher, blobs };
}

/** The local-mode dashboard, on its own port. */
async function serveDashboard(
  ledger: LocalLedger,
  vectors: VectorStore,
  relayer: (request: Request) => Promise<Response>,
  relayerUrl: string,
) {
  const { createDashboard } = await import("./src/dashboard/mod.ts");
  const server = serve(
    "dashboard",
    "SVC_DASHBOARD_PORT",
    { hostname: config.host, port: config.dashboardPort, onListen() {} },
    (request, info) => dashboard.handler(request, info),
  );
  // One origin for the browser: the sign-in links' `localhost` when it listens on loopback.
  const { hostname, port } = server.addr;
  const origin = /^(127\.|::1?$|0\.0\.0\.0$)/.test(hostname)
    ? `http://localhost:${port}`
    : localUrl(hostname, port);
  const dashboard = createDashboard({
    relayerUrl,
    origin,
    packageId: LOCAL_PACKAGE_ID,
    ledger,
    vectors,
    relayer,
    logger,
  });
  logger.info("dashboard listening", { url: origin });
  return server;
}

async function start() {
  await Deno.mkdir(config.dataDir, { recursive: true });
  const { loadMasterKey } = await import("./plugins/local_cipher/mod.ts");
  const masterKey = await loadMasterKey(config);
  const embedder = await openEmbedder();
  // The offline embedder's word vectors also re-rank recall's candidates.
  const reranker = config.embedder === "local" ? (embedder as GloveEmbedder).reranker() : undefined;
  const llm = await openLlm();
  let vectors: VectorStore;
  if (config.vectorStore === "lancedb") {
    const { LanceDbVectorStore } = await import("./plugins/lancedb/mod.ts");
    vectors = await LanceDbVectorStore.open(`${config.dataDir}/lancedb`, {
      model: embedder.model,
      dimensions: embedder.dimensions,
      logger,
    });
  } else {
    vectors = new MemoryVectorStore(embedder.dimensions);
  }
  const jobsKv = await Deno.openKv(`${config.dataDir}/jobs.kv`);
  // With SVC_CHAIN=sui, accounts live on Sui: no local ledger, and no dashboard (which serves it).
  const network = config.chain === "sui";
  const ledgerKv = network ? undefined : await Deno.openKv(`${config.dataDir}/ledger.kv`);
  const ledger = ledgerKv && new LocalLedger(ledgerKv);
  const { directory, cipher, blobs } = await openAccountBackends(ledger, masterKey);
  const sidecarEnv: Record<string, string> = {};
  for (const name of SIDECAR_ENV) {
    const value = Deno.env.get(name);
    if (value !== undefined) sidecarEnv[name] = value;
  }
  // A compiled binary cannot run the sidecar's source; its MCP routes then answer 503.
  const sidecar = Deno.build.standalone ? undefined : new SidecarSupervisor({
    url: config.sidecarUrl,
    env: sidecarEnv,
    dataDir: config.dataDir,
    netHosts: network ? [new URL(config.network.suiRpcUrl!).host] : [],
    logger,
  });
  const relayer = await createRelayer({
    kv: jobsKv,
    // The queue derives its own key from this with HKDF under a distinct salt.
    secret: masterKey,
    directory,
    cipher,
    blobs,
    vectors,
    embedder,
    reranker,
    llm,
    logger,
    mode: network ? "network" : "embedded",
    packageId: network ? config.network.packageId! : LOCAL_PACKAGE_ID,
    concurrency: config.concurrency,
    callTimeoutMs: config.callTimeoutMs,
    maxAttempts: config.maxAttempts,
    sidecar,
    trustProxy: config.trustProxy,
    sponsorRatePerMinute: config.sponsorRatePerMinute,
    accountCacheMs: config.accountCacheSeconds * 1000,
  });
  const server = serve(
    "relayer",
    "SVC_PORT",
    { hostname: config.host, port: config.port, onListen() {} },
    relayer.handler,
  );
  const relayerUrl = localUrl(server.addr.hostname, server.addr.port);
  logger.info("relayer listening", { url: relayerUrl, data_dir: config.dataDir });
  const dashboard = ledger && await serveDashboard(ledger, vectors, relayer.handler, relayerUrl);
  if (!ledger) logger.info("no dashboard with SVC_CHAIN=sui: accounts are managed on Sui");

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    logger.info("relayer stopping");
    await sidecar?.stop();
    await Promise.all([server.shutdown(), dashboard?.shutdown()]);
    await relayer.close();
    await vectors.close();
    jobsKv.close();
    ledgerKv?.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await sidecar?.start(relayerUrl);
}

try {
  await start();
} catch (error) {
  const message = error instanceof SvcError || error instanceof CannotStart
    ? error.message
    : String(error);
  console.error(`svc: cannot start: ${message}`);
  Deno.exit(1);
}
