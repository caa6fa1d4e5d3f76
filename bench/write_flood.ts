/**
 * One account's flood of writes beside another account's remembers, against a relayer running as
 * its own process (`deno task start`'s flags, a temporary data directory, the embedder
 * `SVC_EMBEDDER` names, GloVe by default). The first account sends `--memories` memories in bulk
 * requests of 20, 50 at a time; meanwhile the second remembers one memory every half second,
 * `--remembers` times, and times each from its request until its job is done, then one recall.
 * Prints and saves JSON.
 *
 *   deno task bench:write-flood [--memories 20000] [--remembers 10]
 *     [--root <checkout whose relayer runs>] [--out bench/results/write_flood.json]
 */
import { fileURLToPath } from "node:url";
import type { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { allDone, machine, resultsFile, round, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    memories: { type: "string", default: "20000" },
    remembers: { type: "string", default: "10" },
    root: { type: "string", default: fileURLToPath(new URL("..", import.meta.url)) },
    out: { type: "string", default: resultsFile("write_flood.json") },
  },
});
const MEMORIES = whole(values.memories, "--memories");
const REMEMBERS = whole(values.remembers, "--remembers");

/** Sends the flood in bulks of 20, 50 bulks in flight at most; resolves to its job ids. */
async function flood(client: SvcClient): Promise<string[]> {
  const jobIds: string[] = [];
  for (let from = 0; from < MEMORIES; from += 20 * 50) {
    const bulks = [];
    for (let bulk = from; bulk < Math.min(from + 20 * 50, MEMORIES); bulk += 20) {
      const items = Array.from({ length: Math.min(20, MEMORIES - bulk) }, (_, i) => ({
        text: `Flood fact ${bulk + i} about topic ${(bulk + i) % 97}`,
      }));
      bulks.push(client.rememberBulk(items));
    }
    for (const answer of await Promise.all(bulks)) jobIds.push(...answer.job_ids);
  }
  return jobIds;
}

/**
 * The milliseconds from each remember of `client` to its job done, one every half second, and
 * of a recall after each.
 */
async function remembers(client: SvcClient) {
  const waits: number[] = [], recalls: number[] = [];
  for (let i = 0; i < REMEMBERS; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    let started = performance.now();
    const { job_id } = await client.remember(`My own fact number ${i}`);
    await allDone(client, [job_id], 600_000);
    waits.push(round(performance.now() - started));
    started = performance.now();
    await client.recall(`which fact number ${i} is mine`);
    recalls.push(round(performance.now() - started));
  }
  return { waits, recalls };
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-write-flood-" });
const relayer = await startRelayer(dataDir, {}, { root: values.root });
try {
  const flooding = await newAccountClient(dataDir, relayer.url);
  const other = await newAccountClient(dataDir, relayer.url);
  await allDone(other.client, [(await other.client.remember("A first fact")).job_id], 60_000);
  const started = performance.now();
  const [floodJobs, { waits, recalls }] = await Promise.all([
    flood(flooding.client),
    remembers(other.client),
  ]);
  await allDone(flooding.client, floodJobs, 1_800_000);
  const result = {
    machine: machine(),
    embedder: Deno.env.get("SVC_EMBEDDER") ?? "local",
    memories: MEMORIES,
    flood_seconds: round((performance.now() - started) / 1000),
    other_remember_ms: waits,
    other_remember_max_ms: Math.max(...waits),
    other_recall_ms: recalls,
  };
  console.log(JSON.stringify(result, null, 2));
  await writeResults(values.out!, result);
} finally {
  await relayer.kill();
  await Deno.remove(dataDir, { recursive: true });
}
