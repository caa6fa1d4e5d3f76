/**
 * The two data sets of `bench/retrieval.ts` (the fact set's namespace of facts and distractors
 * also in `bench/peers.ts --facts`): what each remembers, what it asks, and how it scores the
 * answers. A memory is known by labels (a LoCoMo turn's dialogue id, a fact's id);
 * a memory that stands for several (a turn said twice, stored once) has them all.
 */

/** A text to remember, and the label it is scored by. */
export interface Remembered {
  text: string;
  namespace: string;
  thread?: string;
  label: string;
}

/** A question to recall, and how many results to ask for. */
export interface Asked {
  question: string;
  namespace: string;
  limit: number;
}

/** Each question's results, best first, as the labels of each result's memory. */
export type LabelledAnswers = string[][][];

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Conversation {
  sample_id: string;
  conversation: Record<string, Turn[] | string>;
  qa: { question: string; evidence: string[]; category: number }[];
}

const TUNING = new Set(["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]);
const CATEGORIES: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};
const KS = [5, 10, 20] as const;
const r3 = (x: number) => Math.round(x * 1000) / 1000;

type Recalls = { n: number; "recall@5": number; "recall@10": number; "recall@20": number };

/** LoCoMo: every turn in its conversation's namespace and its session's thread. */
export function locomoSetOf(data: Conversation[]) {
  const remembered: Remembered[] = [];
  const asked: Asked[] = [];
  const expected: { split: string; category: string; evidence: Set<string> }[] = [];
  for (const conversation of data) {
    const sessions = Object.entries(conversation.conversation)
      .filter(([key, value]) => /^session_\d+$/.test(key) && Array.isArray(value))
      .sort(([a], [b]) => Number(a.slice(8)) - Number(b.slice(8)));
    for (const [session, turns] of sessions) {
      for (const turn of turns as Turn[]) {
        remembered.push({
          text: `${turn.speaker}: ${turn.text}` +
            (turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ""),
          namespace: conversation.sample_id,
          thread: `${conversation.sample_id}/${session}`,
          label: turn.dia_id,
        });
      }
    }
    for (const qa of conversation.qa) {
      if (!CATEGORIES[qa.category]) continue;
      const evidence = new Set(qa.evidence.flatMap((e) => e.split(/[;,]\s*/)).filter(Boolean));
      if (evidence.size === 0) continue;
      asked.push({ question: qa.question, namespace: conversation.sample_id, limit: 20 });
      expected.push({
        split: TUNING.has(conversation.sample_id) ? "tuning" : "held-out",
        category: CATEGORIES[qa.category],
        evidence,
      });
    }
  }
  return {
    remembered,
    asked,
    /** Recall@5, @10 and @20 of the evidence turns, by split and category ("all" too). */
    score(answers: LabelledAnswers): Record<"tuning" | "held-out", Record<string, Recalls>> {
      const sums: Record<string, Record<string, { n: number; recall: number[] }>> = {};
      expected.forEach(({ split, category, evidence }, i) => {
        const recall = KS.map((k) =>
          [...new Set(answers[i].slice(0, k).flat())].filter((id) => evidence.has(id)).length /
          evidence.size
        );
        for (const slot of [category, "all"]) {
          const sum = ((sums[split] ??= {})[slot] ??= { n: 0, recall: KS.map(() => 0) });
          sum.n++;
          recall.forEach((r, j) => sum.recall[j] += r);
        }
      });
      const out: Record<string, Record<string, Recalls>> = {};
      for (const [split, categories] of Object.entries(sums)) {
        for (const category of [...Object.values(CATEGORIES), "all"]) {
          const sum = categories[category];
          if (!sum) continue;
          (out[split] ??= {})[category] = {
            n: sum.n,
            "recall@5": r3(sum.recall[0] / sum.n),
            "recall@10": r3(sum.recall[1] / sum.n),
            "recall@20": r3(sum.recall[2] / sum.n),
          };
        }
      }
      return out as Record<"tuning" | "held-out", Record<string, Recalls>>;
    },
  };
}

/** A fact set's file (`bench/facts/*.json`). */
export interface FactFile {
  facts: { id: string; kind: string; split: string; text: string; question: string }[];
  distractors: string[];
  unanswerable: string[];
}

type Fact = FactFile["facts"][number];
/** A slot's figures: how many facts, the share found first, in the first 3 and 10, and the MRR. */
export type Hits = { n: number; "hit@1": number; "hit@3": number; "hit@10": number; mrr: number };
/** Figures keyed by split ("tuning" and "held-out" in facts.json, one "probe" in probe.json). */
type BySplit = Record<"tuning" | "held-out", Hits> & Record<string, Hits>;

/** The splits of a fact set's facts, in the order they first occur. */
export function splitsOf(file: FactFile): string[] {
  return [...new Set(file.facts.map((fact) => fact.split))];
}

/** The hits of each slot `slotsOf` puts a fact in, each fact ranked in its answers in `answers`. */
function hitsBy(
  facts: Fact[],
  answers: LabelledAnswers,
  slotsOf: (fact: Fact) => string[],
): Record<string, Hits> {
  const sums: Record<string, { n: number; h1: number; h3: number; h10: number; rr: number }> = {};
  facts.forEach((fact, i) => {
    const rank = answers[i].findIndex((labels) => labels.includes(fact.id)) + 1;
    for (const slot of slotsOf(fact)) {
      const sum = (sums[slot] ??= { n: 0, h1: 0, h3: 0, h10: 0, rr: 0 });
      sum.n++;
      if (rank === 1) sum.h1++;
      if (rank >= 1 && rank <= 3) sum.h3++;
      if (rank >= 1 && rank <= 10) sum.h10++;
      if (rank >= 1) sum.rr += 1 / rank;
    }
  });
  return Object.fromEntries(
    Object.entries(sums).map(([slot, { n, h1, h3, h10, rr }]) => [
      slot,
      { n, "hit@1": r3(h1 / n), "hit@3": r3(h3 / n), "hit@10": r3(h10 / n), mrr: r3(rr / n) },
    ]),
  );
}

/** `hits` of each of the file's splits, whose slots are the split's name after `prefix`. */
const bySplit = (file: FactFile, hits: Record<string, Hits>, prefix = "") =>
  Object.fromEntries(splitsOf(file).map((split) => [split, hits[prefix + split]])) as BySplit;

/**
 * The figures of one namespace's `answers` to a fact set's questions (each fact's, in order, then
 * each unanswerable one's): hit@1, hit@3, hit@10 and MRR of each fact by split, all together and
 * by kind; for the questions nothing answers, how many found nothing, that share, and the mean
 * number of results.
 */
export function scoreFacts(file: FactFile, answers: LabelledAnswers) {
  const hits = hitsBy(
    file.facts,
    answers,
    (fact) => [`split ${fact.split}`, "all", `kind ${fact.kind}`],
  );
  const none = answers.slice(file.facts.length, file.facts.length + file.unanswerable.length);
  const noResult = none.filter((results) => results.length === 0).length;
  const kinds = [...new Set(file.facts.map((fact) => fact.kind))];
  return {
    ...bySplit(file, hits, "split "),
    all: hits.all,
    by_kind: Object.fromEntries(kinds.map((kind) => [kind, hits[`kind ${kind}`]])),
    unanswerable: {
      n: none.length,
      no_result: noResult,
      empty: r3(noResult / none.length),
      mean_results: r3(none.reduce((sum, results) => sum + results.length, 0) / none.length),
    },
  };
}

/**
 * The fact set: facts and distractors in one namespace, in a fixed order that mixes them (as a
 * user's memories accumulate), without a thread.
 */
export function factSetOf(file: FactFile) {
  const namespace = "facts";
  const items: Remembered[] = [
    ...file.facts.map((fact) => ({ text: fact.text, namespace, label: fact.id })),
    ...file.distractors.map((text, i) => ({ text, namespace, label: `distractor-${i + 1}` })),
  ];
  // A fixed shuffle: position i of 341 takes item (i × 97) mod n, 97 being prime to n.
  const step = [97, 89, 83].find((p) => items.length % p !== 0)!;
  const shuffled = items.map((_, i) => items[(i * step) % items.length]);
  // Also the facts alone, 40 to a namespace (every fourth), as a small store of facts holds them.
  const small = (i: number) => `facts-40-${i % 4 + 1}`;
  const remembered = [
    ...shuffled,
    ...file.facts.map((fact, i) => ({ text: fact.text, namespace: small(i), label: fact.id })),
  ];
  const asked: Asked[] = [
    ...file.facts.map((fact) => ({ question: fact.question, namespace, limit: 10 })),
    ...file.unanswerable.map((question) => ({ question, namespace, limit: 10 })),
    ...file.facts.map((fact, i) => ({ question: fact.question, namespace: small(i), limit: 10 })),
  ];
  return {
    /** The namespace of the facts and distractors together. */
    namespace,
    remembered,
    asked,
    /**
     * `scoreFacts` of the questions asked in `namespace`, and the hits by split in the
     * namespaces of 40 facts.
     */
    score(answers: LabelledAnswers) {
      const inNamespace = file.facts.length + file.unanswerable.length;
      const forty = hitsBy(file.facts, answers.slice(inNamespace), (fact) => [fact.split]);
      return {
        ...scoreFacts(file, answers.slice(0, inNamespace)),
        /** The facts alone, 40 to a namespace, no distractors. */
        forty: bySplit(file, forty),
      };
    },
  };
}

export type FactSet = ReturnType<typeof factSetOf>;
