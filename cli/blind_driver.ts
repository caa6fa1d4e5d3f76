/**
 * The operator-blind client for other languages: a `BlindMemory` driven over standard input and
 * output, one JSON object a line, so a client in another language (the Python SDK) reads blind
 * namespaces with this client's own ranking. It embeds through its parent, which runs the model
 * the namespace pins by the recipe `open` answers with.
 *
 * In: `{"id", "call", "args"}` for a method of {@link CALLS}, and `{"embedded", "vectors"}` (or
 * `"error"`) answering an embed request. Out: `{"id", "result"}` or `{"id", "error": {"code",
 * "message"}}`, and `{"embed", "texts", "purpose"}` asking for vectors. A vector travels as the
 * base64 of its little-endian float32 bytes. Bundled for the Python SDK by `deno task
 * bundle:python`; it needs only network access to the relayer, read access to the model
 * directory (and the re-ranker's word vectors), and the cache file if one is given.
 *
 * @module
 */
import { createInterface } from "node:readline";
import process from "node:process";
import { ONNX_RANKING, onnxModelId, readModelDirectory } from "@svc/onnx-embedder";
import { GloveEmbedder } from "@svc/glove-embedder";
import { EncryptedVectorStore } from "@svc/encrypted-index";
import { SqliteBlockStorage } from "@svc/encrypted-index/sqlite_storage";
import { type Embedder, type EmbedOptions, SvcError } from "@svc/relayer/kit";
import { BlindMemory } from "@svc/relayer/blind";

/** What `open` takes, after `recipe`. */
interface OpenArgs {
  base_url: string;
  private_key: string;
  account_id?: string;
  namespace?: string;
  label?: string;
  cache_file?: string;
  /** Where the GloVe re-ranker's converted word vectors are (`glove-100d-100k-v1.bin`). */
  models_dir?: string;
  /** The vectors' length, as the parent's model gives them. */
  dimensions: number;
}

type Args = Record<string, unknown>;
type Request = { id: number; call: string; args?: Args };
type Embedded = { embedded: number; vectors?: string[]; error?: string };

const encoder = new TextEncoder();
const output = Deno.stdout.writable.getWriter();
/** Writes `message` as one line; lines are written whole, in the order given. */
const write = (message: unknown) => output.write(encoder.encode(JSON.stringify(message) + "\n"));

/** Vectors asked of the parent, by request number. */
const asked = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();
let nextEmbed = 1;

/** An ONNX embedder whose vectors the parent computes. */
function parentEmbedder(model: string, dimensions: number): Embedder {
  return {
    name: "onnx",
    model,
    dimensions,
    // The ONNX embedder's own weights, so recall ranks as with it.
    ranking: ONNX_RANKING,
    embed(texts: string[], { purpose = "document" }: EmbedOptions = {}) {
      const embed = nextEmbed++;
      const answer = new Promise<Float32Array[]>((resolve, reject) =>
        asked.set(embed, { resolve, reject })
      );
      write({ embed, texts, purpose });
      return answer;
    },
  };
}

let model: string | undefined;
let memory: BlindMemory | undefined;
let closing: (() => Promise<void>) | undefined;

/** The recipe of the model in `dir`, which the parent embeds by, and its model id. */
async function recipe(dir: string) {
  const read = await readModelDirectory({ dir });
  model = onnxModelId(read);
  return {
    model,
    pooling: read.pooling,
    max_length: read.maxLength,
    prefixes: read.prefixes,
    model_file: read.modelFile,
    one_at_a_time: read.oneAtATime,
  };
}

/** Opens the namespace's client, for the model `recipe` read. */
async function open(args: OpenArgs) {
  if (!model) throw new SvcError("bad_request", "Read the model's recipe first");
  const vectors = await EncryptedVectorStore.open({
    storage: await SqliteBlockStorage.open(":memory:"),
    secret: crypto.getRandomValues(new Uint8Array(32)),
    model,
    dimensions: args.dimensions,
    soleWriter: true,
  });
  const glove = args.models_dir ? await GloveEmbedder.open({ cacheDir: args.models_dir }) : null;
  memory = await BlindMemory.open({
    baseUrl: args.base_url,
    privateKey: args.private_key,
    accountId: args.account_id,
    embedder: parentEmbedder(model, args.dimensions),
    reranker: glove?.reranker(),
    namespace: args.namespace,
    label: args.label,
    cacheFile: args.cache_file,
    vectors,
  });
  closing = () => vectors.close();
}

const opened = () => memory ?? Promise.reject(new SvcError("bad_request", "open first"));
const time = (at: unknown) => typeof at === "string" ? at : undefined;

/** The calls, by name. */
const CALLS: Record<string, (args: Args) => Promise<unknown>> = {
  recipe: ({ model_dir }) => recipe(String(model_dir)),
  open: (args) => open(args as unknown as OpenArgs),
  enable: async () => await (await opened()).enable(),
  sync: async () => await (await opened()).sync(),
  remember: async ({ items }) =>
    await (await opened()).remember(items as { text: string; tags?: string[] }[]),
  recall: async ({ query, limit, tags, since, until, min_score, explain }) =>
    await (await opened()).recall(String(query), {
      limit: limit as number | undefined,
      tags: tags as string[] | undefined,
      since: time(since),
      until: time(until),
      minScore: min_score as number | undefined,
      explain: explain as boolean | undefined,
    }),
  update: async ({ id, text, tags }) =>
    await (await opened()).update(String(id), {
      text: String(text),
      tags: tags as string[] | undefined,
    }),
  forget: async ({ id }) => await (await opened()).forget(String(id)),
  memories: async () => await (await opened()).memories(),
  let_in: async ({ public_key }) => await (await opened()).letIn(String(public_key)),
  forget_all: async () => await (await opened()).forgetAll(),
  export_lines: async () => await (await opened()).exportLines(),
  import_lines: async ({ lines }) => await (await opened()).importLines(lines as []),
  close: async () => {
    await closing?.();
    setTimeout(() => Deno.exit(0));
  },
};

/** Answers one request, never with a stack: an `SvcError`'s code and sentence. */
async function answer({ id, call, args = {} }: Request) {
  try {
    const handler = Object.hasOwn(CALLS, call) ? CALLS[call] : undefined;
    if (!handler) throw new SvcError("bad_request", `No call "${call}"`);
    await write({ id, result: (await handler(args)) ?? null });
  } catch (error) {
    const code = error instanceof SvcError ? error.code : "internal";
    await write({ id, error: { code, message: (error as Error).message } });
  }
}

/** Hands the parent's vectors to the embed request they answer. */
function take({ embedded, vectors, error }: Embedded) {
  const waiting = asked.get(embedded);
  asked.delete(embedded);
  if (!waiting) return;
  if (error !== undefined || !vectors) {
    return waiting.reject(new SvcError("backend_unavailable", `Cannot embed: ${error}`));
  }
  waiting.resolve(vectors.map((v) => new Float32Array(Uint8Array.fromBase64(v).buffer)));
}

if (import.meta.main) {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    const message = JSON.parse(line);
    if ("embedded" in message) take(message);
    else answer(message);
  }
  await closing?.();
}
