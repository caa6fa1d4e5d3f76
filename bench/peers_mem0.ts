/**
 * mem0 OSS for the peer benchmark: an OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1
 * serving svc's own GloVe vectors (the ones the relayer embeds with by default; in the fact-set
 * mode, all-MiniLM-L6-v2's through svc's ONNX embedder, from the model files svc and
 * mcp-memory-service load), and mem0 itself in a Node
 * child process (`peers_mem0_worker.mjs`) driven over JSON lines. mem0's in-memory store is
 * better-sqlite3, a native addon that Deno cannot load and that no registry package ships built:
 * the first run compiles it for the machine's Node with node-gyp (`npm run build-release` in the
 * installed package, against the machine's Node headers; a couple of minutes, once).
 */
import { fileURLToPath } from "node:url";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import type { Embedder } from "../src/kit.ts";
import { ROOT, TEST_MODELS_DIR } from "../tests/relayer_process.ts";
import type { PeerSystem } from "./peers.ts";

const WORKER = fileURLToPath(new URL("./peers_mem0_worker.mjs", import.meta.url));

/** What the embeddings endpoint served: it must never have been asked for a completion. */
export interface EndpointCounts {
  embedding_requests: number;
  embedded_texts: number;
  llm_calls: number;
}

/**
 * Serves `embedder` as `POST /v1/embeddings` (OpenAI's shape, float encoding) on a free
 * 127.0.0.1 port; every other path is refused with 400, and chat or completion calls are counted.
 */
export function embeddingsEndpoint(embedder: Embedder) {
  const counts: EndpointCounts = { embedding_requests: 0, embedded_texts: 0, llm_calls: 0 };
  const refuse = (message: string) =>
    Response.json({ error: { message, type: "invalid_request_error" } }, { status: 400 });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const { pathname } = new URL(request.url);
    if (/\/(chat\/)?completions$|\/responses$/.test(pathname)) {
      counts.llm_calls++;
      await request.body?.cancel();
      return refuse("this endpoint serves no language model");
    }
    if (request.method !== "POST" || pathname !== "/v1/embeddings") {
      await request.body?.cancel();
      return refuse(`no ${request.method} ${pathname} here`);
    }
    const body = await request.json().catch(() => null);
    const input = typeof body?.input === "string" ? [body.input] : body?.input;
    if (!Array.isArray(input) || !input.every((text) => typeof text === "string")) {
      return refuse("input must be a string or an array of strings");
    }
    if (body.dimensions !== undefined && body.dimensions !== embedder.dimensions) {
      return refuse(`this model has ${embedder.dimensions} dimensions`);
    }
    counts.embedding_requests++;
    counts.embedded_texts += input.length;
    const vectors = await embedder.embed(input);
    return Response.json({
      object: "list",
      model: body.model ?? embedder.model,
      data: vectors.map((vector, index) => ({
        object: "embedding",
        index,
        embedding: Array.from(vector),
      })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  });
  const { port } = server.addr;
  return { url: `http://127.0.0.1:${port}/v1`, counts, close: () => server.shutdown() };
}

async function run(command: string, args: string[], cwd = ROOT): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(command, { args, cwd }).output();
  const text = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  if (code !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited ${code}: ${text.slice(-2000)}`);
  }
  return text.trim();
}

/** The installed version of npm package `name` (from its package.json under node_modules). */
export async function installedVersion(name: string): Promise<string> {
  try {
    return JSON.parse(await Deno.readTextFile(`${ROOT}node_modules/${name}/package.json`)).version;
  } catch {
    throw new Error(`Cannot find the npm package ${name}: run \`deno install\` first`);
  }
}

/** Compiles better-sqlite3 for the machine's Node unless it is already built; returns Node's version. */
export async function prepareNode(): Promise<string> {
  const node = await run("node", ["--version"]).catch(() => {
    throw new Error("Cannot run mem0: Node.js (`node`) is not installed");
  });
  await installedVersion("mem0ai");
  await installedVersion("better-sqlite3");
  const dir = await Deno.realPath(`${ROOT}node_modules/better-sqlite3`);
  const built = await Deno.stat(`${dir}/build/Release/better_sqlite3.node`).then(
    () => true,
    () => false,
  );
  if (!built) {
    console.log("Building better-sqlite3 for Node with node-gyp (once per install)...");
    await run("npm", ["run", "build-release"], dir);
  }
  return node;
}

interface Answer {
  id: number;
  error?: string;
  ms?: number;
  added?: number;
  memories?: string[];
}

/** An embedder the endpoint serves, closed (where it has anything to close) with mem0. */
type Served = Embedder & { close?(): Promise<void> };

/**
 * Starts the endpoint, serving what `open` opens (svc's GloVe vectors unless told), and the Node
 * process holding mem0; call `prepareNode` once before.
 */
export async function startMem0(
  open: () => Promise<Served> = () => GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR }),
): Promise<PeerSystem & { counts: EndpointCounts }> {
  const version = await installedVersion("mem0ai");
  const embedder = await open();
  const endpoint = embeddingsEndpoint(embedder);
  const home = await Deno.makeTempDir({ prefix: "svc-peers-mem0-" });
  const child = new Deno.Command("node", {
    args: [WORKER],
    cwd: ROOT,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      MEM0_DIR: `${home}/.mem0`,
      MEM0_TELEMETRY: "false",
      EMBEDDINGS_URL: endpoint.url,
      EMBEDDING_MODEL: embedder.model,
      EMBEDDING_DIMENSIONS: String(embedder.dimensions),
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let errors = "";
  const drainErrors = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      errors = (errors + chunk).slice(-4000);
    }
  })();
  const waiting = new Map<number, (answer: Answer) => void>();
  const reading = (async () => {
    let buffered = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      for (let newline; (newline = buffered.indexOf("\n")) >= 0;) {
        const answer = JSON.parse(buffered.slice(0, newline)) as Answer;
        buffered = buffered.slice(newline + 1);
        waiting.get(answer.id)?.(answer);
        waiting.delete(answer.id);
      }
    }
  })();
  const writer = child.stdin.getWriter();
  let nextId = 1;
  const call = async (op: string, args: Record<string, unknown>, timeoutMs = 120_000) => {
    const id = nextId++;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answer = await Promise.race([
      new Promise<Answer>((resolve) => waiting.set(id, resolve)),
      child.status.then((status) => {
        throw new Error(`mem0's process exited (${status.code}): ${errors}`);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`mem0 ${op} took over ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
      writer.write(new TextEncoder().encode(JSON.stringify({ id, op, ...args }) + "\n")).then(() =>
        new Promise<never>(() => {})
      ),
    ]).finally(() => clearTimeout(timer));
    if (answer.error) throw new Error(`mem0 ${op}: ${answer.error} ${errors}`);
    return answer;
  };
  const add = async (texts: string[], userId: string) => {
    const { added } = await call("add", { texts, userId });
    if (added !== texts.length) throw new Error(`mem0 added ${added} memories of ${texts.length}`);
  };
  return {
    name: "mem0",
    holder: `mem0ai ${version} in its own Node process (the embeddings endpoint, not counted, ` +
      "in the benchmark's)",
    pid: child.pid,
    embedder: embedder.model,
    counts: endpoint.counts,
    addBatch: add,
    addOne: (text, userId) => add([text], userId),
    settle: () => Promise.resolve(),
    async search(query, userId, limit) {
      const { ms, memories } = await call("search", { query, userId, limit });
      return { ms: ms!, texts: memories! };
    },
    async probe(text, userId, timeoutMs) {
      return (await call("probe", { text, userId, timeoutMs }, timeoutMs + 5000)).ms!;
    },
    async close() {
      await writer.close().catch(() => {});
      const exited = await Promise.race([
        child.status,
        new Promise<null>((r) => setTimeout(() => r(null), 5000)),
      ]);
      if (!exited) {
        child.kill("SIGKILL");
        await child.status;
      }
      await Promise.all([reading, drainErrors]);
      await endpoint.close();
      await embedder.close?.();
      await Deno.remove(home, { recursive: true });
    },
  };
}
