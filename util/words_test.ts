import assert from "node:assert/strict";
import { seededRandom as random } from "./seeded_random.ts";
import { type WordOptions, words } from "./words.ts";
import { VARIED_TEXTS } from "../tests/fixtures/varied_text.ts";

Deno.test("words: letters and digits, lower-cased; apostrophes join by default", () => {
  assert.deepEqual(words("Hello, WORLD! 42"), ["hello", "world", "42"]);
  assert.deepEqual(words("Don’t stop, it's O'Brien's y'all'd"), [
    "don't",
    "stop",
    "it's",
    "o'brien",
    "s",
    "y'all",
    "d",
  ]);
  assert.deepEqual(words("ＡＢＣ ﬁne re\u0301sume\u0301 ½ 🐶 x"), [
    "abc",
    "fine",
    "résumé",
    "1",
    "2",
    "x",
  ]);
  assert.deepEqual(words(""), []);
  assert.deepEqual(words("!!! 🎉 …"), []);
});

Deno.test("words: the options change only what they name", () => {
  const text = "Don’t e-mail Dr. O'Brien at 3.5 ＫＭ";
  assert.deepEqual(words(text, { joiners: "none" }), [
    "don",
    "t",
    "e",
    "mail",
    "dr",
    "o",
    "brien",
    "at",
    "3",
    "5",
    "km",
  ]);
  assert.deepEqual(words(text, { joiners: "punctuation" }), [
    "don't",
    "e-mail",
    "dr",
    "o'brien",
    "at",
    "3.5",
    "km",
  ]);
  assert.deepEqual(words(text, { curlyApostrophes: false }), [
    "don",
    "t",
    "e",
    "mail",
    "dr",
    "o'brien",
    "at",
    "3",
    "5",
    "km",
  ]);
  assert.deepEqual(words(text, { nfkc: false, joiners: "none" }).slice(-2), ["5", "ｋｍ"]);
  assert.deepEqual(words("cafe\u0301", { nfkc: false }), ["cafe"], "a combining accent splits");
});

/**
 * The word splitting each caller had before this module, verbatim: the lexical index's terms,
 * the lexical embedder, the GloVe embedder and the extractive LLM's answer ranking.
 */
const BEFORE: Record<string, [(text: string) => string[], (text: string) => string[]]> = {
  "terms": [
    (text) =>
      text.toLowerCase().normalize("NFKC").replace(/[’‘]/g, "'")
        .match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [],
    (text) => words(text),
  ],
  "lexical embedder": [
    (text) => text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu) ?? [],
    (text) => words(text, { curlyApostrophes: false }),
  ],
  "glove embedder": [
    (text) =>
      text.toLowerCase().normalize("NFKC").replace(/[’‘]/g, "'").match(
        /[\p{L}\p{N}]+(?:[.'-][\p{L}\p{N}]+)*/gu,
      ) ?? [],
    (text) => words(text, { joiners: "punctuation" }),
  ],
  "local LLM": [
    (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [],
    (text) => words(text, { nfkc: false, joiners: "none" }),
  ],
};

Deno.test("words: each caller's options cut exactly the words it cut before", () => {
  const texts = [...VARIED_TEXTS, VARIED_TEXTS.join(" "), VARIED_TEXTS.join("’")];
  for (const [caller, [before, now]] of Object.entries(BEFORE)) {
    for (const text of texts) assert.deepEqual(now(text), before(text), `${caller}: ${text}`);
  }
  // The options matter on these texts: no two callers cut them alike.
  const cuts = Object.values(BEFORE).map(([before]) => JSON.stringify(texts.map(before)));
  assert.equal(new Set(cuts).size, cuts.length);
});

Deno.test("words: ASCII text is cut as the Unicode path cuts it, with every option", () => {
  const next = random(21);
  // Letters of both cases, digits, the joiners, spaces and other ASCII punctuation, controls.
  const alphabet = "aZk9Q0 .'-.'- ,;!?\"()\t\n_/\x01~`";
  const options: WordOptions[] = [
    {},
    { joiners: "none" },
    { joiners: "punctuation" },
    { joiners: "punctuation", segment: true },
    { nfkc: false, curlyApostrophes: false },
  ];
  for (let i = 0; i < 2_000; i++) {
    const length = Math.floor(next() * 40);
    const text = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)])
      .join("");
    for (const option of options) {
      // " é" takes the text off the ASCII path and adds one word of its own at the end.
      assert.deepEqual(
        [...words(text, option), "é"],
        words(text + " é", option),
        `${JSON.stringify(text)} ${JSON.stringify(option)}`,
      );
    }
  }
});
