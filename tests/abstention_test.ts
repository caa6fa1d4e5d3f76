/** Recall answers nothing when its best memory is a fact that hardly stands out, for a calibrated embedder. */
import assert from "node:assert/strict";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { MemoryVectorStore } from "../src/backends/memory.ts";
import type { VectorHit } from "../src/backends/types.ts";
import type { RecallResults } from "../src/services/memory_answers.ts";
import {
  ABSTAIN_BELOW,
  abstainBelowFor,
  DEFAULT_MIN_SCORE,
  marginOf,
} from "../src/ranking/rank.ts";
import { jsonOf as json, rememberAll, startTestRelayer } from "./fixtures.ts";

Deno.test("abstention: thresholds by the embedder's model id; one not listed never abstains", () => {
  assert.equal(abstainBelowFor("svc-glove100-sif-oov-v1"), ABSTAIN_BELOW["svc-glove100"]);
  assert.equal(abstainBelowFor("svc-lexical-hash-v1-256"), 0);
  assert.equal(abstainBelowFor("svc-use-lite-512-v1"), 0);
  const minilm = "sentence-transformers/all-MiniLM-L6-v2";
  assert.equal(abstainBelowFor(`onnx:${minilm}:0123456789abcdef`), 0.1);
  assert.equal(abstainBelowFor(`onnx:all-MiniLM-L6-v2:0123456789abcdef`), 0.1);
  assert.equal(abstainBelowFor(`onnx:${minilm}-finetuned:0123456789abcdef`), 0);
});

Deno.test("abstention: the margin is the nearest memory's similarity over the next ones' mean", () => {
  const hits = (...similarities: number[]) =>
    similarities.map((s, i) => ({ id: String(i), distance: 1 - s }) as VectorHit);
  assert.equal(marginOf([]), 0);
  assert.equal(marginOf(hits(0.7)), 0.7);
  assert.ok(
    Math.abs(marginOf(hits(0.4, 0.9, 0.5)) - 0.45) < 1e-12,
    "best first, whatever the order",
  );
  // Only the 19 after the nearest count.
  const far = hits(0.9, ...Array(19).fill(0.5), ...Array(30).fill(0));
  assert.ok(Math.abs(marginOf(far) - 0.4) < 1e-12);
});

const FACTS = [
  "My dentist is Dr Berg",
  "I live in Bergen with my two cats",
  "I play the cello on Sundays",
  "My sister works as a nurse",
];

async function withCalibratedRelayer(
  run: (
    recall: (body: Record<string, unknown>) => Promise<RecallResults>,
    remember: (thread?: string) => Promise<unknown>,
  ) => Promise<void>,
) {
  // The test embedder as a family calibrated at a margin of 0.3.
  ABSTAIN_BELOW["svc-abstain-test"] = 0.3;
  const embedder = new LexicalEmbedder();
  Object.defineProperty(embedder, "model", { value: "svc-abstain-test-v1" });
  try {
    await using t = await startTestRelayer({
      embedder,
      vectors: new MemoryVectorStore(embedder.dimensions),
    });
    const alice = await t.newCaller();
    await run(
      (body) => t.signed(alice, "POST", "/api/recall", body).then((res) => json(res)),
      (thread) => rememberAll(t, alice, FACTS.map((text) => ({ text, thread }))),
    );
  } finally {
    delete ABSTAIN_BELOW["svc-abstain-test"];
  }
}

Deno.test("abstention: a question whose best fact hardly stands out gets none; min_score overrides; explain shows it", async () => {
  await withCalibratedRelayer(async (recall, remember) => {
    await remember();
    const near = await recall({ query: "Who is my dentist?", explain: true });
    assert.equal(near.results[0].text, "My dentist is Dr Berg");
    assert.ok(near.margin! >= 0.3, String(near.margin));
    assert.equal(near.abstain_below, 0.3);
    // Its best scores above the default minimum, but stands out little.
    const unanswered = { query: "Where does my brother live?" };
    const abstained = await recall({ ...unanswered, explain: true });
    assert.ok(abstained.margin! < 0.3, String(abstained.margin));
    assert.deepEqual([abstained.results, abstained.total, abstained.abstain_below], [[], 0, 0.3]);
    const kept = await recall({ ...unanswered, min_score: DEFAULT_MIN_SCORE });
    assert.equal(kept.results[0].text, "I live in Bergen with my two cats", "min_score overrides");
    assert.equal(kept.abstain_below, undefined, "shown with explain only");
    assert.equal(kept.margin, undefined, "shown with explain only");
  });
});

Deno.test("abstention: recall over the turns of a conversation never abstains", async () => {
  await withCalibratedRelayer(async (recall, remember) => {
    await remember("chat-1");
    const answer = await recall({ query: "Where does my brother live?", explain: true });
    assert.ok(answer.margin! < 0.3, String(answer.margin));
    assert.equal(answer.results[0].text, "I live in Bergen with my two cats");
  });
});
