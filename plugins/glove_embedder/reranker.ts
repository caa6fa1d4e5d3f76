/**
 * The GloVe embedder's re-ranker: a word-level soft match of the query against each text, on
 * the embedder's loaded word vectors. Recall gives it its candidates' plaintext in memory. The
 * content words of the texts `keep` allows (those the relayer keeps decrypted itself) are kept
 * between calls, at most 65,536 words in all, until `forget` drops them.
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

/** A text's distinct content words, in order, with their rows in the table (-1: unknown). */
interface Content {
  words: string[];
  rows: Int32Array;
  held: ReadonlySet<string>;
}

/**
 * Unit vectors of GloVe words kept between calls, by row (words of the public vocabulary only,
 * nothing of a memory's text); past it the oldest go.
 */
const REMEMBERED_WORDS = 20_000;

/**
 * Content words of texts kept between calls (those `RerankOptions.keep` allows), counted over all
 * the texts kept; past it the least recently used texts go.
 */
const REMEMBERED_TEXT_WORDS = 65_536;

export class GloveReranker implements Reranker {
  readonly name = "glove-soft-match";
  #table: WordTable;
  #units = new Map<number, Float32Array>();
  /** Content words of recent texts, by text: only those `keep` allowed. */
  #contents = new Map<string, Content>();
  #contentWords = 0;

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
    return Promise.resolve(this.#scores(query, texts, options?.keep));
  }

  /** Drops the content words kept of `text`, if any. */
  forget(text: string): void {
    const content = this.#contents.get(text);
    if (!content) return;
    this.#contents.delete(text);
    this.#contentWords -= content.words.length;
  }

  /** A text's content words, kept between calls when `keep` allows it (the most recent). */
  #keptContent(text: string, keep?: (text: string) => boolean): Content {
    const kept = this.#contents.get(text);
    if (kept) {
      this.#contents.delete(text);
      this.#contents.set(text, kept);
      return kept;
    }
    const content = this.#content(text);
    if (!keep?.(text) || content.words.length > REMEMBERED_TEXT_WORDS) return content;
    this.#contents.set(text, content);
    this.#contentWords += content.words.length;
    for (const [oldest] of this.#contents) {
      if (this.#contentWords <= REMEMBERED_TEXT_WORDS) break;
      this.forget(oldest);
    }
    return content;
  }

  #content(text: string): Content {
    const held = new Set(tokens(text).filter((w) => !STOP_WORDS.has(w)));
    const words = [...held];
    return { words, rows: Int32Array.from(words, (word) => this.#table.row(word) ?? -1), held };
  }

  /** The unit vectors of a content's words (`undefined` for unknown words). */
  #vectors({ rows }: Content): (Float32Array | undefined)[] {
    const vectors = new Array<Float32Array | undefined>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      vectors[i] = rows[i] < 0 ? undefined : this.#unit(rows[i]);
    }
    return vectors;
  }

  #unit(row: number): Float32Array {
    let unit = this.#units.get(row);
    if (!unit) {
      unit = this.#table.unitAt(row);
      if (this.#units.size >= REMEMBERED_WORDS) {
        this.#units.delete(this.#units.keys().next().value!);
      }
      this.#units.set(row, unit);
    }
    return unit;
  }

  #scores(query: string, texts: string[], keep?: (text: string) => boolean): number[] {
    const table = this.#table;
    const asked = this.#content(query);
    const askedVectors = this.#vectors(asked);
    const contents = texts.map((text) => this.#keptContent(text, keep));
    const weights = asked.words.map((word) => {
      const row = table.row(word);
      const holding = contents.filter(({ held }) => held.has(word)).length;
      const amongTexts = Math.log((texts.length + 1) / (holding + 0.5));
      return (row === undefined ? 1 : table.weight(row)) * amongTexts;
    });
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    return contents.map((content) => {
      if (total === 0) return 0;
      const { words } = content;
      const vectors = this.#vectors(content);
      let score = 0;
      asked.words.forEach((word, q) => {
        const vector = askedVectors[q];
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
