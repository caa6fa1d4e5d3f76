/**
 * The sentence encoder's (`SVC_EMBEDDER=use`) start time, throughput and memory on this machine,
 * on the short facts of `fact_workload.ts`:
 *
 * - start: `UseEmbedder.open` (worker, graph written from the weights, onnxruntime session)
 *   until it answers, and the first vector after it;
 * - a text alone: one fact per call, texts/s and p50 ms;
 * - batched: the facts in one `embed` call, for each batch size (`--batches`), texts/s (median of
 *   `--repeats`, as the machine is shared);
 * - the event loop: the share of a 10 ms timer's ticks that fired while a batch was embedded;
 * - RSS after loading and after the runs.
 *
 *   deno task bench:use [--texts 256] [--batches 1,8,16,32,64] [--repeats 3] [--out FILE]
 *
 * Prints the figures and writes `bench/results/use_embedder.json` (or `--out`).
 */
import { UseEmbedder } from "../plugins/use_embedder/mod.ts";
import { factWorkload } from "./fact_workload.ts";
import { machine, percentile, resultsFile, round, writeResults } from "./harness.ts";
import { flags, whole, wholes } from "./flags.ts";

const { values } = flags({
  options: {
    texts: { type: "string", default: "256" },
    batches: { type: "string", default: "1,8,16,32,64" },
    repeats: { type: "string", default: "3" },
    out: {
      type: "string",
      default: resultsFile("use_embedder.json"),
    },
  },
});
const texts = factWorkload(whole(values.texts, "--texts")).map((fact) => fact.text);
const rssBefore = Deno.memoryUsage().rss;
let started = performance.now();
const probe = await UseEmbedder.open();
const openMs = performance.now() - started;
started = performance.now();
await probe.embed(["first vector"]);
const firstMs = performance.now() - started;
const rssLoaded = Deno.memoryUsage().rss;
await probe.close();

const alone: number[] = [];
const batched: Record<string, { texts_per_s: number; event_loop_ticks: number }> = {};
for (const batchSize of wholes(values.batches, "--batches")) {
  await using embedder = await UseEmbedder.open({ batchSize });
  if (batchSize === 1) {
    for (const text of texts.slice(0, 64)) {
      const t = performance.now();
      await embedder.embed([text], { purpose: "query" });
      alone.push(performance.now() - t);
    }
  }
  const rates: number[] = [];
  const ticks: number[] = [];
  for (let r = 0; r < whole(values.repeats, "--repeats"); r++) {
    let fired = 0;
    const timer = setInterval(() => fired++, 10);
    const t = performance.now();
    await embedder.embed(texts);
    const elapsed = performance.now() - t;
    clearInterval(timer);
    rates.push(texts.length / (elapsed / 1000));
    ticks.push(fired / (elapsed / 10));
  }
  batched[batchSize] = {
    texts_per_s: round(percentile(rates.sort((a, b) => a - b), 50)),
    event_loop_ticks: round(percentile(ticks.sort((a, b) => a - b), 50), 2),
  };
  console.log(`batch ${batchSize}: ${JSON.stringify(batched[batchSize])}`);
}
alone.sort((a, b) => a - b);
const result = {
  date: new Date().toISOString(),
  machine: machine(),
  model: probe.model,
  texts: texts.length,
  mean_chars: round(texts.reduce((n, t) => n + t.length, 0) / texts.length),
  start_ms: round(openMs),
  first_vector_ms: round(firstMs),
  alone: {
    p50_ms: round(percentile(alone, 50)),
    p95_ms: round(percentile(alone, 95)),
    texts_per_s: round(alone.length / (alone.reduce((a, b) => a + b, 0) / 1000)),
  },
  batched,
  rss_mb: {
    process_before: round(rssBefore / 2 ** 20),
    loaded: round(rssLoaded / 2 ** 20),
    after_runs: round(Deno.memoryUsage().rss / 2 ** 20),
  },
};
console.log(JSON.stringify(result, null, 2));
await writeResults(values.out!, result);
