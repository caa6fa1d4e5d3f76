/**
 * The pieces of the load generator shared by `load.ts` and `relayers.ts`: closed-loop clients
 * that report requests per second, p50/p99, errors and the CPU time the measured processes and
 * this generator spent per successful request; a process's CPU time from `/proc`; a lean
 * signed `whoami`; and the bulk ingest of the short facts through the public API.
 */
import process from "node:process";
import { keyPairFromSeed } from "../src/auth/keys.ts";
import { signingMessage } from "../src/auth/signing.ts";
import type { SvcClient } from "../src/client/mod.ts";
import type { Fact } from "./fact_workload.ts";
import { allDone, percentile, round } from "./harness.ts";

/** What one closed-loop run measured. */
export interface Cell {
  workload: string;
  clients: number;
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  [extra: string]: string | number;
}

/** How long a closed loop runs and whose CPU time it reports. */
export interface LoopOptions {
  seconds: number;
  /**
   * CPU meters, each the CPU time (ms) its processes have used so far: the cell reports
   * `<name>_cpu_us_per_request` for each. The generator's own is always reported.
   */
  cpu: Record<string, () => number>;
}

/**
 * `clients` loops calling `call(worker, i)` back to back for `options.seconds`; a call that
 * throws is an error. Requests per second count successes only.
 */
export async function closedLoop(
  workload: string,
  clients: number,
  call: (worker: number, i: number) => Promise<unknown>,
  options: LoopOptions,
): Promise<Cell> {
  const latencies: number[] = [];
  let errors = 0;
  const meters = Object.entries(options.cpu);
  const cpuBefore = meters.map(([, meter]) => meter());
  const generatorCpu = process.cpuUsage();
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async (_, worker) => {
    for (let i = 0; performance.now() < deadline; i++) {
      const sent = performance.now();
      try {
        await call(worker, i);
        latencies.push(performance.now() - sent);
      } catch {
        errors++;
      }
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const cpuUs = meters.map(([, meter], m) => (meter() - cpuBefore[m]) * 1000);
  const { user, system } = process.cpuUsage(generatorCpu);
  latencies.sort((a, b) => a - b);
  const done = Math.max(1, latencies.length);
  const cell: Cell = {
    workload,
    clients,
    requests_per_s: Math.round(latencies.length / seconds),
    p50_ms: round(percentile(latencies, 50)),
    p99_ms: round(percentile(latencies, 99)),
    errors,
  };
  meters.forEach(([name], m) => cell[`${name}_cpu_us_per_request`] = Math.round(cpuUs[m] / done));
  cell.generator_cpu_us_per_request = Math.round((user + system) / done);
  console.log(JSON.stringify(cell));
  return cell;
}

const CLOCK_TICKS_PER_S = 100;

/** The fields of /proc/PID/stat after the parenthesised command name (field 3 is index 0). */
function statFields(pid: number): string[] {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  return stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
}

/**
 * CPU time a process has used so far (user and system, all its threads), in ms; with
 * `reapedChildren`, also that of its children that have exited and been waited for.
 */
export function processCpuMs(pid: number, reapedChildren = false): number {
  // Fields 14-17 of /proc/PID/stat: utime, stime, cutime, cstime, in clock ticks.
  const fields = statFields(pid);
  let ticks = Number(fields[11]) + Number(fields[12]);
  if (reapedChildren) ticks += Number(fields[13]) + Number(fields[14]);
  return ticks * 1000 / CLOCK_TICKS_PER_S;
}

/**
 * CPU time (ms) of a process and all its children, living or exited: a PostgreSQL server's
 * postmaster and its backends, whose exited ones the postmaster has reaped.
 */
export function processTreeCpuMs(pid: number): number {
  let total = processCpuMs(pid, true);
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const fields = statFields(Number(entry.name));
      if (Number(fields[1]) === pid) total += processCpuMs(Number(entry.name));
    } catch { /* gone meanwhile */ }
  }
  return total;
}

/**
 * A signed `GET /api/whoami` as cheaply as the generator can make one, still signed afresh
 * each time: version 2 for the relayer's origin, the current second, a random nonce.
 */
export async function leanWhoami(baseUrl: string, privateKey: string, accountId: string) {
  const key = await keyPairFromSeed(privateKey);
  const audience = new URL(baseUrl).origin;
  const url = `${baseUrl}/api/whoami`;
  const encoder = new TextEncoder();
  const emptyBodySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  return async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const nonce = crypto.randomUUID();
    const message = signingMessage({
      timestamp,
      method: "GET",
      path: "/api/whoami",
      bodySha256: emptyBodySha256,
      nonce,
      audience,
    });
    const response = await fetch(url, {
      headers: {
        "x-public-key": key.publicKey,
        "x-signature": key.sign(encoder.encode(message)).toHex(),
        "x-timestamp": String(timestamp),
        "x-nonce": nonce,
        "x-signature-version": "2",
        "x-audience": audience,
        "x-account-id": accountId,
      },
    });
    const body = await response.json();
    if (!response.ok || body.account_id !== accountId) throw new Error(`${response.status}`);
  };
}

/**
 * Remembers `facts` into `namespace` through bulk requests of 20 from 8 clients (round robin over
 * `client` when it is several: one a relayer). Returns the rate at which they were accepted and
 * the rate at which they became recallable (all done).
 */
export async function ingest(
  client: SvcClient | SvcClient[],
  facts: Fact[],
  namespace: string,
) {
  const clients = Array.isArray(client) ? client : [client];
  const batches: Fact[][] = [];
  for (let i = 0; i < facts.length; i += 20) batches.push(facts.slice(i, i + 20));
  const jobIds: string[][] = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < batches.length) {
      const at = next++;
      const items = batches[at].map(({ text }) => ({ text, namespace }));
      jobIds[at] = (await clients[at % clients.length].rememberBulk(items)).job_ids;
    }
  }));
  const acceptedS = (performance.now() - started) / 1000;
  await allDone(clients[0], jobIds.flat());
  const doneS = (performance.now() - started) / 1000;
  return {
    memories: facts.length,
    accepted_per_s: Math.round(facts.length / acceptedS),
    recallable_per_s: Math.round(facts.length / doneS),
    accepted_to_all_recallable_s: round(doneS - acceptedS, 2),
  };
}
