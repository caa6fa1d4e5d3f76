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
import type { Reranker, RerankOptions } from "@svc/relayer/kit";
import { STOP_WORDS, tokens, type WordTable } from "./glove_words.ts";

/** A text's distinct content words, in order, with their rows in the table (-1: unknown). */
interface Content {
  words: string[];
  rows: Int32Array;
  held: ReadonlySet<string>;
}

/**
 * Content words of texts kept between calls (those `RerankOptions.keep` allows), counted over all
 * the texts kept; past it the least recently used texts go.
 */
const REMEMBERED_TEXT_WORDS = 65_536;

/** Re-scores texts against a query by a soft match of their words; see the module documentation. */
export class GloveReranker implements Reranker {
  readonly name = "glove-soft-match";
  #table: WordTable;
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

  #scores(query: string, texts: string[], keep?: (text: string) => boolean): number[] {
    const table = this.#table;
    const asked = this.#content(query);
    const contents = texts.map((text) => this.#keptContent(text, keep));
    const weights = asked.words.map((word, q) => {
      const holding = contents.filter(({ held }) => held.has(word)).length;
      const amongTexts = Math.log((texts.length + 1) / (holding + 0.5));
      return (asked.rows[q] < 0 ? 1 : table.weight(asked.rows[q])) * amongTexts;
    });
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    if (total === 0) return contents.map(() => 0);
    // The best similarity of each query word to a word of each text, over the known words.
    const m = asked.words.length;
    const best = new Float32Array(contents.length * m);
    const asking = asked.rows.filter((row) => row >= 0);
    const askedAt = asked.words.flatMap((_, q) => asked.rows[q] >= 0 ? [q] : []);
    let known = 0;
    for (const { rows } of contents) for (const row of rows) if (row >= 0) known++;
    const wordRows = new Int32Array(known), textOf = new Int32Array(known);
    let at = 0;
    contents.forEach(({ rows }, text) => {
      for (const row of rows) {
        if (row < 0) continue;
        wordRows[at] = row;
        textOf[at++] = text;
      }
    });
    table.rows.similarities(asking, wordRows, (q0, mPart, w0, nPart, found) => {
      for (let w = 0; w < nPart; w++) {
        const slots = textOf[w0 + w] * m;
        for (let q = 0; q < mPart; q++) {
          const slot = slots + askedAt[q0 + q];
          if (found[w * mPart + q] > best[slot]) best[slot] = found[w * mPart + q];
        }
      }
    });
    return contents.map(({ held }, text) => {
      let score = 0;
      asked.words.forEach((word, q) => {
        // A word's similarity with itself or its plural is 1 give or take rounding: say 1.
        score += weights[q] * (held.has(word) ? 1 : Math.min(best[text * m + q], 1));
      });
      return score / total;
    });
  }
}
