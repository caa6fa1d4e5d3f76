import assert from "node:assert/strict";
import { EmbeddingsModel } from "@energetic-ai/embeddings";
import { readVocabulary, UseTokenizer } from "./tokenizer.ts";

const vocabulary = await readVocabulary();

/** The package's own tokenizer (its model is not needed to tokenise). */
function original(): { encode(text: string): number[] } {
  const model = new EmbeddingsModel({ vocabulary, model: null as never }) as unknown as {
    tokenizer: { encode(text: string): number[] };
  };
  return model.tokenizer;
}

const SAMPLES = [
  "I commute by bicycle",
  "How do I get to work?",
  "My sister's wedding is on 14 June 2025 in Lisbon.",
  "  two  spaces   and\ttabs\nand lines ",
  "",
  "a",
  "Ünïcödé café naïve façade — “quotes” and ﬁ ligatures (NFKC)",
  "日本語のテキストも大丈夫ですか",
  "emoji 🚲🏠 and symbols ∑∫√ ☃",
  "ALLCAPS CamelCase snake_case kebab-case 1234567890 3.14159",
  "supercalifragilisticexpialidocious antidisestablishmentarianism",
  "e-mail: someone@example.com, https://example.org/path?q=1",
];

Deno.test("use tokenizer: the same piece ids as @energetic-ai/embeddings' own tokenizer", () => {
  const ours = new UseTokenizer(vocabulary);
  const theirs = original();
  for (const text of SAMPLES) {
    assert.deepEqual(ours.encode(text), theirs.encode(text), JSON.stringify(text));
  }
});

Deno.test("use tokenizer: the same ids on varied generated text", () => {
  const ours = new UseTokenizer(vocabulary);
  const theirs = original();
  // Texts stitched from the vocabulary's own pieces and odd characters, deterministically.
  let seed = 7;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const extras = [" ", "  ", "?", "é", "ß", "🚲", "中", "\u0301", "0", "’"];
  for (let i = 0; i < 300; i++) {
    let text = "";
    for (let j = 0, n = 1 + next(12); j < n; j++) {
      text += next(3) === 0
        ? extras[next(extras.length)]
        : vocabulary[6 + next(vocabulary.length - 6)][0].replace(/\u2581/g, " ");
    }
    assert.deepEqual(ours.encode(text), theirs.encode(text), JSON.stringify(text));
  }
});

Deno.test("use tokenizer: words become known pieces, unknown characters the id 0", () => {
  const tokenizer = new UseTokenizer(vocabulary);
  const ids = tokenizer.encode("I commute by bicycle");
  assert.ok(ids.length >= 4);
  assert.ok(ids.every((id) => id >= 6 && id < vocabulary.length), `${ids}`);
  assert.equal(ids.map((id) => vocabulary[id][0]).join(""), "▁I▁commute▁by▁bicycle");
  assert.ok(tokenizer.encode("☃☃").includes(0), "an unknown character is id 0");
  assert.deepEqual(tokenizer.encode(""), []);
});
