/** Recall answers nothing when its best memory is not close enough, for a calibrated embedder. */
import assert from "node:assert/strict";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { MemoryVectorStore } from "../src/backends/memory.ts";
import { ABSTAIN_BELOW, abstainBelowFor, DEFAULT_MIN_SCORE } from "../src/ranking/rank.ts";
import { jsonOf as json, rememberAll, startTestRelayer } from "./fixtures.ts";

Deno.test("abstention: thresholds by the embedder's model id; one not listed never abstains", () => {
  assert.equal(abstainBelowFor("svc-glove100-sif-oov-v1"), ABSTAIN_BELOW["svc-glove100"]);
  assert.equal(abstainBelowFor("svc-use-lite-512-v1"), 0);
  assert.equal(abstainBelowFor("svc-lexical-hash-v1-256"), 0);
});

Deno.test("abstention: a question whose best memory scores below the threshold gets none; min_score overrides; explain shows it", async () => {
  // The test embedder as a family calibrated at 0.5.
  ABSTAIN_BELOW["svc-abstain-test"] = 0.5;
  const embedder = new LexicalEmbedder();
  Object.defineProperty(embedder, "model", { value: "svc-abstain-test-v1" });
  try {
    await using t = await startTestRelayer({
      embedder,
      vectors: new MemoryVectorStore(embedder.dimensions),
    });
    const alice = await t.newCaller();
    await rememberAll(t, alice, [
      { text: "My dentist is Dr Berg" },
      { text: "I live in Bergen with my two cats" },
    ]);
    const recall = (body: Record<string, unknown>) =>
      t.signed(alice, "POST", "/api/recall", body).then((res) => json(res));

    const near = await recall({ query: "Who is my dentist?", explain: true });
    assert.equal(near.results[0].text, "My dentist is Dr Berg");
    assert.ok(near.results[0].score >= 0.5, String(near.results[0].score));
    assert.equal(near.abstain_below, 0.5);
    // Its best scores between the default minimum and the threshold.
    const weak = { query: "my two dogs" };
    const kept = await recall({ ...weak, min_score: DEFAULT_MIN_SCORE });
    assert.equal(kept.results[0].text, "I live in Bergen with my two cats");
    assert.ok(kept.results[0].score < 0.5, String(kept.results[0].score));
    const abstained = await recall({ ...weak, explain: true });
    assert.deepEqual([abstained.results, abstained.total, abstained.abstain_below], [[], 0, 0.5]);
    assert.equal(kept.abstain_below, undefined, "shown with explain only");
  } finally {
    delete ABSTAIN_BELOW["svc-abstain-test"];
  }
});
