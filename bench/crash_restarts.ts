/**
 * Crash restarts: a relayer killed while it stores a backlog, again and again, as a crash loop
 * or a service manager's restarts do. One client accepts `--jobs` memories in bulks of 20 (8 at a
 * time) on a fresh relayer (its own process, the embedded default), which is SIGKILLed as soon as
 * the last is accepted; then `--crashes` times a relayer starts on the same data directory and is
 * SIGKILLed `--lives` ms after it listens; then a last one starts and stores what is left.
 * Reports the jobs each start found unfinished and how long it took to listen, the time from the
 * first restart until every job was done and the CPU of the restarted relayers until then, the
 * last start's time until then, and the last relayer's CPU over the `--after` seconds that follow
 * (work it still does for jobs already done).
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
import { processCpuMs } from "./load_generator.ts";

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
  /** Unfinished jobs a start found (what its reconciler re-drove). */
  const found = (log: string) =>
    Number(log.match(/re-drove unfinished jobs[^\n]*"count":(\d+)/)?.[1] ?? 0);
  const restarted = performance.now();
  let cpuBefore = 0;
  const left: number[] = [];
  const listening: number[] = [];
  /** A relayer on the data directory, once it listens (how long that took is kept). */
  const start = async () => {
    const spawned = performance.now();
    const started = await startRelayer(dataDir, {}, options);
    listening.push((performance.now() - spawned) / 1000);
    return started;
  };
  for (let i = 0; i < CRASHES; i++) {
    relayer = await start();
    await new Promise((resolve) => setTimeout(resolve, LIVES_MS));
    cpuBefore += processCpuMs(relayer.process.pid);
    await relayer.kill();
    left.push(found(relayer.log()));
  }
  const started = performance.now();
  relayer = await start();
  await allDone(await connect(relayer.url), jobIds, 30 * 60_000);
  const doneAt = performance.now();
  const cpuAtDone = processCpuMs(relayer.process.pid);
  left.push(found(relayer.log()));
  await new Promise((resolve) => setTimeout(resolve, AFTER_S * 1000));
  const seconds = (ms: number) => Math.round(ms) / 1000;
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    svc_relayer: values.root ?? "this checkout",
    workload: { jobs: jobIds.length, crashes: CRASHES, lives_ms: LIVES_MS, after_s: AFTER_S },
    unfinished_at_each_start: left,
    each_start_until_listening_s: listening.map((s) => Math.round(s * 100) / 100),
    from_first_restart_until_all_done_s: seconds(doneAt - restarted),
    relayers_cpu_s_until_all_done: seconds(cpuBefore + cpuAtDone),
    last_start_until_all_done_s: seconds(doneAt - started),
    last_relayer_cpu_s_after: seconds(processCpuMs(relayer.process.pid) - cpuAtDone),
  };
  console.log(JSON.stringify(result));
  await relayer.stop();
  await writeResults(values.out!, result);
} finally {
  await Deno.remove(dataDir, { recursive: true });
}
