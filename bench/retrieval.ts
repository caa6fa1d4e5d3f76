/**
 * Retrieval quality on two kinds of memory, through the public API of a relayer run as its own
 * process (`main.ts`, free ports, a temporary data directory, signed requests):
 *
 * - **LoCoMo** (Maharana et al., 2024): recall@k of the evidence turns. Each dialogue turn is
 *   remembered as one memory, "<speaker>: <text>" (plus the shared image's caption), in a
 *   namespace per conversation, with its session as its thread, in bulk requests in dialogue
 *   order. Every question of categories 1–4 with evidence is recalled with limit 20.
 *   Conversations conv-26, -30, -41, -42 and -43 are the tuning split; the other five are held
 *   out. The data file is not part of the project.
 * - **Personal facts** (`bench/facts/facts.json`, the project's own, unless `--facts`): 160
 *   short first-person facts and 181 distractor facts remembered in bulk in one namespace,
 *   without a thread; each fact's question (in other words where natural) is recalled with
 *   limit 10: hit@1, hit@3 and MRR of the fact. Fixed tuning and held-out halves. Questions
 *   nothing answers measure how often recall rightly finds nothing. The facts alone are also
 *   remembered 40 to a namespace, without distractors, and asked again there ("40 facts").
 *
 * Recall asks with `min_score` 0 and the figures are computed at the relayer's default minimum
 * score (and, for choosing it, at others). Each run ingests into a fresh data directory, asks
 * every question, restarts the relayer (its catalog is rebuilt and its index reloaded from
 * storage, as after any restart or index maintenance), asks again and compares the rankings;
 * `--runs` repeats it, and the spread of each figure over the runs is reported.
 *
 *   deno task bench:retrieval <path/to/locomo10.json> [--embedder glove|use|onnx|lexical|ollama|openai]
 *                             [--model-dir DIR] [--store encrypted|lancedb] [--runs 2] [--out FILE]
 *                             [--min-score X] [--root OTHER_CHECKOUT] [--facts FILE]
 *   deno task bench:retrieval --no-locomo [--facts FILE] [...]
 *
 * `--facts` measures another fact set of the same shape (`bench/facts/probe.json`: the kinds of
 * question recall missed, never tuned on); its splits are whatever its facts name.
 * `--no-locomo` leaves LoCoMo out (no data file needed): the facts alone.
 * `--model-dir` is the model directory `--embedder onnx` loads (`SVC_ONNX_MODEL_DIR`).
 * `--dump FILE` also saves each question's 40 best memories (labels and score parts, from a
 * pass with `explain`), for tuning the fusion weights offline (`bench/fusion_tuning.ts`), and
 * which questions recall found no answer for (`no_answer`).
 * `--min-score` computes the headline figures at another minimum score; `--root` measures the
 * relayer of another checkout (a baseline: one that ignores `thread` and `min_score` ranks as it
 * always did).
 * `--blind` remembers and recalls through operator-blind namespaces instead: `BlindMemory`
 * devices in this process embed with `--model-dir` (`--embedder onnx` only) and rank with the
 * GloVe re-ranker of `--models-dir`; the restart's pass reads through new devices, which sync the
 * whole log first.
 *
 * Writes `bench/results/retrieval.json` unless `--out`.
 */
import type { RecallOptions, RecallResult, RecallResults, SvcClient } from "../src/client/mod.ts";
import type { BlindMemory } from "../src/client/blind.ts";
import { abstainsAt, DEFAULT_MIN_SCORE } from "../src/ranking/rank.ts";
import { newAccountClient, startRelayer, TEST_MODELS_DIR } from "../tests/relayer_process.ts";
import { blindDevices, type DeviceAccount } from "./blind_devices.ts";
import { machine, percentile, resultsFile, round, writeResults } from "./harness.ts";
import {
  type Asked,
  type FactFile,
  type FactSet,
  factSetOf,
  locomoSetOf,
  type Remembered,
  splitsOf,
} from "./retrieval_sets.ts";
import { flags, whole } from "./flags.ts";

const { values, positionals } = flags({
  allowPositionals: true,
  options: {
    embedder: { type: "string", default: "glove" },
    "model-dir": { type: "string" },
    store: { type: "string", default: "encrypted" },
    runs: { type: "string", default: "2" },
    "min-score": { type: "string" },
    root: { type: "string" },
    dump: { type: "string" },
    facts: { type: "string" },
    "no-locomo": { type: "boolean", default: false },
    blind: { type: "boolean", default: false },
    "models-dir": { type: "string", default: TEST_MODELS_DIR },
    out: {
      type: "string",
      default: resultsFile("retrieval.json"),
    },
  },
});
const NO_LOCOMO = values["no-locomo"]!;
if (positionals.length !== (NO_LOCOMO ? 0 : 1)) {
  console.error(
    "usage: deno task bench:retrieval <path/to/locomo10.json> | --no-locomo [--embedder glove|" +
      "use|onnx|lexical|ollama|openai] [--model-dir DIR] [--facts FILE]",
  );
  Deno.exit(2);
}
/** The benchmark's names of the embedders (`local` too), and their `SVC_EMBEDDER`. */
const EMBEDDERS: Record<string, string> = {
  glove: "local",
  local: "local",
  use: "use",
  onnx: "onnx",
  lexical: "lexical",
  ollama: "ollama",
  openai: "openai",
};
if (!Object.hasOwn(EMBEDDERS, values.embedder!)) {
  console.error(`--embedder must be one of ${Object.keys(EMBEDDERS).join(", ")}`);
  Deno.exit(2);
}
if (values.blind && (values.embedder !== "onnx" || !values["model-dir"])) {
  console.error("--blind reads with an ONNX model: give --embedder onnx and --model-dir DIR");
  Deno.exit(2);
}
const devices = values.blind
  ? await blindDevices(values["model-dir"]!, values["models-dir"]!)
  : undefined;
const RUNS = whole(values.runs, "--runs");
/** The minimum score the headline figures are computed at: the relayer's default. */
const MIN_SCORE = values["min-score"] === undefined
  ? DEFAULT_MIN_SCORE
  : Number(values["min-score"]);
/** Another checkout whose relayer to measure (a baseline), with a trailing slash. */
const ROOT = values.root === undefined ? undefined : values.root.replace(/\/?$/, "/");
const THRESHOLDS = [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5];

const locomo = locomoSetOf(NO_LOCOMO ? [] : JSON.parse(await Deno.readTextFile(positionals[0])));
const factFile: FactFile = JSON.parse(
  await Deno.readTextFile(values.facts ?? new URL("./facts/facts.json", import.meta.url)),
);
const facts: FactSet = factSetOf(factFile);
/** The fact set's splits, and the one the spread reports (held-out where there is one). */
const SPLITS = splitsOf(factFile);
const REPORTED = SPLITS.includes("held-out") ? "held-out" : SPLITS.at(-1)!;

/** What the benchmark recalls from: the relayer's API, or operator-blind devices. */
type Recalls = { recall(query: string, options: RecallOptions): Promise<RecallResults> };

/**
 * Operator-blind devices of `account`, one a namespace: `remember` enables each namespace and
 * remembers its items in order; resolves to memory id → labels.
 */
function blindNamespaces(account: DeviceAccount) {
  const opened = new Map<string, Promise<BlindMemory>>();
  const memoryOf = (namespace = "default") => {
    if (!opened.has(namespace)) opened.set(namespace, devices!.device(account, namespace));
    return opened.get(namespace)!;
  };
  return {
    recall: async (query: string, { namespace, ...options }: RecallOptions) =>
      await (await memoryOf(namespace)).recall(query, options),
    async remember(items: Remembered[]) {
      const labelsOf = new Map<string, string[]>();
      for (const [namespace, inIt] of Map.groupBy(items, (item) => item.namespace)) {
        const memory = await memoryOf(namespace);
        await memory.enable();
        const ids = await memory.remember(inIt.map(({ text, thread }) => ({ text, thread })));
        ids.forEach((id, i) => labelsOf.set(id, [inIt[i].label]));
      }
      return labelsOf;
    },
  };
}

/** Remembers `items` in bulk requests of 20, in order; resolves to memory id → labels. */
async function rememberAll(client: SvcClient, items: Remembered[]) {
  const labelsOf = new Map<string, string[]>();
  const jobs: { jobId: string; label: string }[] = [];
  const mark = (id: string, label: string) => labelsOf.set(id, [...labelsOf.get(id) ?? [], label]);
  for (let i = 0; i < items.length; i += 20) {
    const batch = items.slice(i, i + 20);
    const answer = await client.rememberBulk(
      batch.map(({ text, namespace, thread }) => ({ text, namespace, thread })),
    );
    const duplicates = new Set((answer.duplicates ?? []).map((d) => d.index));
    batch.forEach((item, j) => {
      if (duplicates.has(j)) mark(answer.job_ids[j], item.label);
      else jobs.push({ jobId: answer.job_ids[j], label: item.label });
    });
  }
  for (let i = 0; i < jobs.length; i += 100) {
    const slice = jobs.slice(i, i + 100);
    while (true) {
      const { results } = await client.jobs(slice.map((job) => job.jobId));
      if (results.some((job) => job.status === "failed")) throw new Error("a remember job failed");
      if (!results.every((job) => job.status === "done")) {
        await new Promise((r) => setTimeout(r, 100));
        continue;
      }
      results.forEach((job, j) => {
        const memoryId = "memory_id" in job && job.memory_id ? job.memory_id : job.job_id;
        mark(memoryId, slice[j].label);
      });
      break;
    }
  }
  return labelsOf;
}

/** Every question's results (min_score 0), the shape of its nearest memories, and recall's latencies. */
async function askAll(client: Recalls, asked: Asked[]) {
  const answers: RecallResult[][] = [];
  const shapes: { margin: number; spread: number }[] = [];
  // Whether the relayer, asked without min_score, would answer nothing (`no_answer`).
  const unanswered: boolean[] = [];
  const ms: number[] = [];
  for (const { question, namespace, limit } of asked) {
    const started = performance.now();
    const { results, margin = 0, spread = 0, no_answer } = await client.recall(question, {
      namespace,
      limit,
      minScore: 0,
      explain: true,
    });
    ms.push(performance.now() - started);
    answers.push(results);
    shapes.push({ margin, spread });
    unanswered.push(no_answer !== undefined);
  }
  return { answers, shapes, unanswered, ms };
}

/** Figures of one pass at minimum score `threshold`. */
function figures(answers: RecallResult[][], labelsOf: Map<string, string[]>, threshold: number) {
  const labels = (results: RecallResult[]) =>
    results.filter((r) => r.score >= threshold).map((r) => labelsOf.get(r.id) ?? []);
  return {
    locomo: locomo.score(answers.slice(0, locomo.asked.length).map(labels)),
    facts: facts.score(answers.slice(locomo.asked.length).map(labels)),
  };
}

/**
 * What a recall may abstain on, and the thresholds tried: its best score, the best of one part,
 * or the shape of its nearest memories (`abstainsAt`), as the relayer abstains: only over facts,
 * so never for LoCoMo's turns.
 */
type Shape = { margin: number; spread: number };
const SCORES = [0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9];
const below = (value: number, t: number) => value < t;
const ABSTAINING: Record<
  string,
  {
    at: number[];
    abstains: (results: RecallResult[], shape: Shape, turns: boolean, t: number) => boolean;
  }
> = {
  score: { at: SCORES, abstains: (results, _, __, t) => below(results[0]?.score ?? 0, t) },
  vector: {
    at: SCORES,
    abstains: (results, _, __, t) =>
      below(Math.max(0, ...results.map((r) => r.explain?.vector ?? 0)), t),
  },
  rerank: {
    at: SCORES,
    abstains: (results, _, __, t) =>
      below(Math.max(0, ...results.map((r) => r.explain?.rerank ?? 0)), t),
  },
  margin: {
    at: [0, 0.04, 0.06, 0.08, 0.09, 0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.18, 0.2],
    abstains: (_, shape, turns, t) => !turns && abstainsAt(shape, t),
  },
};

/**
 * Figures of one pass when recall abstains by `rule` at `threshold` (at the default minimum
 * score), and where no memory about whom a question asks holds the kind of answer it asks for
 * (`no_answer`), unless `answerKind` is false.
 */
function abstaining(
  pass: { answers: RecallResult[][]; shapes: Shape[]; unanswered: boolean[] },
  labelsOf: Map<string, string[]>,
  rule: (typeof ABSTAINING)[string]["abstains"],
  threshold: number,
  answerKind = true,
) {
  const kept = pass.answers.map((results, i) =>
    (answerKind && pass.unanswered[i]) ||
      rule(results, pass.shapes[i], i < locomo.asked.length, threshold)
      ? []
      : results
  );
  return figures(kept, labelsOf, MIN_SCORE);
}

/** The margin below which the relayer abstains for its embedder, as a recall explains it. */
async function abstainBelowOf(client: Recalls, { question, namespace }: Asked) {
  return (await client.recall(question, { namespace, explain: true })).abstain_below ?? 0;
}

type Figures = ReturnType<typeof figures>;
type Hits = Figures["facts"]["tuning"];
/** One split's figures of the facts: `tuning`, `held-out`, or another the fact file names. */
const ofSplit = (scores: object, split: string) => (scores as Record<string, Hits>)[split];
const runs: {
  figures: Figures;
  byThreshold: Record<string, Figures>;
  byAbstention: Record<string, Record<string, Figures>>;
  ingestSeconds: number;
  recallMs: number[];
  changedAfterRestart: number;
  ranked: string[][];
}[] = [];

const asked = [...locomo.asked, ...facts.asked];
for (let run = 0; run < RUNS; run++) {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-retrieval-" });
  const env = {
    SVC_EMBEDDER: EMBEDDERS[values.embedder!],
    SVC_VECTOR_STORE: values.store!,
    ...(values["model-dir"] && { SVC_ONNX_MODEL_DIR: values["model-dir"] }),
  };
  let relayer = await startRelayer(dataDir, env, { root: ROOT });
  try {
    const { client: firstClient, privateKey, accountId } = await newAccountClient(
      dataDir,
      relayer.url,
    );
    const blind = devices && blindNamespaces({ baseUrl: relayer.url, privateKey, accountId });
    let client: Recalls = blind ?? firstClient;
    const started = performance.now();
    const remembered = [...locomo.remembered, ...facts.remembered];
    const labelsOf = await (blind?.remember(remembered) ?? rememberAll(firstClient, remembered));
    const ingestSeconds = (performance.now() - started) / 1000;
    const first = await askAll(client, asked);
    // A restart: the catalog is built again and the index read again from storage.
    await relayer.stop();
    relayer = await startRelayer(dataDir, env, { root: ROOT });
    const { SvcClient } = await import("../src/client/mod.ts");
    client = devices
      ? blindNamespaces({ baseUrl: relayer.url, privateKey, accountId })
      : await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
    const second = await askAll(client, asked);
    if (values.dump && run === 0) {
      const dumped = [];
      for (const { question, namespace } of asked) {
        const { results } = await client.recall(question, {
          namespace,
          limit: 40,
          minScore: 0,
          explain: true,
        });
        dumped.push(results.map((r) => ({
          id: r.id,
          labels: labelsOf.get(r.id) ?? [],
          score: r.score,
          explain: r.explain,
        })));
      }
      await Deno.writeTextFile(
        values.dump,
        JSON.stringify({
          asked: asked.length,
          questions: asked.map(({ question }) => question),
          no_answer: second.unanswered,
          dumped,
        }),
      );
    }
    const key = (results: RecallResult[]) => JSON.stringify(results.map((r) => [r.id, r.score]));
    const changedAfterRestart = first.answers.filter((a, i) =>
      key(a) !== key(second.answers[i])
    ).length;
    const byThreshold = Object.fromEntries(
      THRESHOLDS.map((t) => [String(t), figures(first.answers, labelsOf, t)]),
    );
    const byAbstention = Object.fromEntries(
      Object.entries(ABSTAINING).map(([name, { at, abstains }]) => [
        name,
        Object.fromEntries(at.map((t) => [String(t), abstaining(first, labelsOf, abstains, t)])),
      ]),
    );
    // As the relayer answers by default: abstaining where its embedder is calibrated to.
    const calibrated = await abstainBelowOf(client, asked[0]);
    const byDefault = (answerKind: boolean) =>
      abstaining(first, labelsOf, ABSTAINING.margin.abstains, calibrated, answerKind);
    byAbstention.answer_kind = { off: byDefault(false), on: byDefault(true) };
    runs.push({
      figures: byDefault(true),
      byThreshold,
      byAbstention,
      ingestSeconds,
      recallMs: first.ms,
      changedAfterRestart,
      // By label, so runs (whose memory ids differ) compare.
      ranked: first.answers.map((results) =>
        results.filter((r) => r.score >= MIN_SCORE)
          .map((r) => (labelsOf.get(r.id) ?? []).join("+"))
      ),
    });
    console.log(
      `run ${run + 1}: ingest ${round(ingestSeconds)} s; rankings changed by the restart: ` +
        `${changedAfterRestart} of ${asked.length}`,
    );
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
}

/** The figures the trade-off tables show. */
function headline(f: Figures) {
  return {
    ...(!NO_LOCOMO && {
      "locomo tuning recall@10": f.locomo.tuning.all["recall@10"],
      "locomo held-out recall@10": f.locomo["held-out"].all["recall@10"],
    }),
    ...Object.fromEntries(SPLITS.map((s) => [`facts ${s} hit@3`, ofSplit(f.facts, s)["hit@3"]])),
    ...Object.fromEntries(
      SPLITS.map((s) => [`40 facts ${s} hit@3`, ofSplit(f.facts.forty, s)["hit@3"]]),
    ),
    "unanswerable with no result": f.facts.unanswerable.empty,
  };
}

/** Mean, min and max of a figure over the runs. */
function spread(pick: (f: Figures) => number) {
  const xs = runs.map((r) => pick(r.figures));
  return {
    mean: round(xs.reduce((a, b) => a + b, 0) / xs.length, 3),
    min: round(Math.min(...xs), 3),
    max: round(Math.max(...xs), 3),
  };
}
const differingAcrossRuns = runs.length < 2
  ? 0
  : runs[0].ranked.filter((ranked, i) =>
    runs.slice(1).some((r) => JSON.stringify(r.ranked[i]) !== JSON.stringify(ranked))
  ).length;
const latencies = runs.flatMap((r) => r.recallMs).sort((a, b) => a - b);
const last = runs.at(-1)!;
const result = {
  date: new Date().toISOString(),
  machine: machine(),
  embedder: values.embedder,
  blind: values.blind,
  vector_store: values.store,
  runs: RUNS,
  memories: { locomo: locomo.remembered.length, facts: facts.remembered.length },
  ingest_seconds: runs.map((r) => round(r.ingestSeconds)),
  recall_p50_ms: round(percentile(latencies, 50)),
  min_score: MIN_SCORE,
  root: ROOT ?? null,
  locomo: last.figures.locomo,
  facts: last.figures.facts,
  spread: {
    ...(!NO_LOCOMO && {
      "locomo tuning recall@10": spread((f) => f.locomo.tuning.all["recall@10"]),
      "locomo held-out recall@10": spread((f) => f.locomo["held-out"].all["recall@10"]),
    }),
    ...Object.fromEntries(
      SPLITS.map((s) => [`facts ${s} hit@3`, spread((f) => ofSplit(f.facts, s)["hit@3"])]),
    ),
    [`facts ${REPORTED} MRR`]: spread((f) => ofSplit(f.facts, REPORTED).mrr),
    [`40 facts ${REPORTED} hit@3`]: spread((f) => ofSplit(f.facts.forty, REPORTED)["hit@3"]),
  },
  determinism: {
    questions: asked.length,
    changed_by_restart: runs.map((r) => r.changedAfterRestart),
    differing_across_runs: differingAcrossRuns,
  },
  by_min_score: Object.fromEntries(
    THRESHOLDS.map((t) => [String(t), headline(last.byThreshold[String(t)])]),
  ),
  by_abstention: Object.fromEntries(
    Object.entries(last.byAbstention).map(([name, byThreshold]) => [
      name,
      Object.fromEntries(
        Object.entries(byThreshold).map(([at, figures]) => [at, headline(figures)]),
      ),
    ]),
  ),
};

for (const split of NO_LOCOMO ? [] : ["tuning", "held-out"] as const) {
  console.log(`\nLoCoMo ${split} (${values.embedder}, min_score ${MIN_SCORE})`);
  console.log("category      n     R@5    R@10   R@20");
  for (const [category, row] of Object.entries(result.locomo[split])) {
    console.log(
      `${category.padEnd(12)} ${String(row.n).padStart(4)}  ` +
        [row["recall@5"], row["recall@10"], row["recall@20"]].map((x) => x.toFixed(3)).join("  "),
    );
  }
}
console.log(`\nfacts (min_score ${MIN_SCORE})\nsplit         n   hit@1  hit@3   MRR`);
for (const split of [...SPLITS, ...SPLITS.map((s) => `40 ${s}`)]) {
  const row = split.startsWith("40 ")
    ? ofSplit(result.facts.forty, split.slice(3))
    : ofSplit(result.facts, split);
  console.log(
    `${split.padEnd(10)} ${String(row.n).padStart(4)}  ` +
      [row["hit@1"], row["hit@3"], row.mrr].map((x) => x.toFixed(3)).join("  "),
  );
}
console.log(`\nspread over ${RUNS} runs:`, JSON.stringify(result.spread));
console.log("determinism:", JSON.stringify(result.determinism));
console.log("by min_score:", JSON.stringify(result.by_min_score, null, 1));
console.log("by abstention:", JSON.stringify(result.by_abstention, null, 1));
await writeResults(values.out!, result);
