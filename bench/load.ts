/**
 * Load: the relayer as its own process (`main.ts`, embedded default, free ports, a temporary data
 * directory), driven over HTTP on 127.0.0.1 by closed-loop clients that sign every request
 * (fresh timestamp and nonce). For each of `--clients` (1, 20, 50) it measures the unsigned
 * `/health` (the HTTP ceiling), signed `whoami`, single and bulk remember, and recall at each of
 * `--sizes` memories (the short facts of `fact_workload.ts`, ingested through the public bulk
 * API). It also reports the ingest rate (accepted → every job done) in bulks and, with the
 * remember workload, of 1,000 facts sent one per request by 20 clients, remember → recallable for
 * single memories, recall's hit rate on the facts' questions, the relayer's resident memory and
 * the index's disk use. Prints a table and writes `bench/results/load.json` (or `--out`).
 * Every memory request appends to the owner's access log; after the recall cells of each size,
 * the log's recall entries written during them are counted (`access_log`), to show it kept up.
 *
 *   deno task bench:load [--sizes 1000,10000,100000] [--clients 1,20,50] [--seconds 10]
 *                        [--workloads health,whoami,recall,remember]
 *                        [--cpu-prof DIR] [--root CHECKOUT/] [--out FILE]
 *
 * `--cpu-prof DIR` writes the relayer's V8 CPU profile there when it stops; `--root` runs another
 * checkout's relayer (a baseline) against the same harness; `--sizes ""` ingests nothing (the
 * health and whoami cells alone).
 *
 * Each cell also reports the CPU time the relayer process (all its threads, not its sidecar) and
 * this generator spent per successful request, since on a small machine the generator, which
 * shares its cores, can be the limit. `whoami` is signed by a lean loop rather than `SvcClient`
 * (the same version 2 format, a fresh timestamp and random nonce per request): the client's
 * conveniences cost the generator CPU the relayer would otherwise get.
 */
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { type Fact, factWorkload, spreadIndexes } from "./fact_workload.ts";
import {
  allDone,
  diskBytes,
  percentile,
  resultsFile,
  round,
  rssMb,
  writeResults,
} from "./harness.ts";
import {
  type Cell,
  closedLoop as loop,
  ingest,
  leanHealth,
  leanRecall,
  leanSigned,
  leanWhoami,
  processCpuMs,
} from "./load_generator.ts";
import { flags, oneOf, positive, wholes } from "./flags.ts";

const { values } = flags({
  options: {
    sizes: { type: "string", default: "1000,10000,100000" },
    clients: { type: "string", default: "1,20,50" },
    seconds: { type: "string", default: "10" },
    workloads: { type: "string", default: "health,whoami,recall,remember" },
    "cpu-prof": { type: "string" },
    root: { type: "string" },
    out: {
      type: "string",
      default: resultsFile("load.json"),
    },
  },
});
const SIZES = wholes(values.sizes, "--sizes");
const CLIENTS = wholes(values.clients, "--clients");
const SECONDS = positive(values.seconds, "--seconds");
const WORKLOADS = new Set(
  oneOf(values.workloads, "--workloads", ["health", "whoami", "recall", "remember"]),
);

async function indexDiskMb(dataDir: string): Promise<number> {
  let total = await diskBytes(`${dataDir}/lancedb`);
  for (const suffix of ["", "-wal", "-shm"]) {
    total += await diskBytes(`${dataDir}/index.sqlite${suffix}`);
  }
  return round(total / 2 ** 20);
}

/**
 * Remembers `facts` into `namespace` one per request, from `clients` closed-loop clients; the
 * rates at which they were accepted and became recallable (all done).
 */
async function ingestOneByOne(client: SvcClient, facts: Fact[], namespace: string, clients = 20) {
  const jobIds: string[] = new Array(facts.length);
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: clients }, async () => {
    while (next < facts.length) {
      const at = next++;
      const answer = await client.remember(facts[at].text, { namespace });
      if (answer.status === "duplicate") throw new Error(`fact ${at} is a duplicate`);
      jobIds[at] = answer.job_id;
    }
  }));
  const acceptedS = (performance.now() - started) / 1000;
  await allDone(client, jobIds);
  const doneS = (performance.now() - started) / 1000;
  return {
    memories: facts.length,
    clients,
    accepted_per_s: Math.round(facts.length / acceptedS),
    recallable_per_s: Math.round(facts.length / doneS),
    accepted_to_all_recallable_s: round(doneS - acceptedS, 2),
  };
}

/** Single memories remembered one after another, each polled by recall until found. */
async function rememberToRecallable(client: SvcClient, samples: number) {
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const text = `probe ${i} remembers the token q${crypto.randomUUID().slice(0, 8)}`;
    const answer = await client.remember(text, { namespace: "probe" });
    if (answer.status === "duplicate") throw new Error("a probe text is a duplicate");
    const { job_id } = answer;
    const accepted = performance.now();
    while (true) {
      const { results } = await client.recall(text, { namespace: "probe", limit: 3 });
      if (results.some((r) => r.id === job_id)) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    ms.push(performance.now() - accepted);
  }
  ms.sort((a, b) => a - b);
  return { samples, p50_ms: round(percentile(ms, 50)), p95_ms: round(percentile(ms, 95)) };
}

/**
 * The access log's recall entries since `since` (ISO 8601), read back page by page, and how long
 * reading them took; `null` against a relayer without an access log (a baseline).
 */
async function accessLogCount(client: SvcClient, since: string) {
  const started = performance.now();
  let entries = 0, pages = 0;
  let cursor: string | undefined;
  try {
    do {
      const page = await client.accessLog({ op: "recall", since, limit: 500, cursor });
      entries += page.entries.length;
      pages++;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  } catch (error) {
    if (error instanceof Error && /No route/.test(error.message)) return null;
    throw error;
  }
  return { recall_entries: entries, pages, read_ms: round(performance.now() - started) };
}

/** hit@1 and hit@10 of the facts' questions, over `samples` facts spread through the namespace. */
async function hitRate(client: SvcClient, facts: Fact[], namespace: string, samples = 200) {
  let at1 = 0, at10 = 0;
  let asked = 0;
  for (const i of spreadIndexes(facts.length, samples)) {
    asked++;
    const { results } = await client.recall(facts[i].question, { namespace, limit: 10 });
    const rank = results.findIndex((r) => r.text === facts[i].text);
    if (rank === 0) at1++;
    if (rank >= 0) at10++;
  }
  return { questions: asked, hit_at_1: round(at1 / asked, 3), hit_at_10: round(at10 / asked, 3) };
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-load-" });
const profileFlags = values["cpu-prof"]
  ? ["--cpu-prof", `--cpu-prof-dir=${values["cpu-prof"]}`]
  : [];
const relayer = await startRelayer(dataDir, {}, {
  root: values.root,
  flags: profileFlags,
});
const pid = relayer.process.pid;
const closedLoop = (
  workload: string,
  clients: number,
  call: (worker: number, i: number) => Promise<unknown>,
) => loop(workload, clients, call, { seconds: SECONDS, cpu: { relayer: () => processCpuMs(pid) } });
// Ctrl-C stops the relayer too.
const interrupted = () => relayer.kill().finally(() => Deno.exit(130));
Deno.addSignalListener("SIGINT", interrupted);
const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
// No retries: a refused or failed request counts as an error.
const client = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId, retries: 0 });

const cells: Cell[] = [];
const health = leanHealth(relayer.url);
for (const clients of WORKLOADS.has("health") ? CLIENTS : []) {
  cells.push(await closedLoop("health (unsigned)", clients, health));
}
const whoami = await leanWhoami(relayer.url, privateKey, accountId);
const recall = leanRecall(await leanSigned(relayer.url, privateKey, accountId));
for (const clients of WORKLOADS.has("whoami") ? CLIENTS : []) {
  cells.push(await closedLoop("whoami", clients, whoami));
}

const ingests = [];
const hits = [];
const accessLogs = [];
const probeText = (w: number, i: number) => `load ${w}-${i} the user keeps bees number ${i % 89}`;
for (const size of SIZES) {
  const facts = factWorkload(size);
  const namespace = `facts-${size}`;
  ingests.push(await ingest(client, facts, namespace));
  console.log(JSON.stringify(ingests.at(-1)));
  hits.push({ memories: size, ...await hitRate(client, facts, namespace) });
  console.log(JSON.stringify(hits.at(-1)));
  const recallsFrom = new Date().toISOString();
  let recalls = 0;
  for (const clients of WORKLOADS.has("recall") ? CLIENTS : []) {
    cells.push({
      ...await closedLoop(
        `recall ${size}`,
        clients,
        (w, i) => recall(facts[(w * 7919 + i * 104_729) % size].question, namespace),
      ),
      memories: size,
    });
    recalls += cells.at(-1)!.requests_per_s * SECONDS + cells.at(-1)!.errors;
  }
  const log = WORKLOADS.has("recall") ? await accessLogCount(client, recallsFrom) : null;
  if (log) {
    accessLogs.push({ memories: size, recalls_about: Math.round(recalls), ...log });
    console.log(JSON.stringify(accessLogs.at(-1)));
  }
}
// Before the remember cells, which leave the queue a backlog.
const recallable = await rememberToRecallable(client, 50);
console.log(JSON.stringify({ remember_to_recallable: recallable }));
const oneByOne = WORKLOADS.has("remember")
  ? await ingestOneByOne(client, factWorkload(1000), "facts-one-by-one")
  : undefined;
if (oneByOne) console.log(JSON.stringify({ ingest_one_by_one: oneByOne }));
for (const clients of WORKLOADS.has("remember") ? CLIENTS : []) {
  cells.push(
    await closedLoop(
      "remember (one)",
      clients,
      (w, i) => client.remember(probeText(w, i), { namespace: "load" }),
    ),
  );
  const bulk = await closedLoop("remember (bulk of 20)", clients, (w, i) =>
    client.rememberBulk(
      Array.from({ length: 20 }, (_, j) => ({ text: probeText(w, i * 20 + j), namespace: "bulk" })),
    ));
  cells.push({ ...bulk, memories_per_s: bulk.requests_per_s * 20 });
}
const rss = await rssMb(pid);
const indexMb = await indexDiskMb(dataDir);
await relayer.stop();

const result = {
  date: new Date().toISOString(),
  machine: `${navigator.hardwareConcurrency} cores, ${
    Math.round(Deno.systemMemoryInfo().total / 2 ** 30)
  } GiB, load average ${
    Deno.loadavg().map((x) => round(x, 2)).join(" ")
  }, deno ${Deno.version.deno}`,
  relayer: values.root ?? "this checkout",
  seconds_per_cell: SECONDS,
  cells,
  ingest: ingests,
  ingest_one_by_one: oneByOne,
  hit_rate: hits,
  access_log: accessLogs,
  remember_to_recallable: recallable,
  relayer_rss_mb_after_load: rss,
  index_disk_mb: indexMb,
};
console.table(cells);
console.log(JSON.stringify({ ...result, cells: undefined }, null, 2));
await writeResults(values.out!, result);
await Deno.remove(dataDir, { recursive: true });
Deno.removeSignalListener("SIGINT", interrupted); // else it keeps the process alive
