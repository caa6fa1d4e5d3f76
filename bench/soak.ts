/**
 * Soak: the relayer as its own process (`main.ts`, embedded default, free ports, a temporary
 * data directory) under steady mixed traffic from signing clients over HTTP on 127.0.0.1 for
 * `--minutes` (default 10): remembers (until `--memories`, default 1,000, are stored, so the data
 * stops growing and what is left is the relayer's own memory), recalls and `whoami`s from
 * `--clients` clients, plus a trickle of refused requests (unknown keys, truncated bodies). Every `--every` seconds
 * (default 30) it samples the relayer's resident memory (VmRSS) and the window's request count
 * and recall latency. Memory is flat when the last samples stay near the first ones after
 * warm-up. Prints a table and writes `bench/results/soak.json`.
 *
 *   deno task bench:soak [--minutes 10] [--every 30] [--clients 4] [--memories 1000] [--out FILE]
 */
import { generateKeyPair } from "../src/auth/keys.ts";
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { resultsFile, writeResults } from "./harness.ts";
import { flags, positive, whole } from "./flags.ts";

const { values } = flags({
  options: {
    minutes: { type: "string", default: "10" },
    every: { type: "string", default: "30" },
    clients: { type: "string", default: "4" },
    memories: { type: "string", default: "1000" },
    out: { type: "string", default: resultsFile("soak.json") },
  },
});
const DURATION_MS = positive(values.minutes, "--minutes") * 60_000;
const EVERY_MS = positive(values.every, "--every") * 1000;
const CLIENTS = whole(values.clients, "--clients");
const MEMORIES = whole(values.memories, "--memories");

/** Resident memory of a process, in MB. */
async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024);
}

function percentile(sorted: number[], p: number): number {
  return sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.floor(p / 100 * sorted.length))]
    : 0;
}

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
const { client } = await newAccountClient(dataDir, relayer.url);
const stranger = await SvcClient.create({
  baseUrl: relayer.url,
  privateKey: (await generateKeyPair()).privateKey,
});

let requests = 0, refused = 0, failures = 0, remembered = 0;
let recallMs: number[] = [];
const deadline = Date.now() + DURATION_MS;

async function traffic(worker: number): Promise<void> {
  for (let i = 0; Date.now() < deadline; i++) {
    try {
      if (i % 5 === 0 && remembered < MEMORIES) {
        remembered++;
        await client.remember(`soak ${worker}-${i}: the user likes tea number ${i % 97}`, {
          namespace: "soak",
        });
      } else if (i % 5 === 4) {
        await client.whoami();
      } else {
        const started = performance.now();
        await client.recall(`tea number ${i % 97}`, { namespace: "soak", limit: 5 });
        recallMs.push(performance.now() - started);
      }
      requests++;
    } catch {
      failures++;
    }
  }
}

async function hostile(): Promise<void> {
  const url = new URL(relayer.url);
  while (Date.now() < deadline) {
    await stranger.whoami().catch(() => refused++);
    await truncatedBody(url).then(() => refused++).catch(() => {});
    await new Promise((r) => setTimeout(r, 200));
  }
}

const samples: Record<string, number>[] = [];
const sampler = (async () => {
  const started = Date.now();
  samples.push({
    minute: 0,
    rss_mb: await rssMb(pid),
    requests: 0,
    recall_p50_ms: 0,
    recall_p99_ms: 0,
  });
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, Math.min(EVERY_MS, Math.max(0, deadline - Date.now()))));
    const sorted = recallMs.toSorted((a, b) => a - b);
    recallMs = [];
    samples.push({
      minute: Math.round((Date.now() - started) / 6000) / 10,
      rss_mb: await rssMb(pid),
      requests,
      recall_p50_ms: Math.round(percentile(sorted, 50) * 10) / 10,
      recall_p99_ms: Math.round(percentile(sorted, 99) * 10) / 10,
    });
    console.log(JSON.stringify(samples.at(-1)));
  }
})();

await Promise.all([...Array.from({ length: CLIENTS }, (_, w) => traffic(w)), hostile(), sampler]);

const afterWarmUp = samples.slice(Math.min(4, samples.length - 1)).map((s) => s.rss_mb);
const result = {
  date: new Date().toISOString(),
  machine: `${navigator.hardwareConcurrency} cores, Deno ${Deno.version.deno}`,
  minutes: DURATION_MS / 60_000,
  clients: CLIENTS,
  memories: remembered,
  requests,
  refused_requests_sent: refused,
  client_failures: failures,
  rss_after_warm_up_min_mb: Math.min(...afterWarmUp),
  rss_after_warm_up_max_mb: Math.max(...afterWarmUp),
  samples,
};
console.table(samples);
console.log(JSON.stringify({ ...result, samples: undefined }, null, 2));
await writeResults(values.out!, result);
await relayer.stop();
await Deno.remove(dataDir, { recursive: true });
