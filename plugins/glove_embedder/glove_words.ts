/**
 * The words of the GloVe embedder and its re-ranker: how a text is cut into GloVe's tokens, the
 * stop words, and lookups in the word-vector table (a word's row, its rarity weight, its unit
 * vector).
 *
 * @example
 * ```ts
 * tokens("We can't, it's 3.5 km"); // ["we", "can", "it", "3.5", "km"]
 * ```
 * @module
 */
import { words } from "../../src/kit.ts";
import { DIMENSIONS, type WordVectors } from "./vectors.ts";

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

/** Lookups in a loaded word-vector table. */
export class WordTable {
  readonly vectors: WordVectors;
  #logCount: number;

  constructor(vectors: WordVectors) {
    this.vectors = vectors;
    this.#logCount = Math.log(vectors.count) + 0.5772;
  }

  /** The row of a word, trying the singular of a simple plural. */
  row(word: string): number | undefined {
    const { index } = this.vectors;
    return index.get(word) ??
      (word.length > 3 && word.endsWith("s") ? index.get(word.slice(0, -1)) : undefined);
  }

  /** The SIF-style weight of a word: rarer words count more. */
  weight(row: number): number {
    return SIF_A / (SIF_A + 1 / ((row + 1) * this.#logCount));
  }

  /** A word's unit vector, or `undefined` for a word GloVe does not know. */
  unit(word: string): Float32Array | undefined {
    const row = this.row(word);
    return row === undefined ? undefined : this.unitAt(row);
  }

  /** The unit vector of row `row`. */
  unitAt(row: number): Float32Array {
    const { values } = this.vectors;
    const vector = new Float32Array(DIMENSIONS);
    for (let i = 0; i < DIMENSIONS; i++) vector[i] = values[row * DIMENSIONS + i];
    const norm = Math.hypot(...vector) || 1;
    return vector.map((x) => x / norm);
  }
}
