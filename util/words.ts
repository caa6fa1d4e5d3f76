/**
 * Splitting text into words: one tokenizer for callers that each cut text their own way. A word
 * is a run of letters and digits, lower-cased; the options say what else may join it, so each
 * caller keeps exactly the words it has always cut (what was built from them, such as term
 * hashes and vectors, depends on them).
 *
 * @example
 * ```ts
 * words("Mel's café, 3.5 km"); // ["mel's", "café", "3", "5", "km"]
 * words("Mel's café, 3.5 km", { joiners: "none" }); // ["mel", "s", "café", "3", "5", "km"]
 * words("Mel's café, 3.5 km", { joiners: "punctuation" }); // ["mel's", "café", "3.5", "km"]
 * words("東京に住んでいます", { segment: true }); // ["東京", "に", "住", "んで", "い", "ます"]
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
  /**
   * Split runs of the scripts written without spaces between words (Chinese, Japanese, Thai,
   * Lao, Khmer, Myanmar) into words with `Intl.Segmenter`, and keep combining marks in their
   * word (default `false`: such a run is one word, and a mark ends a word). Text without
   * either is cut exactly as without it.
   */
  segment?: boolean;
}

/** `WORD` with combining marks kept in their word (Thai vowels, Devanagari signs, harakat). */
const MARKED = {
  none: /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu,
  apostrophe: /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:'\p{L}[\p{L}\p{M}]*)?/gu,
  punctuation: /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:[.'-][\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*/gu,
};

/** A character of a script written without spaces between words. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

let segmenter: Intl.Segmenter | undefined;

/** The words `Intl.Segmenter` finds in `run` (its dictionaries know these scripts). */
function segmented(run: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "word" });
  const out: string[] = [];
  for (const { segment, isWordLike } of segmenter.segment(run)) if (isWordLike) out.push(segment);
  return out;
}

const WORD = {
  none: /[\p{L}\p{N}]+/gu,
  apostrophe: /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu,
  punctuation: /[\p{L}\p{N}]+(?:[.'-][\p{L}\p{N}]+)*/gu,
};

/** `WORD` for ASCII text, lower-cased: the same words, without Unicode property lookups. */
const ASCII_WORD = {
  none: /[a-z0-9]+/g,
  apostrophe: /[a-z0-9]+(?:'[a-z]+)?/g,
  punctuation: /[a-z0-9]+(?:[.'-][a-z0-9]+)*/g,
};
/** Printable ASCII, tabs and line breaks. */
const ASCII = /^[\t\n\r -~]*$/;

/** The words of `text` in order, lower-cased, repeats kept. */
export function words(text: string, options: WordOptions = {}): string[] {
  // ASCII text, most of it, is already in NFKC, has no curly apostrophes, marks or unspaced
  // scripts: its words are those of the plain classes, found several times faster.
  if (ASCII.test(text)) {
    return text.toLowerCase().match(ASCII_WORD[options.joiners ?? "apostrophe"]) ?? [];
  }
  let normal = text.toLowerCase();
  if (options.nfkc ?? true) normal = normal.normalize("NFKC");
  if (options.curlyApostrophes ?? true) normal = normal.replace(/[’‘]/g, "'");
  const found = normal.match(
    options.segment
      ? MARKED[options.joiners ?? "apostrophe"]
      : WORD[options.joiners ?? "apostrophe"],
  ) ?? [];
  if (!options.segment || !found.some((word) => UNSPACED.test(word))) return found;
  return found.flatMap((word) => UNSPACED.test(word) ? segmented(word) : [word]);
}
