/**
 * The words of the GloVe embedder and its re-ranker: how a text is cut into GloVe's tokens, the
 * stop words, and lookups in the word-vector table (a word's row, its rarity weight, its values).
 *
 * @example
 * ```ts
 * tokens("We can't, it's 3.5 km"); // ["we", "can", "it", "3.5", "km"]
 * ```
 * @module
 */
import { words } from "@svc/util/words";
import type { WordVectors } from "./vectors.ts";
import { WordRows } from "./word_rows.ts";

const SIF_A = 1e-3;

export const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an the and or but of to in on at for with from by as is are was were be been being am i " +
    "me my mine myself you your yours we our us they them their it its he him his she her this " +
    "that these those do does did done have has had having will would shall should can could may " +
    "might must not no so than then there here what which who whom whose when where why how all " +
    "any some just very too also into about over s t n't 's 'm 're 've 'd 'll").split(" "),
);

/**
 * Lower-cased word tokens: contractions split as GloVe's tokenizer does ("don't" → "do",
 * "n't"), possessive "'s" dropped, numbers kept.
 */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of words(text, { joiners: "punctuation" })) {
    if (!raw.includes("'")) {
      out.push(raw);
      continue;
    }
    const negated = /^(.+)n't$/.exec(raw);
    if (negated) out.push(negated[1] === "ca" ? "can" : negated[1] === "wo" ? "will" : negated[1]);
    else out.push(raw.replace(/'(s|m|re|ve|d|ll)$/, ""));
  }
  return out;
}

/**
 * Lookups in a loaded word-vector table: a word's row and rarity weight, and the rows as the
 * embedder and the re-ranker read them ({@link WordRows}: the only copy of the values kept).
 */
export class WordTable {
  /** Word → row, rows in frequency order. */
  readonly index: Map<string, number>;
  /** Row `r`'s values are `rows.values[r * ROW ..]` times `scales[r]`. */
  readonly scales: Float32Array;
  /** The first principal component of frequent word vectors, removed from sentences. */
  readonly commonDirection: Float32Array;
  /** The rows' values, kept here only (the table's `values` are copied, then can go). */
  readonly rows: WordRows;
  #logCount: number;

  constructor(vectors: WordVectors) {
    this.index = vectors.index;
    this.scales = vectors.scales;
    this.commonDirection = vectors.commonDirection;
    this.rows = new WordRows(vectors.values, vectors.count);
    this.#logCount = Math.log(vectors.count) + 0.5772;
  }

  /** The row of a word, trying the singular of a simple plural. */
  row(word: string): number | undefined {
    const { index } = this;
    return index.get(word) ??
      (word.length > 3 && word.endsWith("s") ? index.get(word.slice(0, -1)) : undefined);
  }

  /** The SIF-style weight of a word: rarer words count more. */
  weight(row: number): number {
    return SIF_A / (SIF_A + 1 / ((row + 1) * this.#logCount));
  }
}
