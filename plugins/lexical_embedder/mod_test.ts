import assert from "node:assert/strict";
import { LexicalEmbedder, lexicalTokens } from "./mod.ts";
import { digestOf, VARIED_TEXTS } from "../../tests/fixtures/varied_text.ts";

Deno.test("lexical embedder: tokens fold plurals and possessives; curly apostrophes split", () => {
  const cases: [string, string[]][] = [
    ["Mel's dog’s bowls", ["mel", "dog", "s", "bowl"]],
    ["I'm sure I don't know", ["i", "sure", "i", "don", "know"]],
    ["Born in the 1990s, 3.5 km", ["born", "in", "the", "1990", "3", "5", "km"]],
    ["ＡＢＣ ﬁne café", ["abc", "fine", "café"]],
  ];
  for (const [text, expected] of cases) assert.deepEqual(lexicalTokens(text), expected, text);
});

Deno.test("lexical embedder: the vectors of svc-lexical-hash-v1-384 stay the same", async () => {
  // Indexes on disk were built with these vectors: a change here needs a new model id.
  const embedder = new LexicalEmbedder();
  assert.equal(embedder.model, "svc-lexical-hash-v1-384");
  assert.equal(
    await digestOf(await embedder.embed([...VARIED_TEXTS])),
    "fbf283cf1bba10f17ad487dbd53b8dd074d5f8b12e2a3765eeb3c7c36017dfab",
  );
});
