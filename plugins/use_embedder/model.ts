/**
 * The Universal Sentence Encoder lite on onnxruntime: the graph `graph.ts` writes from the
 * installed package's weights, run by `onnxruntime-node`, with the ported tokenizer. Everything
 * is read from the installed packages: nothing is fetched.
 *
 * With a cache directory the graph is written there once (`use-lite-g1-<hash of model.json>.onnx`,
 * 28 MB) and later sessions load the file, which starts faster and keeps no copy of the weights
 * in the worker's heap. A directory that cannot be written only costs the cache.
 */
import * as ort from "onnxruntime-node";
import { MAX_PIECES, readWeights, USE_DIMENSIONS, useGraph } from "./graph.ts";
import { MODEL_DIR, readVocabulary, UseTokenizer } from "./tokenizer.ts";
import { writeCache } from "@svc/util/files";

/** Names the graph `graph.ts` writes: a change to it must change this, as it names the cache. */
const GRAPH_VERSION = 1;

/** A session of one thread whose idle threads sleep: the relayer shares the cores. */
function session(model: string | Uint8Array): Promise<ort.InferenceSession> {
  const options: ort.InferenceSession.SessionOptions = {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: "all",
    extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
  };
  // Two calls, as `create` is overloaded for a path and for bytes.
  return typeof model === "string"
    ? ort.InferenceSession.create(model, options)
    : ort.InferenceSession.create(model, options);
}

/** The graph and its tokenizer, loaded. */
export class UseModel {
  readonly #session: ort.InferenceSession;
  readonly #tokenizer: UseTokenizer;

  private constructor(session: ort.InferenceSession, tokenizer: UseTokenizer) {
    this.#session = session;
    this.#tokenizer = tokenizer;
  }

  /**
   * Starts a session on the graph of the package in `dir` (from `cacheDir` when written there
   * before, else written there first) and reads the vocabulary.
   */
  static async open(dir: URL = MODEL_DIR, cacheDir?: string): Promise<UseModel> {
    const tokenizer = new UseTokenizer(await readVocabulary(dir));
    if (!cacheDir) return new UseModel(await session(useGraph(await readWeights(dir))), tokenizer);
    const manifest = await Deno.readFile(new URL("model.json", dir));
    const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", manifest), 0, 8).toHex();
    const path = `${cacheDir}/use-lite-g${GRAPH_VERSION}-${hash}.onnx`;
    try {
      return new UseModel(await session(path), tokenizer);
    } catch {
      // Not written yet (or not whole): write it.
    }
    const graph = useGraph(await readWeights(dir));
    // A directory that cannot be written: the graph runs from memory, as without a cache.
    return new UseModel(await session(await writeCache(path, graph) ? path : graph), tokenizer);
  }

  /** One normalised vector per text, in one run of the graph. */
  async encode(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    // An empty text has no pieces; the graph needs one per row, so it gets the unknown piece.
    const pieces = texts.map((text) => {
      const ids = this.#tokenizer.encode(text).slice(0, MAX_PIECES);
      return ids.length ? ids : [0];
    });
    const length = Math.max(...pieces.map((ids) => ids.length));
    const ids = new BigInt64Array(texts.length * length);
    const mask = new Float32Array(texts.length * length);
    for (const [row, text] of pieces.entries()) {
      for (const [column, id] of text.entries()) {
        ids[row * length + column] = BigInt(id);
        mask[row * length + column] = 1;
      }
    }
    const positions = BigInt64Array.from({ length }, (_, i) => BigInt(i));
    const result = await this.#session.run({
      ids: new ort.Tensor("int64", ids, [texts.length, length]),
      mask: new ort.Tensor("float32", mask, [texts.length, length]),
      positions: new ort.Tensor("int64", positions, [length]),
    });
    const data = result.vectors.data as Float32Array;
    return texts.map((_, row) => data.slice(row * USE_DIMENSIONS, (row + 1) * USE_DIMENSIONS));
  }

  /** Frees the session. */
  async release(): Promise<void> {
    await this.#session.release();
  }
}
