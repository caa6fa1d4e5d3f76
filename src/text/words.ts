/**
 * Splitting text into words: the one tokenizer behind the lexical index's terms, the offline
 * embedders and the extractive language model. A word is a run of letters and digits, lower-cased;
 * the options say what else may join it, so each caller keeps exactly the words it has always
 * cut (the term hashes and vectors of existing indexes depend on them).
 *
 * @example
 * ```ts
 * words("Mel's café, 3.5 km"); // ["mel's", "café", "3", "5", "km"]
 * words("Mel's café, 3.5 km", { joiners: "none" }); // ["mel", "s", "café", "3", "5", "km"]
 * words("Mel's café, 3.5 km", { joiners: "punctuation" }); // ["mel's", "café", "3.5", "km"]
 * ```
 * @module
 */

/** How `words` cuts a text. */
export interface WordOptions {
  /**
   * Rewrite compatibility characters with NFKC after lower-casing (default `true`): "ﬁ" is
   * "fi", "ＡＢＣ" is "abc", a letter and a combining accent are one letter, "½" is "1", "2".
   */
  nfkc?: boolean;
  /** Read the curly apostrophes ’ and ‘ as ' (default `true`). */
  curlyApostrophes?: boolean;
  /**
   * What joins letters and digits into one word besides themselves (default `"apostrophe"`):
   * - `"none"`: nothing ("don't" is "don", "t");
   * - `"apostrophe"`: one apostrophe followed by letters ("don't", "o'brien", not "y'all'd");
   * - `"punctuation"`: any of `.`, `'` and `-` between letters or digits ("3.5", "e-mail",
   *   "u.s.a", "y'all'd").
   */
  joiners?: "none" | "apostrophe" | "punctuation";
}

const WORD = {
  none: /[\p{L}\p{N}]+/gu,
  apostrophe: /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu,
  punctuation: /[\p{L}\p{N}]+(?:[.'-][\p{L}\p{N}]+)*/gu,
};

/** The words of `text` in order, lower-cased, repeats kept. */
export function words(text: string, options: WordOptions = {}): string[] {
  let normal = text.toLowerCase();
  if (options.nfkc ?? true) normal = normal.normalize("NFKC");
  if (options.curlyApostrophes ?? true) normal = normal.replace(/[’‘]/g, "'");
  return normal.match(WORD[options.joiners ?? "apostrophe"]) ?? [];
}
