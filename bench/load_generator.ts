/**
 * The pieces of the load generator shared by `load.ts` and `relayers.ts`: closed-loop clients
 * that report requests per second, p50/p99, errors and the CPU time the measured processes and
 * this generator spent per successful request; a process's CPU time from `/proc`; a lean
 * signed `whoami`; and the bulk ingest of the short facts through the public API.
 */
import process from "node:process";
import { keyPairFromSeed, sha256Hex } from "../src/auth/keys.ts";
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

const CRLF = [13, 10];
const CRLF_CRLF = [13, 10, 13, 10];

/**
 * One HTTP/1.1 keep-alive connection that sends one request at a time and reads each answer by
 * its `content-length` or its chunks, as a load generator such as wrk does:
 * `fetch` costs this generator several hundred microseconds of CPU a request, which on a small
 * machine comes out of the relayer's cores.
 */
class Http1Connection {
  #conn: Deno.TcpConn;
  #host: string;
  #buffer = new Uint8Array(16_384);
  #filled = 0;

  private constructor(conn: Deno.TcpConn, host: string) {
    this.#conn = conn;
    this.#host = host;
  }

  static async open(url: URL): Promise<Http1Connection> {
    const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
    conn.setNoDelay(true);
    return new Http1Connection(conn, url.host);
  }

  /** The answer's status and body to `method path` with `headers` and `body`. */
  async send(method: string, path: string, headers: Record<string, string>, body?: Uint8Array) {
    let head = `${method} ${path} HTTP/1.1\r\nhost: ${this.#host}\r\n`;
    for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
    if (body) head += `content-length: ${body.byteLength}\r\n`;
    const request = encoder.encode(head + "\r\n");
    const bytes = body ? new Uint8Array([...request, ...body]) : request;
    for (let written = 0; written < bytes.length;) {
      written += await this.#conn.write(bytes.subarray(written));
    }
    let end = -1;
    while ((end = this.#find(CRLF_CRLF, 0)) < 0) await this.#read();
    end += 4;
    const lines = latin1.decode(this.#buffer.subarray(0, end)).split("\r\n");
    const status = Number(lines[0].split(" ")[1]);
    const header = (name: string) =>
      lines.find((line) => line.toLowerCase().startsWith(name + ":"))?.split(":")[1].trim();
    const length = header("content-length");
    let answer: Uint8Array;
    if (length !== undefined) {
      while (this.#filled < end + Number(length)) await this.#read();
      answer = this.#buffer.slice(end, end + Number(length));
      end += Number(length);
    } else if (header("transfer-encoding") === "chunked") {
      const chunks: Uint8Array[] = [];
      for (let size = -1; size !== 0;) {
        let lineEnd = -1;
        while ((lineEnd = this.#find(CRLF, end)) < 0) await this.#read();
        size = parseInt(latin1.decode(this.#buffer.subarray(end, lineEnd)), 16);
        end = lineEnd + 2;
        while (this.#filled < end + size + 2) await this.#read();
        chunks.push(this.#buffer.slice(end, end + size));
        end += size + 2;
      }
      answer = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
      chunks.reduce((at, chunk) => (answer.set(chunk, at), at + chunk.length), 0);
    } else {
      throw new Error("an answer without a length");
    }
    this.#buffer.copyWithin(0, end, this.#filled);
    this.#filled -= end;
    return { status, body: answer };
  }

  /** Where `pattern` starts in the bytes read, from `from`, or -1. */
  #find(pattern: number[], from: number): number {
    const bytes = this.#buffer;
    for (let i = from; i + pattern.length <= this.#filled; i++) {
      if (pattern.every((byte, k) => bytes[i + k] === byte)) return i;
    }
    return -1;
  }

  async #read(): Promise<void> {
    if (this.#filled === this.#buffer.length) {
      const grown = new Uint8Array(this.#buffer.length * 2);
      grown.set(this.#buffer);
      this.#buffer = grown;
    }
    const read = await this.#conn.read(this.#buffer.subarray(this.#filled));
    if (read === null) throw new Error("the relayer closed the connection");
    this.#filled += read;
  }

  close(): void {
    this.#conn.close();
  }
}

const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");
const decoder = new TextDecoder();

/**
 * Requests to `url`'s host on keep-alive connections of this generator's own, one per request
 * in flight; a connection that failed is closed, not reused.
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
      idle.push(connection);
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
