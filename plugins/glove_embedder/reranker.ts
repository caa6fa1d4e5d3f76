/**
 * The GloVe embedder's re-ranker: a word-level soft match of the query against each text, on
 * the embedder's loaded word vectors. Recall gives it its candidates' plaintext in memory. Given
 * `keepTexts` (where the relayer keeps decrypted texts itself), the content words of the last
 * 4,096 short texts are kept between calls, until `forget` drops an erased one.
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
import type { Reranker, RerankOptions } from "../../src/kit.ts";
import { STOP_WORDS, tokens, type WordTable } from "./glove_words.ts";

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** A text's distinct content words, in order, with their unit vectors (unknown words have none). */
interface Content {
  words: string[];
  vectors: (Float32Array | undefined)[];
  held: ReadonlySet<string>;
}

/**
 * Unit vectors of GloVe words kept between calls, by row (words of the public vocabulary only,
 * nothing of a memory's text); past it the oldest go.
 */
const REMEMBERED_WORDS = 20_000;

/** Texts whose content words are kept between calls (with `keepTexts`), and their longest. */
const REMEMBERED_TEXTS = 4_096;
const REMEMBERED_TEXT_LENGTH = 1_000;

export class GloveReranker implements Reranker {
  readonly name = "glove-soft-match";
  #table: WordTable;
  #units = new Map<number, Float32Array>();
  /** Content words of recent texts, by text: only those given with `keepTexts`. */
  #contents = new Map<string, Content>();

  /** A re-ranker over a loaded table; `GloveEmbedder.reranker()` makes one. */
  constructor(table: WordTable) {
    this.#table = table;
  }

  /**
   * How well each text covers the query's words, in [0, 1]: for every content word of the
   * query, its best word-vector similarity to a word of the text (1 for the same word),
   * weighted by its rarity in English and among the texts given (a query word that most of
   * them hold tells them apart less), and averaged.
   */
  rerank(query: string, texts: string[], options?: RerankOptions): Promise<number[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    return Promise.resolve(this.#scores(query, texts, options?.keepTexts === true));
  }

  forget(text: string): void {
    this.#contents.delete(text);
  }

  /** A text's content, kept (the most recent `REMEMBERED_TEXTS` short ones) when `keep`. */
  #keptContent(text: string, keep: boolean): Content {
    if (!keep || text.length > REMEMBERED_TEXT_LENGTH) return this.#content(text);
    let content = this.#contents.get(text);
    if (content) {
      this.#contents.delete(text);
    } else {
      content = this.#content(text);
      if (this.#contents.size >= REMEMBERED_TEXTS) {
        this.#contents.delete(this.#contents.keys().next().value!);
      }
    }
    this.#contents.set(text, content);
    return content;
  }

  #content(text: string): Content {
    const held = new Set(tokens(text).filter((w) => !STOP_WORDS.has(w)));
    const words = [...held];
    return { words, vectors: words.map((word) => this.#unit(word)), held };
  }

  #unit(word: string): Float32Array | undefined {
    const row = this.#table.row(word);
    if (row === undefined) return undefined;
    let unit = this.#units.get(row);
    if (!unit) {
      unit = this.#table.unit(word)!;
      if (this.#units.size >= REMEMBERED_WORDS) {
        this.#units.delete(this.#units.keys().next().value!);
      }
      this.#units.set(row, unit);
    }
    return unit;
  }

  #scores(query: string, texts: string[], keep: boolean): number[] {
    const table = this.#table;
    const asked = this.#content(query);
    const contents = texts.map((text) => this.#keptContent(text, keep));
    const weights = asked.words.map((word) => {
      const row = table.row(word);
      const holding = contents.filter(({ held }) => held.has(word)).length;
      const amongTexts = Math.log((texts.length + 1) / (holding + 0.5));
      return (row === undefined ? 1 : table.weight(row)) * amongTexts;
    });
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    return contents.map(({ words, vectors }) => {
      if (total === 0) return 0;
      let score = 0;
      asked.words.forEach((word, q) => {
        const vector = asked.vectors[q];
        let best = 0;
        words.forEach((other, i) => {
          const v = vectors[i];
          const similarity = other === word ? 1 : vector && v ? dot(vector, v) : 0;
          if (similarity > best) best = similarity;
        });
        score += weights[q] * best;
      });
      return score / total;
    });
  }
}
