/**
 * The fact-set mode of the peer benchmark (`bench/peers.ts --facts FILE`): a fact set of
 * `bench/facts/` (`FactFile`) on a fresh system. Every fact's text and every distractor is
 * remembered in one namespace, in the fact set's mixed order (`factSetOf`), in batches; once all
 * are searchable, and after three untimed searches, every fact's question and every unanswerable
 * question is asked once (limit 10). A result is known by its text, which must be one the system
 * was given. Scored as `bench/retrieval.ts` scores the namespace (`scoreFacts`): hit@1, hit@3
 * and hit@10 of each fact, all together and by kind, and how many unanswerable questions found
 * nothing.
 */
import type { PeerSystem } from "./peers.ts";
import { percentiles, round, tableOf } from "./harness.ts";
import {
  type Asked,
  type FactFile,
  factSetOf,
  type Hits,
  type LabelledAnswers,
  scoreFacts,
} from "./retrieval_sets.ts";

/** Seconds to remember `texts` in `namespace`, `batch` to a call, until all are searchable. */
async function rememberAll(
  system: PeerSystem,
  texts: string[],
  namespace: string,
  batch: number,
): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < texts.length; i += batch) {
    await system.addBatch(texts.slice(i, i + batch), namespace);
  }
  await system.settle(namespace);
  return (performance.now() - started) / 1000;
}

/** Each question's results as the labels of their texts (`labelOf`), and each search's ms. */
async function askAll(system: PeerSystem, asked: Asked[], labelOf: Map<string, string>) {
  const answers: LabelledAnswers = [];
  const ms: number[] = [];
  for (const { question, namespace, limit } of asked) {
    const found = await system.search(question, namespace, limit);
    ms.push(found.ms);
    answers.push(found.texts.map((text) => {
      const label = labelOf.get(text);
      if (label === undefined) throw new Error(`${system.name} answered a text it was not given`);
      return [label];
    }));
  }
  return { answers, ms };
}

/** The fact set of `file` on a fresh `system`, remembered `batch` to a call. */
export async function measureFacts(system: PeerSystem, file: FactFile, batch: number) {
  const set = factSetOf(file);
  const remembered = set.remembered.filter((item) => item.namespace === set.namespace);
  const asked = set.asked.filter((question) => question.namespace === set.namespace);
  const ingestS = await rememberAll(
    system,
    remembered.map((item) => item.text),
    set.namespace,
    batch,
  );
  console.log(`${system.name}: remembered ${remembered.length} in ${round(ingestS, 2)} s`);
  for (const { question } of asked.slice(0, 3)) await system.search(question, set.namespace, 10);
  const labelOf = new Map(remembered.map((item) => [item.text, item.label]));
  const { answers, ms } = await askAll(system, asked, labelOf);
  const { all, by_kind, unanswerable } = scoreFacts(file, answers);
  return {
    system: system.name,
    holder: system.holder,
    embedder: system.embedder,
    memories: remembered.length,
    ingest: { batch, seconds: round(ingestS, 2) },
    search: { questions: ms.length, limit: 10, ...percentiles(ms) },
    all,
    by_kind,
    unanswerable,
  };
}

type FactsRow = Awaited<ReturnType<typeof measureFacts>>;
const hits = (h: Hits) => `${h["hit@1"]} / ${h["hit@3"]} / ${h["hit@10"]}`;

/** The table of the fact-set mode: a row per figure, a column per system. */
export function factsTable(rows: (FactsRow | { system: string; error: string })[], file: FactFile) {
  const kinds = [...new Set(file.facts.map((fact) => fact.kind))];
  const count = (kind: string) => file.facts.filter((fact) => fact.kind === kind).length;
  return tableOf<FactsRow>(rows, [
    [`all (${file.facts.length}) hit@1 / @3 / @10`, (r) => hits(r.all)],
    ...kinds.map((kind): [string, (r: FactsRow) => string] => [
      `${kind} (${count(kind)}) hit@1 / @3 / @10`,
      (r) => hits(r.by_kind[kind]),
    ]),
    [
      `unanswerable with no result (of ${file.unanswerable.length})`,
      (r) => r.unanswerable.no_result,
    ],
    ["search p50 ms", (r) => r.search.p50_ms],
    ["remember all, s", (r) => r.ingest.seconds],
  ]);
}
