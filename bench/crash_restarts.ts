/**
 * Crash restarts: a relayer killed while it stores a backlog, again and again, as a crash loop
 * or a service manager's restarts do. One client accepts `--jobs` memories in bulks of 20 (8 at a
 * time) on a fresh relayer (its own process, the embedded default), which is SIGKILLed as soon as
 * the last is accepted; then `--crashes` times a relayer starts on the same data directory and is
 * SIGKILLed `--lives` ms later; then a last one starts and stores what is left. Reports how long
 * that last relayer took until every job was done, its CPU until then, and its CPU over the
 * `--after` seconds that follow (work it still does for jobs already done).
 *
 *   deno task bench:crash-restarts [--jobs 12000] [--crashes 4] [--lives 300] [--after 20]
 *                                  [--root CHECKOUT/] [--out FILE]
 *
 * `--root` runs another checkout's relayer (a baseline) against the same harness.
 */
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { allDone, machine, resultsFile, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    jobs: { type: "string", default: "12000" },
    crashes: { type: "string", default: "4" },
    lives: { type: "string", default: "300" },
    after: { type: "string", default: "20" },
    root: { type: "string" },
    out: { type: "string", default: resultsFile("crash_restarts.json") },
  },
});
const JOBS = whole(values.jobs, "--jobs", 20);
const CRASHES = whole(values.crashes, "--crashes", 0);
const LIVES_MS = whole(values.lives, "--lives", 0);
const AFTER_S = whole(values.after, "--after", 0);
const options = { root: values.root, processGroup: true };

/** CPU time the process has used, user and system, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = Deno.readTextFileSync(`/proc/${pid}/stat`).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-crash-restarts-" });
try {
  let relayer = await startRelayer(dataDir, {}, options);
  const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
  const connect = (url: string) => SvcClient.create({ baseUrl: url, privateKey, accountId });
  const first = await connect(relayer.url);
  const jobIds: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let bulk = next++; bulk * 20 < JOBS; bulk = next++) {
      const items = Array.from({ length: 20 }, (_, i) => ({
        text: `Fact ${bulk * 20 + i} of the backlog: item ${i} of bulk ${bulk}`,
      }));
      jobIds.push(...(await first.rememberBulk(items)).job_ids);
    }
  }));
  await relayer.kill();
  for (let i = 0; i < CRASHES; i++) {
    relayer = await startRelayer(dataDir, {}, options);
    await new Promise((resolve) => setTimeout(resolve, LIVES_MS));
    await relayer.kill();
  }
  const started = performance.now();
  relayer = await startRelayer(dataDir, {}, options);
  await allDone(await connect(relayer.url), jobIds, 30 * 60_000);
  const doneS = (performance.now() - started) / 1000;
  const cpuAtDone = cpuMs(relayer.process.pid);
  await new Promise((resolve) => setTimeout(resolve, AFTER_S * 1000));
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    svc_relayer: values.root ?? "this checkout",
    workload: { jobs: jobIds.length, crashes: CRASHES, lives_ms: LIVES_MS, after_s: AFTER_S },
    all_done_s: Math.round(doneS * 10) / 10,
    relayer_cpu_s_until_done: cpuAtDone / 1000,
    relayer_cpu_s_after: (cpuMs(relayer.process.pid) - cpuAtDone) / 1000,
  };
  console.log(JSON.stringify(result));
  await relayer.stop();
  await writeResults(values.out!, result);
} finally {
  await Deno.remove(dataDir, { recursive: true });
}
