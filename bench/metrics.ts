/**
 * What the metrics cost: recording one answered request (the kernel's `observe`, on every
 * request), one recall stage and one job's end, in nanoseconds per call over `--calls` calls
 * spread over the relayer's real route table and a few statuses; and a scrape (`/metrics`'s
 * text) once every route has answered with each status. In process; prints a table and writes
 * `bench/results/metrics.json`.
 *
 *   deno task bench:metrics [--calls 2000000] [--out FILE]
 */
import { RelayerMetrics } from "../src/metrics/relayer_metrics.ts";
import { startTestRelayer } from "../tests/fixtures.ts";
import { resultsFile, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    calls: { type: "string", default: "2000000" },
    out: { type: "string", default: resultsFile("metrics.json") },
  },
});
const CALLS = whole(values.calls, "--calls");

/** Mean nanoseconds per call of `run(i)` over `CALLS` calls, after a warm-up. */
function time(run: (i: number) => void): number {
  for (let i = 0; i < 100_000; i++) run(i);
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) run(i);
  return Math.round((performance.now() - started) * 1e6 / CALLS * 10) / 10;
}

await using t = await startTestRelayer({ processJobs: false });
const routes = t.relayer.routes;
const metrics = new RelayerMetrics();
const requests = routes.map((route) => new Request(`http://bench.test${route.pattern.pathname}`));
const statuses = [200, 202, 400, 401, 404];
const stages = ["embed", "search", "lexical", "read", "rerank"] as const;
const outcomes = ["done", "duplicate", "failed"] as const;
const now = Date.now();

const rows = [
  {
    what: "record a request (route, status, latency)",
    ns_per_call: time((i) =>
      metrics.request(
        requests[i % routes.length],
        routes[i % routes.length],
        statuses[i % 5],
        0.003,
      )
    ),
  },
  {
    what: "record an unmatched request",
    ns_per_call: time(() => metrics.request(requests[0], undefined, 404, 0.0002)),
  },
  {
    what: "record a recall stage",
    ns_per_call: time((i) => metrics.recallStage(stages[i % 5], 0.0004)),
  },
  {
    what: "record a job's end",
    ns_per_call: time((i) => metrics.worker.jobEnded(outcomes[i % 3], now)),
  },
];
const scrapes = 200;
const started = performance.now();
let text = "";
for (let i = 0; i < scrapes; i++) text = metrics.registry.exposition();
rows.push({
  what: `scrape (${routes.length} routes x ${statuses.length} statuses, ${text.length} bytes)`,
  ns_per_call: Math.round((performance.now() - started) * 1e6 / scrapes),
});
console.table(rows);

const result = {
  date: new Date().toISOString(),
  deno: Deno.version.deno,
  cpus: navigator.hardwareConcurrency,
  calls: CALLS,
  rows,
};
await writeResults(values.out!, result);
