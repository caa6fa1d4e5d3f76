/**
 * The Universal Sentence Encoder lite on onnxruntime: the graph `graph.ts` writes from the
 * installed package's weights, run by `onnxruntime-node`, with the ported tokenizer. Everything
 * is read from the installed packages: nothing is fetched.
 */
import * as ort from "onnxruntime-node";
import { MAX_PIECES, readWeights, USE_DIMENSIONS, useGraph } from "./graph.ts";
import { MODEL_DIR, readVocabulary, UseTokenizer } from "./tokenizer.ts";

export { MAX_PIECES, USE_DIMENSIONS } from "./graph.ts";

/** The graph and its tokenizer, loaded. */
export class UseModel {
  readonly #session: ort.InferenceSession;
  readonly #tokenizer: UseTokenizer;

  private constructor(session: ort.InferenceSession, tokenizer: UseTokenizer) {
    this.#session = session;
    this.#tokenizer = tokenizer;
  }

  /** Reads the weights and vocabulary, writes the graph and starts a session on it. */
  static async open(dir: URL = MODEL_DIR): Promise<UseModel> {
    const graph = useGraph(await readWeights(dir));
    const session = await ort.InferenceSession.create(graph, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: "all",
      extra: { session: { intra_op: { allow_spinning: "0" }, inter_op: { allow_spinning: "0" } } },
    });
    return new UseModel(session, new UseTokenizer(await readVocabulary(dir)));
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
