/** Each embedder names how recall ranks its vectors; one that names nothing gets GloVe's weights. */
import assert from "node:assert/strict";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { ONNX_RANKING } from "../plugins/onnx_embedder/mod.ts";
import { USE_RANKING } from "../plugins/use_embedder/mod.ts";
import { FUSION_WEIGHTS } from "../src/ranking/fusion.ts";
import type { Embedder } from "../src/backends/types.ts";

Deno.test("embedder ranking: sentence models weigh their vectors alone for a fact; others get GloVe's", () => {
  for (const { weights } of [USE_RANKING, ONNX_RANKING]) {
    assert.equal(weights.fact.lexical, 0, "a fact is asked about in other words");
    assert.ok(weights.turn.lexical < FUSION_WEIGHTS.turn.lexical);
  }
  const lexical: Embedder = new LexicalEmbedder();
  assert.equal(lexical.ranking, undefined);
});
