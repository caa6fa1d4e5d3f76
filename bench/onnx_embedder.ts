/**
 * The ONNX embedder's start time and throughput on models built here, as the hub is out of
 * reach: the tests' tiny model (`plugins/onnx_embedder/testing/tiny_model.ts`, an embedding lookup with no
 * attention, 32 and 384 wide), whose figures are the embedder's own cost — tokenising, batching,
 * the worker's messages, onnxruntime's call, pooling, normalising; and a graph of
 * all-MiniLM-L6-v2's shape and size with random weights (`minilm_shaped_model.ts`), whose figures
 * are what a real MiniLM costs on this machine. Texts are the short facts of `fact_workload.ts`
 * (the tiny tokenizer knows 82 tokens, so most words are one `[UNK]`: sequences are about as long
 * as a real WordPiece tokenizer makes them, a little shorter where it would split a word).
 *
 * Measured per model:
 * - start: `OnnxEmbedder.open` until the first vector — the first time in the process (onnxruntime
 *   loaded), and again — and the directory's reading and hashing alone;
 * - throughput: the facts in one `embed` call, for each batch size (`--batches`), texts/s (median
 *   and best of `--repeats`, as the machine is shared), and the CPU time (every thread of the
 *   process) per text;
 * - a query alone: one question per call, p50 and p95 in ms, and the CPU time per query;
 * - the event loop: the longest a 1 ms timer waited while the facts were embedded, and the share
 *   of that timer's ticks that fired (ticks per elapsed ms) with the graph in the embedder's worker
 *   and, for comparison, with the same encoder run on the main thread.
 *
 *   deno task bench:onnx [--models tiny32,tiny384,minilm] [--batches 1,8,32,64] [--repeats 5]
 *                        [--threads 0] [--out FILE]
 *   deno task bench:onnx --dir ./models/all-MiniLM-L6-v2   # a real model directory instead
 *
 * `--threads` is the embedder's `SVC_ONNX_THREADS`: the threads of one run (0: onnxruntime's
 * choice, all cores).
 *
 * Prints the figures and writes `bench/results/onnx_embedder.json` (or `--out`); with `--dir`,
 * only to `--out`.
 */
import process from "node:process";
import { OnnxEmbedder, readModelDirectory } from "../plugins/onnx_embedder/mod.ts";
import { SentenceEncoder } from "../plugins/onnx_embedder/encoder.ts";
import { writeTinyModel } from "../plugins/onnx_embedder/testing/tiny_model.ts";
import { factWorkload } from "./fact_workload.ts";
import { machine, percentile, resultsFile, round, writeResults } from "./harness.ts";
import { miniLmShapedGraph } from "./minilm_shaped_model.ts";
import { flags, oneOf, usage, whole, wholes } from "./flags.ts";

const { values } = flags({
  options: {
    models: { type: "string", default: "tiny32,tiny384,minilm" },
    batches: { type: "string", default: "1,8,32,64" },
    repeats: { type: "string", default: "5" },
    threads: { type: "string", default: "0" },
    dir: { type: "string" },
    out: { type: "string" },
  },
});
// A model of one's own is measured, not recorded over the catalog's results.
const OUT = values.out ?? (values.dir ? undefined : resultsFile("onnx_embedder.json"));
if (values.dir) {
  await readModelDirectory({ dir: values.dir }).catch((error) => usage(error.message));
}
const BATCHES = wholes(values.batches, "--batches");
const REPEATS = whole(values.repeats, "--repeats");
const THREADS = whole(values.threads, "--threads", 0);

/** A model to measure: where it is (written first when `write` is given) and how much text. */
interface Subject {
  name: string;
  dir: string;
  write?: (dir: string) => Promise<void>;
  texts: number;
  queries: number;
}

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The CPU time, in ms, of every thread of this process since `before`. */
const cpuMs = (before: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
};

/** Milliseconds `run` takes. */
async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** The longest wait of a 1 ms timer while `run` runs, in ms. */
async function longestStall(run: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 1);
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return longest;
}

/** Ticks of a 1 ms timer per elapsed millisecond while `run` runs (1: never held up). */
async function tickShare(run: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const started = performance.now();
  try {
    await run();
  } finally {
    clearInterval(timer);
  }
  return ticks / (performance.now() - started);
}

/** The timer's tick share embedding `texts` in batches of 32: in the worker, then in-thread. */
async function eventLoop(dir: string, texts: string[]) {
  await using embedder = await OnnxEmbedder.open({ dir, batchSize: 32, threads: THREADS });
  const worker = await tickShare(() => embedder.embed(texts));
  const recipe = await readModelDirectory({ dir });
  const encoder = await SentenceEncoder.open(recipe, { threads: THREADS });
  try {
    const inThread = await tickShare(async () => {
      for (let i = 0; i < texts.length; i += 32) await encoder.encode(texts.slice(i, i + 32));
    });
    return {
      timer_tick_share_worker: round(worker, 2),
      timer_tick_share_in_thread: round(inThread, 2),
    };
  } finally {
    await encoder.release();
  }
}

async function measure(subject: Subject, first: boolean) {
  const { dir } = subject;
  const texts = factWorkload(subject.texts).map((fact) => fact.text);
  const questions = factWorkload(subject.queries).map((fact) => fact.question);
  const open = async () => await (await OnnxEmbedder.open({ dir, threads: THREADS })).close();
  const cold = first ? await timed(open) : undefined;
  const again: number[] = [];
  for (let i = 0; i < 3; i++) again.push(await timed(open));
  const reading = await timed(() => readModelDirectory({ dir }));
  const recipe = await readModelDirectory({ dir });
  const throughput = [];
  for (const batchSize of BATCHES) {
    await using embedder = await OnnxEmbedder.open({ dir, batchSize, threads: THREADS });
    await embedder.embed(texts.slice(0, 64)); // warm-up
    const rates: number[] = [];
    const stalls: number[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < REPEATS; i++) {
      let ms = 0;
      stalls.push(await longestStall(async () => ms = await timed(() => embedder.embed(texts))));
      rates.push(texts.length / (ms / 1000));
    }
    throughput.push({
      batch: batchSize,
      texts_per_s_median: Math.round(median(rates)),
      texts_per_s_best: Math.round(Math.max(...rates)),
      longest_event_loop_stall_ms_median: round(median(stalls)),
      cpu_ms_per_text: round(cpuMs(cpu) / (REPEATS * texts.length), 2),
    });
  }
  await using embedder = await OnnxEmbedder.open({ dir, threads: THREADS });
  const latencies = [];
  const cpu = process.cpuUsage();
  for (const question of questions) {
    latencies.push(await timed(() => embedder.embed([question], { purpose: "query" })));
  }
  const queryCpuMs = cpuMs(cpu) / questions.length;
  latencies.sort((a, b) => a - b);
  return {
    model: subject.name,
    dimensions: embedder.dimensions,
    model_mb: round((await Deno.stat(`${dir}/${recipe.modelFile}`)).size / 2 ** 20),
    texts: texts.length,
    start_ms: {
      ...(cold === undefined ? {} : { first_in_process: round(cold) }),
      again_mean: round(again.reduce((a, b) => a + b, 0) / again.length),
      read_and_hash_dir: round(reading),
    },
    throughput,
    event_loop: await eventLoop(dir, texts),
    query_ms: {
      p50: round(percentile(latencies, 50), 2),
      p95: round(percentile(latencies, 95), 2),
      cpu_per_query: round(queryCpuMs, 2),
    },
  };
}

const root = await Deno.makeTempDir({ prefix: "svc-onnx-bench-" });
const catalog: Record<string, Subject> = {
  tiny32: {
    name: "tiny (32 wide)",
    dir: `${root}/tiny32`,
    write: (dir) => writeTinyModel(dir, { hidden: 32 }),
    texts: 1024,
    queries: 200,
  },
  tiny384: {
    name: "tiny (384 wide)",
    dir: `${root}/tiny384`,
    write: (dir) => writeTinyModel(dir, { hidden: 384 }),
    texts: 1024,
    queries: 200,
  },
  minilm: {
    name: "MiniLM-L6-shaped, random weights",
    dir: `${root}/minilm`,
    write: (dir) => writeTinyModel(dir, { hidden: 384, graph: miniLmShapedGraph() }),
    texts: 256,
    queries: 50,
  },
};
const subjects = values.dir
  ? [{ name: values.dir, dir: values.dir, texts: 256, queries: 50 }]
  : oneOf(values.models, "--models", Object.keys(catalog)).map((name) => catalog[name]);
const results = [];
try {
  for (const [i, subject] of subjects.entries()) {
    if (subject.write) {
      await Deno.mkdir(subject.dir);
      await subject.write(subject.dir);
    }
    const result = await measure(subject, i === 0);
    results.push(result);
    console.log(JSON.stringify(result));
  }
} finally {
  await Deno.remove(root, { recursive: true });
}

if (OUT) {
  await writeResults(OUT, {
    date: new Date().toISOString(),
    machine: machine(),
    repeats: REPEATS,
    threads: THREADS,
    results,
  });
}
