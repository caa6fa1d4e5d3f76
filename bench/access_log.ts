/**
 * What writing the access log costs recall, through the public HTTP path: two relayers run as
 * their own processes side by side (`main.ts` of this checkout, with the access log, and of
 * `--base`, a checkout without it), each holding the same `--size` short facts in one namespace
 * (ingested through the bulk API). Then, in `--rounds` rounds, each is driven in turn by
 * `--clients` closed-loop signing clients for `--round-seconds` (the order alternating round by
 * round), so that both see the same load of a shared machine. Reports each relayer's recall p50,
 * p95 and relayer CPU per recall over all rounds, the difference of the p50s, the median of the
 * rounds' paired p50 differences, and how many recall entries this checkout's log holds after
 * (read back through `GET /api/access-log`). Writes `bench/results/access_log.json` (or `--out`).
 *
 *   deno task bench:access-log --base ../svc-before/ [--size 10000] [--rounds 12]
 *                              [--round-seconds 5] [--clients 1] [--out FILE]
 */
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { factWorkload } from "./fact_workload.ts";
import { allDone, machine, percentile, resultsFile, round, writeResults } from "./harness.ts";
import { flags, positive, usage, whole } from "./flags.ts";

const { values } = flags({
  options: {
    base: { type: "string" },
    size: { type: "string", default: "10000" },
    rounds: { type: "string", default: "12" },
    "round-seconds": { type: "string", default: "5" },
    clients: { type: "string", default: "1" },
    out: {
      type: "string",
      default: resultsFile("access_log.json"),
    },
  },
});
if (!values.base) usage("--base CHECKOUT/ is required: a checkout without the access log");
const SIZE = whole(values.size, "--size");
const ROUNDS = whole(values.rounds, "--rounds");
const ROUND_MS = positive(values["round-seconds"], "--round-seconds") * 1000;
const CLIENTS = whole(values.clients, "--clients");
const NAMESPACE = "facts";
const facts = factWorkload(SIZE);

/** CPU time a process has used so far (user and system, all its threads), in ms. */
function processCpuMs(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A relayer of `root` (this checkout when absent) holding the facts, with a client. */
async function prepare(name: string, root?: string) {
  const dataDir = await Deno.makeTempDir({ prefix: `svc-access-log-${name}-` });
  const relayer = await startRelayer(dataDir, {}, { root });
  const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
  const client = await SvcClient.create({
    baseUrl: relayer.url,
    privateKey,
    accountId,
    retries: 0,
  });
  const jobIds: string[] = [];
  for (let i = 0; i < facts.length; i += 20) {
    const items = facts.slice(i, i + 20).map(({ text }) => ({ text, namespace: NAMESPACE }));
    jobIds.push(...(await client.rememberBulk(items)).job_ids);
  }
  await allDone(client, jobIds);
  // Warm: the namespace is loaded, the texts of the first questions' answers are read.
  for (let i = 0; i < 200; i++) {
    await client.recall(facts[(i * 104_729) % SIZE].question, { namespace: NAMESPACE });
  }
  console.log(JSON.stringify({ ready: name, url: relayer.url }));
  return {
    name,
    dataDir,
    relayer,
    client,
    latencies: [] as number[],
    cpuMs: 0,
    rounds: [] as number[],
  };
}

type Side = Awaited<ReturnType<typeof prepare>>;

/** One round on `side`: `CLIENTS` loops recalling for `ROUND_MS`; the round's p50. */
async function runRound(side: Side, offset: number): Promise<number> {
  const cpu = processCpuMs(side.relayer.process.pid);
  const deadline = performance.now() + ROUND_MS;
  const ms: number[] = [];
  await Promise.all(Array.from({ length: CLIENTS }, async (_, worker) => {
    for (let i = offset + worker * 7919; performance.now() < deadline; i++) {
      const sent = performance.now();
      await side.client.recall(facts[(i * 104_729) % SIZE].question, {
        namespace: NAMESPACE,
        limit: 10,
      });
      ms.push(performance.now() - sent);
    }
  }));
  side.cpuMs += processCpuMs(side.relayer.process.pid) - cpu;
  side.latencies.push(...ms);
  ms.sort((a, b) => a - b);
  side.rounds.push(percentile(ms, 50));
  return percentile(ms, 50);
}

const sides: Side[] = [];
const stopAll = async () => {
  for (const side of sides.splice(0)) {
    await side.relayer.stop();
    await Deno.remove(side.dataDir, { recursive: true });
  }
};
// Ctrl-C stops the relayers too.
const interrupted = () => stopAll().finally(() => Deno.exit(130));
Deno.addSignalListener("SIGINT", interrupted);
const differences: number[] = [];
try {
  sides.push(await prepare("access-log"));
  sides.push(await prepare("base", values.base));
  const [withLog, base] = sides;
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [withLog, base] : [base, withLog];
    const p50 = new Map<Side, number>();
    for (const side of order) p50.set(side, await runRound(side, r * 1000));
    differences.push(p50.get(withLog)! - p50.get(base)!);
    console.log(JSON.stringify({
      round: r + 1,
      p50_with_log_ms: round(p50.get(withLog)!, 2),
      p50_base_ms: round(p50.get(base)!, 2),
    }));
  }
  const summary = (side: Side) => {
    const sorted = [...side.latencies].sort((a, b) => a - b);
    return {
      recalls: sorted.length,
      p50_ms: round(percentile(sorted, 50), 2),
      p95_ms: round(percentile(sorted, 95), 2),
      relayer_cpu_us_per_recall: Math.round(side.cpuMs * 1000 / sorted.length),
    };
  };
  let logged = 0;
  let cursor: string | undefined;
  do {
    const page = await withLog.client.accessLog({ op: "recall", limit: 500, cursor });
    logged += page.entries.length;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  differences.sort((a, b) => a - b);
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    memories: SIZE,
    clients: CLIENTS,
    rounds: ROUNDS,
    round_seconds: ROUND_MS / 1000,
    with_access_log: summary(withLog),
    base: { checkout: values.base, ...summary(base) },
    p50_difference_ms: round(summary(withLog).p50_ms - summary(base).p50_ms, 2),
    median_paired_round_difference_ms: round(percentile(differences, 50), 2),
    round_p50s_ms: {
      with_access_log: withLog.rounds.map((x) => round(x, 2)),
      base: base.rounds.map((x) => round(x, 2)),
    },
    // Every recall of the warm-up and the rounds, read back from the log.
    recall_entries_logged: logged,
    recalls_sent: withLog.latencies.length + 200,
  };
  console.log(JSON.stringify(result, null, 2));
  await writeResults(values.out!, result);
} finally {
  await stopAll();
  Deno.removeSignalListener("SIGINT", interrupted);
}
