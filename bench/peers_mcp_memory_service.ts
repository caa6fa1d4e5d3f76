/**
 * mcp-memory-service (the Python `mcp-memory-service` package) for the peer benchmark: its HTTP
 * REST server (`memory server --http`, FastAPI under uvicorn) as a process of its own on a free
 * 127.0.0.1 port, driven over HTTP with an API key and timed at the client. Its default storage,
 * sqlite-vec, in a temporary directory that is also the process's HOME; its default embedder,
 * all-MiniLM-L6-v2 through ONNX Runtime, read from local files (a Hugging Face snapshot: the
 * directory given, else `SVC_BENCH_MMS_MODEL`, else what `tests/models/fetch.py` fetches) linked where its ONNX loader looks (`~/.cache/mcp_memory/onnx_models/
 * all-MiniLM-L6-v2/onnx/`), with downloads and the hash-embedding fallback refused, mDNS off and
 * no LLM. Writes are synchronous, so nothing needs settling.
 *
 * Every memory is `POST /api/memories`; the HTTP API has no batch store, so a batch is that many
 * calls in turn. A namespace is its `store` partition. Search is `POST /api/search` with
 * `n_results` and no `similarity_threshold` (its default), so it answers the nearest memories
 * whatever their score. Its semantic deduplication (on by default: a write within cosine distance
 * 0.15 of a memory of the last 24 hours in its store is refused) is turned off: from about a
 * thousand facts on, it refuses distinct facts that differ in a surname ("Emeka Velton is
 * vegetarian…" after "Emeka is vegetarian…").
 *
 * The Python is `SVC_BENCH_MMS_PYTHON` (default `python3`), with
 * `pip install 'mcp-memory-service[sqlite]'` (in a virtual environment); it needs SQLite extension
 * loading (Debian's `/usr/bin/python3` has it).
 */
import { freePort } from "../tests/relayer_process.ts";
import type { PeerSystem } from "./peers.ts";

const PYTHON = Deno.env.get("SVC_BENCH_MMS_PYTHON") ?? "python3";
/** The model directory: `SVC_BENCH_MMS_MODEL`, else the one `tests/models/fetch.py` fetches. */
export const MINILM_DIR = Deno.env.get("SVC_BENCH_MMS_MODEL") ??
  new URL("../models/all-MiniLM-L6-v2", import.meta.url).pathname;
const MODEL_FILES = { "model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json" };
const READY_MS = 120_000;

/** The installed mcp-memory-service's version; throws, saying what is missing, if it cannot run. */
export async function mcpMemoryServiceVersion(model = MINILM_DIR): Promise<string> {
  for (const file of Object.values(MODEL_FILES)) {
    await Deno.stat(`${model}/${file}`).catch(() => {
      throw new Error(`no ${model}/${file} (set SVC_BENCH_MMS_MODEL)`);
    });
  }
  const output = await new Deno.Command(PYTHON, {
    args: ["-c", "import importlib.metadata as m; print(m.version('mcp-memory-service'))"],
  }).output().catch(() => null);
  if (!output?.success) {
    throw new Error(
      `${PYTHON} cannot import mcp-memory-service (set SVC_BENCH_MMS_PYTHON to a Python with ` +
        "`pip install 'mcp-memory-service[sqlite]'`)",
    );
  }
  return new TextDecoder().decode(output.stdout).trim();
}

/** Links `model`'s files where mcp-memory-service's ONNX loader looks under `home`. */
async function placeModel(home: string, model: string): Promise<void> {
  const dir = `${home}/.cache/mcp_memory/onnx_models/all-MiniLM-L6-v2/onnx`;
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, file] of Object.entries(MODEL_FILES)) {
    await Deno.symlink(`${model}/${file}`, `${dir}/${name}`);
  }
}

/** The server's environment: everything local, nothing fetched, nothing advertised. */
function serverEnv(home: string, port: number, apiKey: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    MCP_HTTP_HOST: "127.0.0.1",
    MCP_HTTP_PORT: String(port),
    MCP_API_KEY: apiKey,
    MCP_MEMORY_STORAGE_BACKEND: "sqlite_vec",
    MCP_MEMORY_BASE_DIR: `${home}/data`,
    MCP_MEMORY_SQLITE_PATH: `${home}/data/sqlite_vec.db`,
    MCP_MEMORY_ONNX_ALLOW_DOWNLOAD: "0",
    MCP_MEMORY_ALLOW_HASH_EMBEDDINGS: "0",
    MCP_SEMANTIC_DEDUP_ENABLED: "false",
    MCP_MDNS_ENABLED: "false",
    HF_HUB_OFFLINE: "1",
  };
}

/** Resolves once `url` answers 200; throws if `exited` settles first or `READY_MS` passes. */
async function ready(url: string, exited: Promise<unknown>, log: () => string): Promise<void> {
  let gone = false;
  exited.then(() => gone = true);
  const deadline = performance.now() + READY_MS;
  while (!(await fetch(url).then((r) => (r.body?.cancel(), r.ok), () => false))) {
    if (gone) throw new Error(`mcp-memory-service exited while starting: ${log()}`);
    if (performance.now() > deadline) throw new Error(`mcp-memory-service not ready: ${log()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Sends `signal` to `child` unless it has already exited. */
function stop(child: Deno.ChildProcess, signal: Deno.Signal): void {
  try {
    child.kill(signal);
  } catch {
    // It has exited.
  }
}

interface SearchAnswer {
  results: { memory: { content: string } }[];
}

/** Starts mcp-memory-service's HTTP server on a fresh data directory, with `model`'s files. */
export async function startMcpMemoryService(model = MINILM_DIR): Promise<PeerSystem> {
  const version = await mcpMemoryServiceVersion(model);
  const home = await Deno.makeTempDir({ prefix: "svc-peers-mms-" });
  await placeModel(home, model);
  const port = freePort();
  const apiKey = crypto.randomUUID();
  const child = new Deno.Command(PYTHON, {
    args: ["-m", "mcp_memory_service.cli.main", "server", "--http"],
    cwd: home,
    clearEnv: true,
    env: serverEnv(home, port, apiKey),
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let log = "";
  const drains = [child.stdout, child.stderr].map(async (stream) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      log = (log + chunk).slice(-4000);
    }
  });
  const base = `http://127.0.0.1:${port}/api`;
  const post = async <T>(path: string, body: Record<string, unknown>): Promise<T> => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text);
  };
  const add = async (content: string, store: string) => {
    const answer = await post<{ success: boolean; message: string }>("/memories", {
      content,
      store,
    });
    if (!answer.success) throw new Error(`not stored: ${answer.message}`);
  };
  const search = async (query: string, store: string, limit: number) => {
    const started = performance.now();
    const { results } = await post<SearchAnswer>("/search", { query, n_results: limit, store });
    return { ms: performance.now() - started, texts: results.map((r) => r.memory.content) };
  };
  const close = async () => {
    stop(child, "SIGTERM");
    const exited = await Promise.race([
      child.status,
      new Promise<null>((r) => setTimeout(() => r(null), 5000)),
    ]);
    if (!exited) {
      stop(child, "SIGKILL");
      await child.status;
    }
    await Promise.all(drains);
    await Deno.remove(home, { recursive: true });
  };
  await ready(`${base}/health`, child.status, () => log).catch(async (error) => {
    await close();
    throw error;
  });
  return {
    name: "mcp-memory-service",
    holder: `mcp-memory-service ${version} (sqlite-vec, all-MiniLM-L6-v2 via ONNX) in its own ` +
      "Python process, over HTTP; no batch call, so a batch is one write per memory in turn",
    pid: child.pid,
    embedder: `all-MiniLM-L6-v2 (${Object.values(MODEL_FILES).join(", ")} of ${model})`,
    async addBatch(texts, namespace) {
      for (const text of texts) await add(text, namespace);
    },
    addOne: add,
    settle: () => Promise.resolve(),
    search,
    async probe(text, namespace, timeoutMs) {
      const started = performance.now();
      await add(text, namespace);
      while (!(await search(text, namespace, 3)).texts.includes(text)) {
        if (performance.now() - started > timeoutMs) throw new Error("not searchable in time");
        await new Promise((r) => setTimeout(r, 2));
      }
      return performance.now() - started;
    },
    close,
  };
}
