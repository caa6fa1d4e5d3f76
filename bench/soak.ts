/**
 * Soak: the relayer as its own process (`main.ts`, embedded default, free ports, a temporary
 * data directory) under a mixed workload sent at a steady rate over HTTP on 127.0.0.1 for
 * `--minutes` (default 30): 70% recalls, 25% remembers and 5% erases of memories recalls found,
 * plus a trickle of refused requests (an unknown key, a truncated body, every 200 ms). The rate is
 * `--rate` requests/s, or half the capacity a closed loop of 20 clients measures on the same mix
 * first. The namespace starts with `--memories` (default 10,000) and its remembers expire after
 * `--ttl` seconds (default 120), so that the data stays bounded and the expiries run too. Every `--every` seconds (default 30) it samples the relayer's resident memory (VmRSS),
 * open file descriptors, the remember jobs its worker holds, and the window's requests, errors
 * and recall latency. When the load stops it measures how long the queue takes to empty, then
 * starts a fresh relayer on the same data and warms it with recalls: the soaked process's memory
 * beside the fresh one's is what the run kept beyond its data. Prints a table and writes
 * `bench/results/soak.json`.
 *
 *   deno task bench:soak [--minutes 30] [--rate N] [--memories 10000] [--ttl 120] [--every 30]
 *     [--out FILE]
 */
import { generateKeyPair } from "@svc/util/keys";
import { SvcClient } from "../src/client/mod.ts";
import { SvcError } from "../src/errors.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { closedLoop } from "./load_generator.ts";
import { machine, percentile, resultsFile, round, rssMb, writeResults } from "./harness.ts";
import { flags, positive, whole } from "./flags.ts";

const { values } = flags({
  options: {
    minutes: { type: "string", default: "30" },
    rate: { type: "string" },
    memories: { type: "string", default: "10000" },
    ttl: { type: "string", default: "120" },
    every: { type: "string", default: "30" },
    out: { type: "string", default: resultsFile("soak.json") },
  },
});
const DURATION_MS = positive(values.minutes, "--minutes") * 60_000;
const EVERY_MS = positive(values.every, "--every") * 1000;
const SEEDED = whole(values.memories, "--memories");
const TTL_S = whole(values.ttl, "--ttl");
const NAMESPACE = "soak";
/** Requests in flight past which the generator counts a tick as late instead of sending. */
const MAX_IN_FLIGHT = 256;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A process's open file descriptors: sockets (most of them the connections this generator keeps
 * open, as many as it once had requests in flight) and the rest.
 */
function descriptors(pid: number) {
  let sockets = 0, files = 0;
  for (const { name } of Deno.readDirSync(`/proc/${pid}/fd`)) {
    try {
      if (Deno.readLinkSync(`/proc/${pid}/fd/${name}`).startsWith("socket:")) sockets++;
      else files++;
    } catch { /* closed since it was listed */ }
  }
  return { sockets, files };
}

/** The samples of `name` in the relayer's `/metrics`, by their labels' text. */
async function metric(url: string, name: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const found = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = line.match(/^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)$/);
    if (match?.[1] === name) found.set(match[2] ?? "", Number(match[3]));
  }
  return found;
}
const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** Remember jobs the worker holds (waiting for a batch or running). */
const workerJobs = (url: string) => metric(url, "svc_worker_jobs").then(sum);
/** Remember jobs ended since the relayer started, whatever their outcome. */
const jobsEnded = (url: string) => metric(url, "svc_jobs_total").then(sum);

/** Sends a signed-looking request that declares a body it never finishes. */
async function truncatedBody(url: URL): Promise<void> {
  const connection = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  const head =
    `POST /api/remember HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
    `content-length: 4096\r\n\r\n{"text":"`;
  await connection.write(new TextEncoder().encode(head));
  connection.close();
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-soak-" });
await using relayer = await startRelayer(dataDir);
const pid = relayer.process.pid;
const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
const stranger = await SvcClient.create({
  baseUrl: relayer.url,
  privateKey: (await generateKeyPair()).privateKey,
});

/** The mix: 14 recalls, 5 remembers and 1 erase in every 20 requests. */
type Kind = "recall" | "remember" | "erase";
const kindOf = (i: number): Kind => i % 20 === 19 ? "erase" : i % 4 === 1 ? "remember" : "recall";
/** What recalls found lately, for the erases (the newest first); and the ids erased. */
const found: { id: string; seed: boolean }[] = [], gone = new Set<string>();
/** Remember jobs accepted and memories erased since the seed, and erases that found the memory
 * expired since a recall answered it. */
let remembered = 0, erased = 0, expiredFirst = 0, seedsErased = 0;
/** When each remember since the seed was answered (`performance.now()`), in order. */
const rememberedAt: number[] = [];
let expiredUpTo = 0;
/**
 * About the memories the namespace holds: the seeds left and the remembers not yet expired (a
 * remember erased before it expires is counted until it would have).
 */
function memories(): number {
  const cutoff = performance.now() - TTL_S * 1000;
  while (expiredUpTo < rememberedAt.length && rememberedAt[expiredUpTo] < cutoff) expiredUpTo++;
  return SEEDED - seedsErased + rememberedAt.length - expiredUpTo;
}

async function send(kind: Kind, i: number): Promise<void> {
  if (kind === "remember") {
    const text = `soak ${i}: the user likes tea number ${i % 97} at ${i % 13} o'clock`;
    const answer = await client.remember(text, { namespace: NAMESPACE, ttlSeconds: TTL_S });
    if (answer.status !== "duplicate") {
      remembered++;
      rememberedAt.push(performance.now());
    }
  } else if (kind === "recall") {
    const { results } = await client.recall(`tea number ${i % 97}`, {
      namespace: NAMESPACE,
      limit: 5,
    });
    for (const { id, text } of results) found.push({ id, seed: text.startsWith("seed ") });
    if (found.length > 2000) found.splice(0, 1000);
  } else {
    let memory = found.pop();
    while (memory && gone.has(memory.id)) memory = found.pop();
    if (!memory) return send("recall", i);
    const { id, seed } = memory;
    gone.add(id);
    try {
      await client.forget(id);
      erased++;
      if (seed) seedsErased++;
    } catch (error) {
      if (!(error instanceof SvcError && error.status === 404)) throw error;
      expiredFirst++;
    }
  }
}

// Memories to recall and erase from the first request on, from 8 clients.
let seeding = 0;
await Promise.all(Array.from({ length: 8 }, async () => {
  for (let i = (seeding += 20) - 20; i < SEEDED; i = (seeding += 20) - 20) {
    const items = Array.from({ length: Math.min(20, SEEDED - i) }, (_, j) => ({
      text: `seed ${i + j}: the user likes tea number ${(i + j) % 97}`,
      namespace: NAMESPACE,
    }));
    await client.rememberBulk(items);
  }
}));
const drained = async (ended: number, timeoutMs: number) => {
  const started = performance.now();
  while ((await jobsEnded(relayer.url)) < ended || (await workerJobs(relayer.url)) > 0) {
    if (performance.now() - started > timeoutMs) return null;
    await sleep(200);
  }
  return round((performance.now() - started) / 1000, 1);
};
await drained(SEEDED, 600_000);

let rate = values.rate === undefined ? 0 : whole(values.rate, "--rate");
let capacity = null;
if (!rate) {
  let next = 1_000_000;
  capacity = await closedLoop("mix", 20, () => {
    const i = next++;
    return send(kindOf(i), i);
  }, { seconds: 20, cpu: {} });
  rate = Math.max(1, Math.round(capacity.requests_per_s / 2));
  await drained(SEEDED + remembered, 300_000);
}
console.log(`soaking at ${rate} requests/s for ${DURATION_MS / 60_000} min`);

const window = { requests: 0, errors: 0, late: 0, recallMs: [] as number[], since: 0 };
const totals = { requests: 0, errors: 0, late: 0, refused: 0 };
const errorKinds = new Map<string, number>();
let inFlight = 0;
const before = { remembered, erased };
const started = window.since = performance.now();
const deadline = started + DURATION_MS;

async function timed(kind: Kind, i: number): Promise<void> {
  inFlight++;
  const sent = performance.now();
  try {
    await send(kind, i);
    if (kind === "recall") window.recallMs.push(performance.now() - sent);
    window.requests++;
  } catch (error) {
    window.errors++;
    const key = `${kind}: ${(error as Error).message}`.slice(0, 120);
    errorKinds.set(key, (errorKinds.get(key) ?? 0) + 1);
  } finally {
    inFlight--;
  }
}

const load = (async () => {
  const pending = new Set<Promise<void>>();
  for (let i = 0;; i++) {
    const due = started + (i * 1000) / rate;
    if (due >= deadline) break;
    // A timer even when behind: the answers are read meanwhile.
    await sleep(Math.max(0, due - performance.now()));
    if (inFlight >= MAX_IN_FLIGHT) {
      window.late++;
      continue;
    }
    const request = timed(kindOf(i), i);
    pending.add(request);
    request.finally(() => pending.delete(request));
  }
  await Promise.all(pending);
})();

const hostile = (async () => {
  const url = new URL(relayer.url);
  while (performance.now() < deadline) {
    await stranger.whoami().catch(() => totals.refused++);
    await truncatedBody(url).then(() => totals.refused++).catch(() => {});
    await sleep(200);
  }
})();

const samples: Record<string, number>[] = [];
const sample = async () => {
  const sorted = window.recallMs.toSorted((a, b) => a - b);
  totals.requests += window.requests;
  totals.errors += window.errors;
  totals.late += window.late;
  samples.push({
    minute: round((performance.now() - started) / 60_000),
    rss_mb: await rssMb(pid),
    ...descriptors(pid),
    worker_jobs: await workerJobs(relayer.url),
    memories: memories(),
    requests_per_s: Math.round(window.requests / ((performance.now() - window.since) / 1000)),
    errors: window.errors,
    late: window.late,
    recall_p50_ms: round(percentile(sorted, 50)),
    recall_p99_ms: round(percentile(sorted, 99)),
  });
  Object.assign(window, {
    requests: 0,
    errors: 0,
    late: 0,
    recallMs: [],
    since: performance.now(),
  });
  console.log(JSON.stringify(samples.at(-1)));
};
await sample();
while (performance.now() < deadline) {
  await sleep(Math.min(EVERY_MS, Math.max(0, deadline - performance.now())));
  await sample();
}
await Promise.all([load, hostile]);
if (window.requests + window.errors + window.late > 0) await sample();

// After the load: how long the queue takes to empty, and the memory of the process left idle.
const drainS = await drained(SEEDED + remembered, 600_000);
await sleep(10_000);
const soakedRss = await rssMb(pid);
const soakedFiles = descriptors(pid);
await relayer.stop();

// The same data in a fresh process, warmed with recalls as the soak's were sent.
await using fresh = await startRelayer(dataDir);
const freshClient = await SvcClient.create({ baseUrl: fresh.url, privateKey, accountId });
let q = 0;
await closedLoop(
  "fresh recall",
  4,
  () => freshClient.recall(`tea number ${q++ % 97}`, { namespace: NAMESPACE, limit: 5 }),
  {
    seconds: 60,
    cpu: {},
  },
);
await sleep(10_000);
const freshRss = await rssMb(fresh.process.pid);
const freshFiles = descriptors(fresh.process.pid);
await fresh.stop();

// After warm-up (all the samples of a run shorter than that).
const warm = samples.some((s) => s.minute >= 3) ? samples.filter((s) => s.minute >= 3) : samples;
const result = {
  date: new Date().toISOString(),
  machine: machine(),
  minutes: DURATION_MS / 60_000,
  capacity_requests_per_s: capacity?.requests_per_s ?? null,
  rate_requests_per_s: rate,
  requests: totals.requests,
  errors: totals.errors,
  error_kinds: Object.fromEntries(errorKinds),
  late: totals.late,
  remembered: remembered - before.remembered,
  erased: erased - before.erased,
  erases_that_found_it_expired: expiredFirst,
  refused_requests_sent: totals.refused,
  queue_empty_after_load_s: drainS,
  files_after_warm_up: [
    Math.min(...warm.map((s) => s.files)),
    Math.max(...warm.map((s) => s.files)),
  ],
  rss_mb_after_warm_up: [
    Math.min(...warm.map((s) => s.rss_mb)),
    Math.max(...warm.map((s) => s.rss_mb)),
  ],
  soaked: { rss_mb: soakedRss, ...soakedFiles },
  fresh_on_same_data: { rss_mb: freshRss, ...freshFiles },
  samples,
};
console.table(samples);
console.log(JSON.stringify({ ...result, samples: undefined }, null, 2));
await writeResults(values.out!, result);
await Deno.remove(dataDir, { recursive: true });
