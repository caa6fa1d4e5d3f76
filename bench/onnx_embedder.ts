/**
 * The ONNX embedder's start time and throughput, on the tiny model the tests build
 * (`plugins/onnx_embedder/tiny_model.ts`: an embedding lookup, no attention), so the figures are
 * the embedder's own cost — tokenising, batching, the worker's messages, onnxruntime's call,
 * pooling and normalising — not a real transformer's. A real model adds its graph's time on top
 * (see BENCHMARKS.md). Texts are the short facts of `fact_workload.ts`.
 *
 * Measured per hidden size (`--hidden`, 32 and MiniLM's 384 by default):
 * - start: `OnnxEmbedder.open` until the first vector, the first time in the process (onnxruntime
 *   loaded) and again (warm), and the directory's reading and hashing alone;
 * - throughput: `--texts` facts in one `embed` call, for each batch size (`--batches`), texts/s
 *   (median and best of `--repeats`, as the machine is shared);
 * - a query alone: one short text per call, p50 and p95 in ms;
 * - the event loop: the longest a 1 ms timer waited while the facts were embedded.
 *
 *   deno task bench:onnx [--hidden 32,384] [--batches 1,8,32,64] [--texts 1024] [--runs 200]
 *   deno task bench:onnx --dir ./models/all-MiniLM-L6-v2   # a real model directory instead
 *
 * Prints the figures and writes `bench/results/onnx_embedder.json`.
 */
import { parseArgs } from "node:util";
import { OnnxEmbedder, readModelDirectory } from "../plugins/onnx_embedder/mod.ts";
import { writeTinyModel } from "../plugins/onnx_embedder/tiny_model.ts";
import { factWorkload } from "./fact_workload.ts";
import { machine, percentile, round } from "./harness.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    hidden: { type: "string", default: "32,384" },
    batches: { type: "string", default: "1,8,32,64" },
    texts: { type: "string", default: "1024" },
    runs: { type: "string", default: "200" },
    dir: { type: "string" },
    repeats: { type: "string", default: "5" },
  },
});
const HIDDEN = values.hidden!.split(",").map(Number);
const BATCHES = values.batches!.split(",").map(Number);
const TEXTS = factWorkload(Number(values.texts)).map((fact) => fact.text);
const QUESTIONS = factWorkload(Number(values.runs)).map((fact) => fact.question);
const REPEATS = Number(values.repeats);

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];

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

const results = [];
const root = await Deno.makeTempDir({ prefix: "svc-onnx-bench-" });
try {
  let first = true;
  const models = values.dir ? [{ dir: values.dir, hidden: undefined }] : HIDDEN.map((hidden) => ({
    dir: `${root}/tiny-${hidden}`,
    hidden,
  }));
  for (const { dir, hidden } of models) {
    if (hidden !== undefined) {
      await Deno.mkdir(dir);
      await writeTinyModel(dir, { hidden });
    }
    const cold = first
      ? await timed(async () => await (await OnnxEmbedder.open({ dir })).close())
      : undefined;
    first = false;
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) {
      warm.push(await timed(async () => await (await OnnxEmbedder.open({ dir })).close()));
    }
    const reading = await timed(() => readModelDirectory({ dir }));
    const recipe = await readModelDirectory({ dir });
    const modelBytes = (await Deno.stat(`${dir}/${recipe.modelFile}`)).size;
    const throughput = [];
    for (const batchSize of BATCHES) {
      await using embedder = await OnnxEmbedder.open({ dir, batchSize });
      await embedder.embed(TEXTS.slice(0, 64)); // warm-up
      const rates: number[] = [];
      const stalls: number[] = [];
      for (let i = 0; i < REPEATS; i++) {
        let ms = 0;
        stalls.push(await longestStall(async () => ms = await timed(() => embedder.embed(TEXTS))));
        rates.push(TEXTS.length / (ms / 1000));
      }
      throughput.push({
        batch: batchSize,
        texts_per_s_median: Math.round(median(rates)),
        texts_per_s_best: Math.round(Math.max(...rates)),
        longest_event_loop_stall_ms_median: round(median(stalls)),
      });
    }
    await using embedder = await OnnxEmbedder.open({ dir });
    const latencies = [];
    for (const question of QUESTIONS) {
      latencies.push(await timed(() => embedder.embed([question], { purpose: "query" })));
    }
    latencies.sort((a, b) => a - b);
    const result = {
      model: values.dir ? embedder.model : `tiny (hidden ${hidden})`,
      dimensions: embedder.dimensions,
      model_bytes: modelBytes,
      start_ms: {
        ...(cold === undefined ? {} : { first_in_process: round(cold) }),
        again_mean: round(warm.reduce((a, b) => a + b, 0) / warm.length),
        read_and_hash_dir: round(reading),
      },
      throughput,
      query_ms: {
        p50: round(percentile(latencies, 50), 2),
        p95: round(percentile(latencies, 95), 2),
      },
    };
    results.push(result);
    console.log(JSON.stringify(result));
  }
} finally {
  await Deno.remove(root, { recursive: true });
}

const report = {
  date: new Date().toISOString(),
  machine: machine(),
  texts: TEXTS.length,
  repeats: REPEATS,
  query_runs: QUESTIONS.length,
  results,
};
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(
  new URL("./results/onnx_embedder.json", import.meta.url),
  JSON.stringify(report, null, 2) + "\n",
);
