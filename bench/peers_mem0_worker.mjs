/**
 * Holds mem0 OSS for the peer benchmark (`bench/peers.ts`), in a Node process of its own so that
 * its resident memory is its own: `new Memory(...)` from `mem0ai/oss` with its in-memory vector
 * store and history (better-sqlite3 on `:memory:`), embeddings from the OpenAI-compatible
 * endpoint at `EMBEDDINGS_URL` (its model named `EMBEDDING_MODEL`), and no LLM call (`infer: false`; the LLM is pointed at the same
 * endpoint, which refuses and counts chat calls). Runs under Node, not Deno: mem0's store needs
 * better-sqlite3, a V8 addon that Deno cannot load.
 *
 * Speaks JSON lines: `{id, op, ...}` on stdin, `{id, ...result}` or `{id, error}` on stdout.
 * Times are measured here, around the mem0 calls, as a program holding mem0 sees them.
 *
 *   add    {texts, userId}   each text its own memory, all added concurrently → {ms, added}
 *   search {query, userId, limit} → {ms, memories}
 *   probe  {text, userId, timeoutMs} add, then search until found → {ms}
 */
import process from "node:process";
import { createInterface } from "node:readline";
import { Memory } from "mem0ai/oss";

const url = process.env.EMBEDDINGS_URL;
const model = process.env.EMBEDDING_MODEL ?? "svc-glove";
const dimensions = Number(process.env.EMBEDDING_DIMENSIONS);
if (!url?.startsWith("http://127.0.0.1:") || !dimensions) {
  throw new Error("Cannot start: EMBEDDINGS_URL (a 127.0.0.1 URL) and EMBEDDING_DIMENSIONS");
}

// Nothing leaves this machine: telemetry is off (MEM0_TELEMETRY=false), and any fetch that is not
// to loopback fails loudly rather than going out.
const loopbackFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const target = new URL(input instanceof Request ? input.url : String(input));
  if (target.hostname !== "127.0.0.1") {
    return Promise.reject(new Error(`refused a request to ${target.host}`));
  }
  return loopbackFetch(input, init);
};

const memory = new Memory({
  version: "v1.1",
  embedder: {
    provider: "openai",
    config: { apiKey: "local", baseURL: url, model, embeddingDims: dimensions },
  },
  vectorStore: {
    provider: "memory",
    config: { collectionName: "memories", dimension: dimensions, dbPath: ":memory:" },
  },
  llm: { provider: "openai", config: { apiKey: "local", baseURL: url, model: "none" } },
  historyStore: { provider: "memory", config: {} },
});

const addOne = (text, userId) =>
  memory.add([{ role: "user", content: text }], { userId, infer: false });

async function search(query, userId, limit) {
  const { results } = await memory.search(query, { filters: { user_id: userId }, topK: limit });
  return results.map((r) => r.memory);
}

const ops = {
  async add({ texts, userId }) {
    const started = performance.now();
    const answers = await Promise.all(texts.map((text) => addOne(text, userId)));
    const added = answers.reduce((sum, answer) => sum + answer.results.length, 0);
    return { ms: performance.now() - started, added };
  },
  async search({ query, userId, limit }) {
    const started = performance.now();
    const memories = await search(query, userId, limit);
    return { ms: performance.now() - started, memories };
  },
  async probe({ text, userId, timeoutMs }) {
    const started = performance.now();
    await addOne(text, userId);
    while (!(await search(text, userId, 3)).includes(text)) {
      if (performance.now() - started > timeoutMs) throw new Error("not searchable in time");
      await new Promise((r) => setTimeout(r, 2));
    }
    return { ms: performance.now() - started };
  },
};

// One request at a time, in order: the benchmark drives mem0 as one caller.
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const { id, op, ...args } = JSON.parse(line);
  let answer;
  try {
    answer = { id, ...await ops[op](args) };
  } catch (error) {
    answer = { id, error: String(error?.message ?? error) };
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
