/**
 * The GloVe embedder's re-ranker: a word-level soft match of the query against each text, on
 * the embedder's loaded word vectors. Recall gives it its candidates' plaintext in memory.
 *
 * @example
 * ```ts
 * const embedder = await GloveEmbedder.open({ cacheDir: "./data/models" });
 * const [adopted, invoice] = await embedder.reranker().rerank("which puppy did I adopt?", [
 *   "I adopted a puppy last spring",
 *   "The invoice is due on Friday",
 * ]);
 * ```
 * @module
 */
import type { CallOptions, Reranker } from "../../src/kit.ts";
import { STOP_WORDS, tokens, type WordTable } from "./glove_words.ts";

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** A text's distinct content words, in order. */
function contentOf(text: string): string[] {
  return [...new Set(tokens(text).filter((w) => !STOP_WORDS.has(w)))];
}

export class GloveReranker implements Reranker {
  readonly name = "glove-soft-match";
  #table: WordTable;

  /** A re-ranker over a loaded table; `GloveEmbedder.reranker()` makes one. */
  constructor(table: WordTable) {
    this.#table = table;
  }

  /**
   * How well each text covers the query's words, in [0, 1]: for every content word of the
   * query, its best word-vector similarity to a word of the text (1 for the same word),
   * weighted by rarity and averaged.
   */
  rerank(query: string, texts: string[], options?: CallOptions): Promise<number[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(this.#scores(query, texts));
  }

  #scores(query: string, texts: string[]): number[] {
    const table = this.#table;
    const asked = contentOf(query).map((word) => {
      const row = table.row(word);
      return { word, vector: table.unit(word), weight: row === undefined ? 1 : table.weight(row) };
    });
    const total = asked.reduce((sum, q) => sum + q.weight, 0);
    return texts.map((text) => {
      if (total === 0) return 0;
      const words = contentOf(text);
      const vectors = words.map((word) => table.unit(word));
      let score = 0;
      for (const q of asked) {
        let best = 0;
        words.forEach((word, i) => {
          const v = vectors[i];
          const similarity = word === q.word ? 1 : q.vector && v ? dot(q.vector, v) : 0;
          if (similarity > best) best = similarity;
        });
        score += q.weight * best;
      }
      return score / total;
    });
  }
}
