/**
 * Composition root: environment → configuration → backends → relayer → HTTP server.
 * `deno task start` runs it; the embedded default needs no network.
 */
import { readConfig, SIDECAR_ENV } from "./src/config.ts";
import { createLogger } from "./src/log.ts";
import { createRelayer } from "./src/relayer.ts";
import { LOCAL_PACKAGE_ID, LocalLedger } from "./src/chain/local_ledger.ts";
import type { Embedder, Llm, VectorStore } from "./src/backends/types.ts";
import { MemoryVectorStore } from "./src/backends/memory.ts";
import { SvcError } from "./src/errors.ts";
import { SidecarSupervisor } from "./src/sidecar/supervisor.ts";

const result = readConfig(Deno.env.toObject());
if (!result.ok) {
  console.error(
    "svc: invalid configuration:\n" + result.problems.map((p) => `  - ${p}`).join("\n"),
  );
  Deno.exit(2);
}
const config = result.config;
const logger = createLogger(config.logLevel);

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

async function start() {
  await Deno.mkdir(config.dataDir, { recursive: true });
  const { loadMasterKey, LocalCipher } = await import("./plugins/local_cipher/mod.ts");
  const { FsBlobStore } = await import("./plugins/fs_blob/mod.ts");
  const masterKey = await loadMasterKey(config);
  const embedder = await openEmbedder();
  const llm = await openLlm();
  let vectors: VectorStore;
  if (config.vectorStore === "lancedb") {
    const { LanceDbVectorStore } = await import("./plugins/lancedb/mod.ts");
    vectors = await LanceDbVectorStore.open(`${config.dataDir}/lancedb`, embedder);
  } else {
    vectors = new MemoryVectorStore(embedder.dimensions);
  }
  const jobsKv = await Deno.openKv(`${config.dataDir}/jobs.kv`);
  const ledgerKv = await Deno.openKv(`${config.dataDir}/ledger.kv`);
  const ledger = new LocalLedger(ledgerKv);
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
    logger,
  });
  const relayer = await createRelayer({
    kv: jobsKv,
    // The queue derives its own key from this with HKDF under a distinct salt.
    secret: masterKey,
    directory: ledger,
    cipher: await LocalCipher.fromKey(masterKey),
    blobs: await FsBlobStore.open(`${config.dataDir}/blobs`),
    vectors,
    embedder,
    llm,
    logger,
    mode: "embedded",
    packageId: LOCAL_PACKAGE_ID,
    concurrency: config.concurrency,
    callTimeoutMs: config.callTimeoutMs,
    maxAttempts: config.maxAttempts,
    sidecar,
    trustProxy: config.trustProxy,
    sponsorRatePerMinute: config.sponsorRatePerMinute,
    accountCacheMs: config.accountCacheSeconds * 1000,
  });
  const server = Deno.serve({
    hostname: config.host,
    port: config.port,
    onListen: ({ hostname, port }) =>
      logger.info("relayer listening", {
        url: `http://${hostname}:${port}`,
        data_dir: config.dataDir,
      }),
  }, relayer.handler);
  const { hostname, port } = server.addr as Deno.NetAddr;
  const loopback = hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname;
  const relayerUrl = `http://${loopback.includes(":") ? `[${loopback}]` : loopback}:${port}`;
  const { createDashboard } = await import("./src/dashboard/mod.ts");
  const dashboard = Deno.serve(
    {
      hostname: config.host,
      port: config.dashboardPort,
      onListen: ({ hostname, port }) =>
        logger.info("dashboard listening", { url: `http://${hostname}:${port}` }),
    },
    createDashboard({
      relayerUrl,
      packageId: LOCAL_PACKAGE_ID,
      ledger,
      vectors,
      relayer: relayer.handler,
      logger,
    }).handler,
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    logger.info("relayer stopping");
    await sidecar?.stop();
    await Promise.all([server.shutdown(), dashboard.shutdown()]);
    await relayer.close();
    await vectors.close();
    jobsKv.close();
    ledgerKv.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await sidecar?.start(relayerUrl);
}

try {
  await start();
} catch (error) {
  const message = error instanceof SvcError ? error.message : String(error);
  console.error(`svc: cannot start: ${message}`);
  Deno.exit(1);
}
