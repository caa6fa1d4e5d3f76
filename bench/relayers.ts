/**
 * Many relayers on PostgreSQL: throughput and latency with 1, 2 and 3 relayer processes
 * (`main.ts`, `SVC_STORE=postgres`, each its own data directory and sidecar) on one database, and
 * one embedded relayer for comparison. The database is a fresh one on the PostgreSQL the test
 * harness starts (`plugins/postgres/testing/test_server.ts`: `fsync=off`), or on `--database-url`'s
 * server (each configuration then works in an account of its own).
 *
 * The generator is `load_generator.ts`'s: closed-loop clients signing every request (version 2,
 * fresh timestamp and nonce). It is its own round-robin balancer: request k goes straight to
 * relayer k mod N, signed for that relayer's origin, so no proxy's CPU is in the figures. Per
 * configuration:
 *
 * - `whoami`: signed `whoami` from `--clients` clients;
 * - `bulk remember`: `--memories` facts remembered in bulks of 20 from 8 clients, accepted per
 *   second and recallable per second (until every job is done);
 * - `recall N`: recall of those facts' questions from `--clients` clients;
 * - `recall N under writes` (2 relayers or more): the same recalls sent to every relayer but the
 *   first, while one client remembers bulks of 20 new facts into the same namespace on the
 *   first, each bulk once the last is recallable (a steady writer another relayer must follow);
 * - `remember → recallable`: `--samples` single memories, each remembered on relayer A and polled
 *   by recall on relayer B (the next one): p50/p95 of accepted → found.
 *
 * Each cell runs `--warmup` seconds unrecorded first (JIT, caches, every relayer's resident
 * index). Every cell reports the CPU time per successful request of the relayers (all their threads,
 * not their sidecars), of the PostgreSQL server (postmaster and backends) and of this generator:
 * and, on PostgreSQL, the database transactions committed per request (each a round trip at
 * least; a group commit counts once for all its requests): on a small machine they share the cores, so the requests per second show the machine, and the
 * CPU per request shows what more cores would give. Writes `bench/results/relayers.json`.
 *
 *   deno task bench:relayers [--configs embedded,1,2,3] [--clients 20] [--seconds 10]
 *                            [--memories 1000] [--samples 100] [--warmup 3] [--pool N]
 *                            [--database-url postgres://…] [--cpu-prof DIR] [--out FILE]
 */
import postgres from "postgres";
import { type TestDatabase, testDatabase } from "../plugins/postgres/testing/test_server.ts";
import { SvcClient } from "../src/client/mod.ts";
import { type RelayerProcess, startRelayer, svcCli } from "../tests/relayer_process.ts";
import { type Fact, factWorkload } from "./fact_workload.ts";
import {
  allDone,
  machine,
  percentile,
  resultsFile,
  round,
  rssMb,
  writeResults,
} from "./harness.ts";
import {
  type Cell,
  closedLoop,
  ingest,
  leanRecall,
  leanSigned,
  leanWhoami,
  processCpuMs,
  processTreeCpuMs,
} from "./load_generator.ts";
import { flags, positive, whole } from "./flags.ts";

const { values } = flags({
  options: {
    configs: { type: "string", default: "embedded,1,2,3" },
    clients: { type: "string", default: "20" },
    seconds: { type: "string", default: "10" },
    memories: { type: "string", default: "1000" },
    samples: { type: "string", default: "100" },
    warmup: { type: "string", default: "3" },
    pool: { type: "string" },
    "database-url": { type: "string" },
    "cpu-prof": { type: "string" },
    out: {
      type: "string",
      default: resultsFile("relayers.json"),
    },
  },
});
const CLIENTS = whole(values.clients, "--clients");
const SECONDS = positive(values.seconds, "--seconds");
const MEMORIES = whole(values.memories, "--memories");
const SAMPLES = whole(values.samples, "--samples");
const WARMUP = whole(values.warmup, "--warmup", 0);
const POOL = values.pool === undefined ? undefined : whole(values.pool, "--pool");
const MASTER_KEY = "6b".repeat(32);

/** The relayers of one configuration, their clients and CPU meters. */
interface Deployment {
  name: string;
  relayers: RelayerProcess[];
  clients: SvcClient[];
  whoamis: (() => Promise<void>)[];
  recalls: ((query: string, namespace: string) => Promise<void>)[];
  cpu: Record<string, () => number>;
  /** Transactions committed in the database so far (every statement outside one is one). */
  commits?: () => Promise<number>;
  close(): Promise<void>;
}

/** The PostgreSQL server listening on `port` on this machine: its postmaster's pid, if found. */
function postmasterOf(port: string): number | undefined {
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      if (!argv[0].endsWith("postgres")) continue;
      const at = argv.indexOf("-p");
      if (at >= 0 && argv[at + 1] === port) return Number(entry.name);
    } catch { /* gone, or not ours to read */ }
  }
  return undefined;
}

const profileFlags = values["cpu-prof"]
  ? ["--cpu-prof", `--cpu-prof-dir=${values["cpu-prof"]}`]
  : [];

async function clientsFor(relayers: RelayerProcess[], privateKey: string, accountId: string) {
  // No retries: a refused or failed request counts as an error.
  return {
    clients: await Promise.all(
      relayers.map((r) => SvcClient.create({ baseUrl: r.url, privateKey, accountId, retries: 0 })),
    ),
    whoamis: await Promise.all(relayers.map((r) => leanWhoami(r.url, privateKey, accountId))),
    recalls: await Promise.all(
      relayers.map(async (r) => leanRecall(await leanSigned(r.url, privateKey, accountId))),
    ),
  };
}

const relayersCpu = (relayers: RelayerProcess[]) => () =>
  relayers.reduce((sum, r) => sum + processCpuMs(r.process.pid), 0);

async function embedded(): Promise<Deployment> {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-relayers-" });
  const relayer = await startRelayer(dataDir, {}, { flags: profileFlags });
  const { accountId } = await svcCli(dataDir, ["account", "create"]);
  const key = await svcCli(dataDir, ["key", "add", "--account", accountId, "--label", "bench"]);
  return {
    name: "embedded, 1 relayer",
    relayers: [relayer],
    ...await clientsFor([relayer], key.privateKey, accountId),
    cpu: { relayers: relayersCpu([relayer]) },
    async close() {
      await relayer.stop();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

async function onPostgres(size: number): Promise<Deployment> {
  let database: TestDatabase | undefined;
  const url = values["database-url"] ?? (database = await testDatabase()).url;
  const root = await Deno.makeTempDir({ prefix: "svc-relayers-" });
  const env: Record<string, string> = {
    SVC_STORE: "postgres",
    SVC_DATABASE_URL: url,
    SVC_MASTER_KEY: MASTER_KEY,
    ...POOL ? { SVC_DATABASE_POOL: String(POOL) } : {},
  };
  const relayers: RelayerProcess[] = [];
  // One after another: the first migrates the schema, the others find it ready.
  for (let i = 0; i < size; i++) {
    await Deno.mkdir(`${root}/relayer-${i}`);
    relayers.push(
      await startRelayer(`${root}/relayer-${i}`, env, { processGroup: true, flags: profileFlags }),
    );
  }
  const dir = `${root}/relayer-0`;
  const { accountId } = await svcCli(dir, ["account", "create"], env);
  const key = await svcCli(dir, ["key", "add", "--account", accountId, "--label", "bench"], env);
  const postmaster = postmasterOf(new URL(url).port || "5432");
  const stats = postgres(url, { max: 1, onnotice: () => {} });
  return {
    name: `postgres, ${size} relayer${size > 1 ? "s" : ""}`,
    relayers,
    ...await clientsFor(relayers, key.privateKey, accountId),
    cpu: {
      relayers: relayersCpu(relayers),
      ...postmaster ? { postgres: () => processTreeCpuMs(postmaster) } : {},
    },
    async commits() {
      // Statistics are a snapshot per transaction: each call is its own.
      const [row] = await stats`
        select xact_commit::float8 as n from pg_stat_database where datname = current_database()`;
      return row.n;
    },
    async close() {
      await stats.end();
      for (const relayer of relayers) await relayer.stop();
      await database?.[Symbol.asyncDispose]();
      await Deno.remove(root, { recursive: true });
    },
  };
}

/**
 * Remembers `facts` into `namespace` in bulks of 20 from 8 clients, round robin over the
 * relayers: the rates at which they were accepted and became recallable (every job done), and
 * each process's CPU per memory.
 */
async function bulkRemember(d: Deployment, facts: Fact[], namespace: string) {
  const cpuBefore = Object.values(d.cpu).map((meter) => meter());
  const rates = await ingest(d.clients, facts, namespace);
  const cpu = Object.fromEntries(
    Object.entries(d.cpu).map((
      [name, meter],
      m,
    ) => [`${name}_cpu_ms_per_memory`, round((meter() - cpuBefore[m]) / facts.length, 2)]),
  );
  return { ...rates, ...cpu };
}

/**
 * Single memories, each remembered on relayer i mod N and polled by recall on relayer
 * (i + 1) mod N until found: p50/p95 of accepted → recallable there.
 */
async function rememberToRecallable(d: Deployment, samples: number) {
  const n = d.clients.length;
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const text = `probe ${i} remembers the token q${crypto.randomUUID().slice(0, 8)}`;
    const answer = await d.clients[i % n].remember(text, { namespace: "probe" });
    if (answer.status === "duplicate") throw new Error("a probe text is a duplicate");
    const accepted = performance.now();
    while (true) {
      const { results } = await d.clients[(i + 1) % n].recall(text, {
        namespace: "probe",
        limit: 3,
      });
      if (results.some((r) => r.id === answer.job_id)) break;
      if (performance.now() - accepted > 30_000) throw new Error(`probe ${i} never recallable`);
      await new Promise((r) => setTimeout(r, 2));
    }
    ms.push(performance.now() - accepted);
  }
  ms.sort((a, b) => a - b);
  return {
    samples,
    remembered_on: "relayer i mod N",
    recalled_on: "relayer (i + 1) mod N",
    p50_ms: round(percentile(ms, 50)),
    p95_ms: round(percentile(ms, 95)),
    max_ms: round(ms.at(-1) ?? 0),
  };
}

/**
 * A closed loop of `call` for `--warmup` seconds, unrecorded (every relayer's JIT and caches
 * warm, its resident index loaded), then the measured one.
 */
async function cell(
  d: Deployment,
  workload: string,
  call: (worker: number, i: number) => Promise<unknown>,
): Promise<Cell> {
  if (WARMUP > 0) {
    await closedLoop(`${workload} (warm-up)`, CLIENTS, call, { seconds: WARMUP, cpu: {} });
  }
  const before = await d.commits?.();
  const measured = await closedLoop(workload, CLIENTS, call, { seconds: SECONDS, cpu: d.cpu });
  if (before === undefined) return measured;
  // Backends report their counts at most every 500 ms (and when idle a second): wait for them.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const requests = measured.requests_per_s * SECONDS;
  const commits = round((await d.commits!() - before) / Math.max(1, requests), 2);
  console.log(JSON.stringify({ workload, database_commits_per_request: commits }));
  return { ...measured, database_commits_per_request: commits };
}

/**
 * Recall of `facts` on every relayer but the first while one client remembers bulks of 20 new
 * facts into their namespace on the first, each once the last is recallable.
 */
async function underWrites(d: Deployment, facts: Fact[]): Promise<Cell> {
  const n = d.relayers.length;
  const extra = factWorkload(facts.length + 20_000).slice(facts.length);
  let writing = true, written = 0;
  const writer = (async () => {
    while (writing) {
      const items = extra.slice(written, written + 20).map(({ text }) => ({
        text,
        namespace: "facts",
      }));
      const { job_ids } = await d.clients[0].rememberBulk(items);
      await allDone(d.clients[0], job_ids);
      written += items.length;
    }
  })();
  let next = 0;
  try {
    const started = written;
    const measured = await cell(d, `recall ${facts.length} under writes`, async (w, i) => {
      const question = facts[(w * 7919 + i * 104_729) % facts.length].question;
      await d.recalls[1 + next++ % (n - 1)](question, "facts");
    });
    const memories = written - started;
    return { ...measured, written_per_s: round(memories / (SECONDS + WARMUP), 1) };
  } finally {
    writing = false;
    await writer;
  }
}

async function measure(d: Deployment) {
  const n = d.relayers.length;
  const cells: Cell[] = [];
  let next = 0;
  cells.push(await cell(d, "whoami", () => d.whoamis[next++ % n]()));
  const facts = factWorkload(MEMORIES);
  const bulk = await bulkRemember(d, facts, "facts");
  console.log(JSON.stringify({ bulk_remember: bulk }));
  cells.push(
    await cell(d, `recall ${MEMORIES}`, async (w, i) => {
      const question = facts[(w * 7919 + i * 104_729) % MEMORIES].question;
      await d.recalls[next++ % n](question, "facts");
    }),
  );
  if (n > 1) cells.push(await underWrites(d, facts));
  const recallable = await rememberToRecallable(d, SAMPLES);
  console.log(JSON.stringify({ remember_to_recallable: recallable }));
  const rss = await Promise.all(d.relayers.map((r) => rssMb(r.process.pid)));
  return {
    configuration: d.name,
    relayers: n,
    cells,
    bulk_remember: bulk,
    remember_to_recallable: recallable,
    relayer_rss_mb: rss,
  };
}

const runs = [];
for (const config of values.configs!.split(",").filter(Boolean)) {
  const deployment = config === "embedded" ? await embedded() : await onPostgres(Number(config));
  console.log(`# ${deployment.name}`);
  try {
    runs.push(await measure(deployment));
  } finally {
    await deployment.close();
  }
}

const result = {
  date: new Date().toISOString(),
  machine: machine(),
  database: values["database-url"]
    ? "--database-url"
    : "the test harness's PostgreSQL (fsync=off), a fresh database per configuration",
  pool: POOL ?? "default (SVC_DATABASE_POOL 10)",
  clients: CLIENTS,
  seconds_per_cell: SECONDS,
  runs,
};
console.table(
  runs.flatMap((run) => run.cells.map((cell) => ({ configuration: run.configuration, ...cell }))),
);
console.table(runs.map((run) => ({
  configuration: run.configuration,
  bulk_accepted_per_s: run.bulk_remember.accepted_per_s,
  bulk_recallable_per_s: run.bulk_remember.recallable_per_s,
  recallable_p50_ms: run.remember_to_recallable.p50_ms,
  recallable_p95_ms: run.remember_to_recallable.p95_ms,
})));
await writeResults(values.out!, result);
