/** Recall answers nothing when its best memory is a fact that hardly stands out, for a calibrated embedder. */
import assert from "node:assert/strict";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { MemoryVectorStore } from "../src/backends/memory.ts";
import type { VectorHit } from "../src/backends/types.ts";
import type { RecallResults } from "../src/services/memory_answers.ts";
import { FUSION_WEIGHTS } from "../src/ranking/fusion.ts";
import { abstainsAt, DEFAULT_MIN_SCORE, nearestShape } from "../src/ranking/rank.ts";
import { jsonOf as json, rememberAll, startTestRelayer } from "./fixtures.ts";

Deno.test("abstention: the margin is how far the nearest memories stand out from the next ones", () => {
  const shape = (...similarities: number[]) =>
    nearestShape(similarities.map((s, i) => ({ id: String(i), distance: 1 - s }) as VectorHit));
  const near = (actual: { margin: number; spread: number }, margin: number, spread: number) =>
    assert.ok(
      Math.abs(actual.margin - margin) < 1e-9 && Math.abs(actual.spread - spread) < 1e-9,
      `${JSON.stringify(actual)} is not ${margin}, ${spread}`,
    );
  near(shape(), 0, 0);
  near(shape(0.7), 0.7, 0.7);
  // The best first, whatever the order: 0.9 over the mean of 0.5 and 0.4.
  near(shape(0.4, 0.9, 0.5), 0.45, 0.5);
  // Only the 19 after the group count, and only the 29 nearest spread.
  near(shape(0.9, ...Array(19).fill(0.5), ...Array(30).fill(0)), 0.4, 0.9);
  // Several memories on what is asked stand out together.
  near(shape(...Array(5).fill(0.6), ...Array(25).fill(0.1)), 0.5, 0.5);
  // Many memories as near as one another: nothing stands out, and nothing is spread.
  near(shape(...Array(40).fill(0.4), ...Array(5).fill(0)), 0, 0);
  // Abstains on a small margin, unless nothing is spread enough to stand out.
  assert.equal(abstainsAt({ margin: 0.05, spread: 0.2 }, 0.1), true);
  assert.equal(abstainsAt({ margin: 0.05, spread: 0.08 }, 0.1), false);
  assert.equal(abstainsAt({ margin: 0.15, spread: 0.2 }, 0.1), false);
  assert.equal(abstainsAt({ margin: 0, spread: 0 }, 0), false, "0 never abstains");
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
    remember: (texts: string[], thread?: string) => Promise<unknown>,
  ) => Promise<void>,
) {
  // The test embedder as one calibrated at a margin of 0.14.
  const embedder = new LexicalEmbedder();
  Object.defineProperty(embedder, "ranking", {
    value: { weights: FUSION_WEIGHTS, abstainBelow: 0.14 },
  });
  await using t = await startTestRelayer({
    embedder,
    vectors: new MemoryVectorStore(embedder.dimensions),
  });
  const alice = await t.newCaller();
  await run(
    (body) => t.signed(alice, "POST", "/api/recall", body).then((res) => json(res)),
    (texts, thread) => rememberAll(t, alice, texts.map((text) => ({ text, thread }))),
  );
}

Deno.test("abstention: a question whose best fact hardly stands out gets none; min_score overrides; explain shows it", async () => {
  await withCalibratedRelayer(async (recall, remember) => {
    await remember(FACTS);
    const near = await recall({ query: "Who is my dentist?", explain: true });
    assert.equal(near.results[0].text, "My dentist is Dr Berg");
    assert.ok(near.margin! >= 0.14, String(near.margin));
    assert.equal(near.abstain_below, 0.14);
    // Its best scores above the default minimum, but stands out little.
    const unanswered = { query: "Where does my brother live?" };
    const abstained = await recall({ ...unanswered, explain: true });
    assert.ok(abstained.margin! < 0.14, String(abstained.margin));
    assert.deepEqual([abstained.results, abstained.total, abstained.abstain_below], [[], 0, 0.14]);
    const kept = await recall({ ...unanswered, min_score: DEFAULT_MIN_SCORE });
    assert.equal(kept.results[0].text, "I live in Bergen with my two cats", "min_score overrides");
    assert.equal(kept.abstain_below, undefined, "shown with explain only");
    assert.equal(kept.margin, undefined, "shown with explain only");
  });
});

Deno.test("abstention: recall over the turns of a conversation never abstains", async () => {
  await withCalibratedRelayer(async (recall, remember) => {
    await remember(FACTS, "chat-1");
    const answer = await recall({ query: "Where does my brother live?", explain: true });
    assert.ok(answer.margin! < 0.14, String(answer.margin));
    assert.equal(answer.results[0].text, "I live in Bergen with my two cats");
  });
});

Deno.test("abstention: many memories as near as one another are answered, not abstained on", async () => {
  await withCalibratedRelayer(async (recall, remember) => {
    await remember(Array.from({ length: 40 }, (_, i) => `Note ${i}: I went cycling on day ${i}`));
    const answer = await recall({ query: "When did I go cycling?", explain: true });
    assert.ok(answer.margin! < 0.14, String(answer.margin));
    assert.ok(answer.results.length > 0);
  });
});
