/**
 * The pieces of the load generator shared by `load.ts` and `relayers.ts`: closed-loop clients
 * that report requests per second, p50/p99, errors and the CPU time the measured processes and
 * this generator spent per successful request; a process's CPU time from `/proc`; lean health,
 * signed `whoami` and recall requests on the generator's own connections (`http1_connection.ts`);
 * and the bulk ingest of the short facts through the public API.
 */
import process from "node:process";
import { keyPairFromSeed, sha256Hex } from "@svc/util/keys";
import { signingMessage } from "../src/auth/signing.ts";
import type { SvcClient } from "../src/client/mod.ts";
import type { Fact } from "./fact_workload.ts";
import { Http1Connection } from "./http1_connection.ts";
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

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Requests to `url`'s host on keep-alive connections of this generator's own, one per request
 * in flight; a connection that failed, or that the server closes after its answer, is not reused.
 */
function connections(url: URL) {
  const idle: Http1Connection[] = [];
  return async (
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: Uint8Array,
  ) => {
    const connection = idle.pop() ?? await Http1Connection.open(url);
    try {
      const answer = await connection.send(method, path, headers, body);
      if (answer.reusable) idle.push(connection);
      else connection.close();
      return answer;
    } catch (error) {
      connection.close();
      throw error;
    }
  };
}

/** An unsigned `GET /health` on the generator's own connections. */
export function leanHealth(baseUrl: string) {
  const send = connections(new URL(baseUrl));
  return async () => {
    const { status } = await send("GET", "/health", {});
    if (status !== 200) throw new Error(`${status}`);
  };
}

/**
 * A signed request made as cheaply as the generator can make one, still signed afresh each time
 * (version 2 for the relayer's origin, the current second, a random nonce), on the generator's
 * own connections. Resolves to the answer's JSON; throws unless the status is 2xx.
 */
export type LeanSigned = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** A {@link LeanSigned} for the relayer at `baseUrl`, as `accountId`'s delegate `privateKey`. */
export async function leanSigned(
  baseUrl: string,
  privateKey: string,
  accountId: string,
): Promise<LeanSigned> {
  const key = await keyPairFromSeed(privateKey);
  const url = new URL(baseUrl);
  const audience = url.origin;
  const send = connections(url);
  return async (method, path, body) => {
    const payload = body === undefined ? undefined : encoder.encode(JSON.stringify(body));
    const timestamp = Math.floor(Date.now() / 1000);
    const nonce = crypto.randomUUID();
    const message = signingMessage({
      timestamp,
      method,
      path,
      bodySha256: await sha256Hex(payload ?? new Uint8Array()),
      nonce,
      audience,
    });
    const headers: Record<string, string> = {
      "x-public-key": key.publicKey,
      "x-signature": key.sign(encoder.encode(message)).toHex(),
      "x-timestamp": String(timestamp),
      "x-nonce": nonce,
      "x-signature-version": "2",
      "x-audience": audience,
      "x-account-id": accountId,
    };
    if (payload) headers["content-type"] = "application/json";
    const answer = await send(method, path, headers, payload);
    if (answer.status < 200 || answer.status > 299) throw new Error(`${answer.status}`);
    return JSON.parse(decoder.decode(answer.body));
  };
}

/** A lean signed `GET /api/whoami` that checks the account it answers for. */
export async function leanWhoami(baseUrl: string, privateKey: string, accountId: string) {
  const signed = await leanSigned(baseUrl, privateKey, accountId);
  return async () => {
    const body = await signed("GET", "/api/whoami") as { account_id?: string };
    if (body.account_id !== accountId) throw new Error("whoami answered for another account");
  };
}

/** A lean signed recall of 10 in `namespace` that checks memories came back. */
export function leanRecall(signed: LeanSigned) {
  return async (query: string, namespace: string) => {
    const body = { query, namespace, limit: 10 };
    const { results } = await signed("POST", "/api/recall", body) as { results?: unknown[] };
    if (!results?.length) throw new Error("recall found nothing");
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
