/**
 * Tunes the fusion weights for one embedder offline, from a dump of `bench/retrieval.ts
 * --dump FILE` (each question's 40 best memories with their score parts): every weighting of a
 * grid re-ranks those memories (the neighbour lift recomputed from the neighbours' new fused
 * scores where they are among them), and is scored on the **tuning** halves only (LoCoMo's
 * tuning conversations, the fact set's tuning facts, in one namespace and 40 to a namespace).
 * The best weighting's held-out figures are printed beside it, to be confirmed through the real
 * path (`bench:retrieval`) once the weights are set in `src/ranking/fusion.ts`.
 *
 *   deno run --allow-read bench/fusion_tuning.ts <locomo10.json> <dump.json>
 */
import { DEFAULT_MIN_SCORE } from "../src/ranking/rank.ts";
import { type FusionWeights, similarityOf } from "../src/ranking/fusion.ts";
import type { RecallExplanation } from "../src/services/recall_explanation.ts";
import { factSetOf, locomoSetOf } from "./retrieval_sets.ts";

interface Dumped {
  id: string;
  labels: string[];
  score: number;
  explain: RecallExplanation;
}

const [locomoPath, dumpPath] = Deno.args;
const locomo = locomoSetOf(JSON.parse(await Deno.readTextFile(locomoPath)));
const facts = factSetOf(
  JSON.parse(await Deno.readTextFile(new URL("./facts/facts.json", import.meta.url))),
);
const { dumped } = JSON.parse(await Deno.readTextFile(dumpPath)) as { dumped: Dumped[][] };
const NEIGHBOUR_WEIGHT = 0.6;

function fused(e: Dumped["explain"], w: FusionWeights["turn"]) {
  const answer = e.answer_type === null ? 0 : w.answer;
  const total = 1 + w.lexical + (e.rerank === null ? 0 : w.rerank) + answer;
  return (similarityOf(1 - e.vector) + w.lexical * e.lexical + w.rerank * (e.rerank ?? 0) +
    answer * (e.answer_type ?? 0)) / total;
}

function rerankAll(weights: FusionWeights) {
  return dumped.map((results, q) => {
    const kind = q < locomo.asked.length ? "turn" : "fact";
    const w = weights[kind];
    const own = new Map(results.map((r) => [r.id, fused(r.explain, w)]));
    return results.map((r) => {
      const lifted = Math.abs(r.score - r.explain.fused) > 1e-9;
      const near = r.explain.neighbour_id === null
        ? r.explain.neighbour
        : own.get(r.explain.neighbour_id) ?? r.explain.neighbour;
      const f = own.get(r.id)!;
      const score = lifted ? (f + NEIGHBOUR_WEIGHT * near) / (1 + NEIGHBOUR_WEIGHT) : f;
      return { labels: r.labels, score, id: r.id };
    }).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .filter((r) => r.score >= DEFAULT_MIN_SCORE).slice(0, 20).map((r) => r.labels);
  });
}

function evaluate(weights: FusionWeights) {
  const answers = rerankAll(weights);
  const l = locomo.score(answers.slice(0, locomo.asked.length));
  const f = facts.score(answers.slice(locomo.asked.length));
  return {
    tuning: {
      locomo: l.tuning.all["recall@10"],
      facts: f.tuning["hit@3"],
      forty: f.forty.tuning["hit@3"],
    },
    heldOut: {
      locomo: l["held-out"].all["recall@10"],
      facts: f["held-out"]["hit@3"],
      factsH1: f["held-out"]["hit@1"],
      factsMrr: f["held-out"].mrr,
      forty: f.forty["held-out"]["hit@3"],
    },
  };
}

const grid = (xs: number[], ys: number[], zs: number[]) =>
  xs.flatMap((a) => ys.flatMap((b) => zs.map((c) => ({ lexical: a, rerank: b, answer: c }))));
const baseline: FusionWeights = {
  turn: { lexical: 1, rerank: 2, answer: 0 },
  fact: { lexical: 0.25, rerank: 1, answer: 1 },
};
console.log("as dumped (GloVe's weights):", JSON.stringify(evaluate(baseline)));
// Facts and turns are scored apart, so each kind is tuned on its own.
let bestFact = { w: baseline.fact, s: -1, r: evaluate(baseline) };
for (
  const w of grid([0, 0.05, 0.1, 0.25, 0.5], [0, 0.1, 0.25, 0.5, 1, 2], [0, 0.1, 0.25, 0.5, 1])
) {
  const r = evaluate({ ...baseline, fact: w });
  const s = r.tuning.facts + r.tuning.forty;
  if (s > bestFact.s) bestFact = { w, s, r };
}
console.log("facts best on tuning:", JSON.stringify(bestFact));
let bestTurn = { w: baseline.turn, s: -1, r: evaluate(baseline) };
for (const w of grid([0.25, 0.5, 0.75, 1, 1.5, 2], [0, 0.5, 1, 1.5, 2, 3], [0])) {
  const r = evaluate({ fact: bestFact.w, turn: w });
  if (r.tuning.locomo > bestTurn.s) bestTurn = { w, s: r.tuning.locomo, r };
}
console.log("turns best on tuning:", JSON.stringify(bestTurn));
console.log("chosen:", JSON.stringify({ turn: bestTurn.w, fact: bestFact.w }));
console.log("its figures:", JSON.stringify(evaluate({ turn: bestTurn.w, fact: bestFact.w })));
