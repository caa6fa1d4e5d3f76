/**
 * The slow-body attack against a relayer running as its own process (`main.ts`, free ports, a
 * temporary data directory): many connections each declare a large body
 * (`content-length: 2097152`), send part of it and stop. Three attacks, each against a fresh
 * relayer process on the same data directory:
 *
 * - `unknown_key`: signed with keys no account has;
 * - `valid_key`: signed with an attacker's own registered key, from one address;
 * - `valid_key_many_addresses`: the same, each connection claiming its own address in
 *   `x-forwarded-for` (the relayer runs with `SVC_TRUST_PROXY=1` for all three).
 *
 * For each, after the normal client has run alone for as long as the attack lasts (its own
 * load grows the relayer's memory too): the relayer's resident memory (`/proc/<pid>/status`
 * VmRSS) before, at its peak during and after the attack; the normal client's signed recall
 * latency (p50/p99) unloaded, during (split into while the attack connections open and while
 * they are held) and after; the attack connections' answers by status; the relayer's error log
 * lines. The attacker runs in a worker (`slow_body_attacker.ts`), so the normal client's
 * requests do not wait on its work. Prints and saves JSON.
 *
 * With `--chunked` the bodies declare no length (`transfer-encoding: chunked`): `sent` bytes in
 * one chunk, never the last. With `--again` each attack is sent a second time once the first's
 * connections closed: a second peak no higher than the first shows the memory came back.
 *
 *   deno task bench:slow-body [--connections 800] [--send 1048576] [--hold 15] [--chunked]
 *     [--again] [--root <checkout whose main.ts runs>] [--out bench/results/slow_body.json]
 */
import { fileURLToPath } from "node:url";
import { generateKeyPair, type KeyPair, keyPairFromSeed } from "@svc/util/keys";
import { signRequest } from "../src/auth/signing.ts";
import { startRelayer, svcCli } from "../tests/relayer_process.ts";
import { resultsFile, writeResults } from "./harness.ts";
import { flags, positive, whole } from "./flags.ts";

const { values } = flags({
  options: {
    connections: { type: "string", default: "800" },
    declare: { type: "string", default: String(2 * 1024 * 1024) },
    chunked: { type: "boolean", default: false },
    again: { type: "boolean", default: false },
    send: { type: "string", default: String(1024 * 1024) },
    hold: { type: "string", default: "15" },
    root: { type: "string", default: fileURLToPath(new URL("..", import.meta.url)) },
    out: {
      type: "string",
      default: resultsFile("slow_body.json"),
    },
  },
});
const CONNECTIONS = whole(values.connections, "--connections");
const DECLARED = whole(values.declare, "--declare", 2);
const SENT = Math.min(whole(values.send, "--send", 0), DECLARED - 1);
const HOLD_MS = positive(values.hold, "--hold") * 1000;
const ROOT = values.root!.endsWith("/") ? values.root! : `${values.root}/`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Relayer {
  url: string;
  port: number;
  pid: number;
  /** Lines logged at level error so far. */
  errorLines(): number;
  stop(): Promise<void>;
}

async function startBenchRelayer(dataDir: string): Promise<Relayer> {
  const relayer = await startRelayer(dataDir, { SVC_TRUST_PROXY: "1" }, { root: ROOT });
  return {
    url: relayer.url,
    port: Number(new URL(relayer.url).port),
    pid: relayer.process.pid,
    errorLines: () => relayer.log().split("\n").filter((l) => l.includes('"level":"error"')).length,
    stop: async () => void await relayer.stop(),
  };
}

const cli = (dataDir: string, args: string[]) => svcCli(dataDir, args, {}, ROOT);

async function newKey(dataDir: string): Promise<{ key: KeyPair; accountId: string }> {
  const { accountId } = await cli(dataDir, ["account", "create"]);
  const { privateKey } = await cli(dataDir, ["key", "add", "--account", accountId]);
  return { key: await keyPairFromSeed(privateKey), accountId };
}

/** The relayer's resident memory, MiB. */
async function rssMb(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Math.round(Number(status.match(/VmRSS:\s+(\d+)/)![1]) / 1024);
}

async function signedFetch(
  url: string,
  caller: { key: KeyPair; accountId: string },
  path: string,
  payload: unknown,
) {
  const body = JSON.stringify(payload);
  const headers = await signRequest({ key: caller.key, method: "POST", path, body, nonce: true });
  return await fetch(url + path, {
    method: "POST",
    headers: { ...headers, "x-account-id": caller.accountId, "content-type": "application/json" },
    body,
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Sample {
  /** When the recall started (performance.now()). */
  at: number;
  ms: number;
  ok: boolean;
}

/** A normal client's recalls, one after another, until `until()` says stop. */
async function recalls(
  relayer: Relayer,
  caller: { key: KeyPair; accountId: string },
  until: (n: number) => boolean,
): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; !until(i); i++) {
    const at = performance.now();
    const response = await signedFetch(relayer.url, caller, "/api/recall", {
      query: `what does the user like ${i % 7}?`,
      limit: 5,
    });
    await response.body?.cancel();
    samples.push({ at, ms: performance.now() - at, ok: response.status === 200 });
  }
  return samples;
}

function stats(samples: Sample[]) {
  const times = samples.filter((s) => s.ok).map((s) => s.ms).sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    n: times.length,
    errors: samples.length - times.length,
    p50_ms: round(percentile(times, 50)),
    p99_ms: round(percentile(times, 99)),
  };
}

type Attacker = (i: number) => Promise<Record<string, string>>;

/** The request heads of the attack's connections, each signed afresh. */
async function attackHeads(headersOf: Attacker): Promise<string[]> {
  const heads: string[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const headers = Object.entries(await headersOf(i)).map(([k, v]) => `${k}: ${v}\r\n`);
    heads.push(
      "POST /api/remember HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n" +
        (values.chunked ? "transfer-encoding: chunked" : `content-length: ${DECLARED}`) +
        `\r\n${headers.join("")}\r\n`,
    );
  }
  return heads;
}

async function runAttack(
  name: string,
  dataDir: string,
  normal: { key: KeyPair; accountId: string },
  headersOf: Attacker,
) {
  const relayer = await startBenchRelayer(dataDir);
  const samples: { stage: string; mb: number }[] = [];
  let stage = "warm-up";
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push({ stage, mb: await rssMb(relayer.pid) });
      await sleep(200);
    }
  })();
  // The normal client's load alone, as long as the attack lasts, so that the memory it grows
  // into by itself is counted before the attack, not as the attack's.
  let started = performance.now();
  await recalls(relayer, normal, () => performance.now() - started > HOLD_MS);
  stage = "before";
  started = performance.now();
  const unloaded = stats(
    await recalls(relayer, normal, (n) => n >= 300 && performance.now() - started > 5000),
  );
  const loadBefore = Deno.loadavg()[0];
  const errorsBefore = relayer.errorLines();
  const attacker = new Worker(new URL("./slow_body_attacker.ts", import.meta.url), {
    type: "module",
  });
  const answer = () =>
    new Promise<Record<string, unknown>>((resolve) => {
      attacker.onmessage = (event) => resolve(event.data);
    });
  /** One attack: its connections opened and held while the normal client recalls, then closed. */
  const attack = async (during: string) => {
    const heads = await attackHeads(headersOf);
    stage = during;
    // The normal client keeps recalling from the first attack connection to the end of the hold.
    let opened = Infinity;
    const duringRecalls = recalls(relayer, normal, () => performance.now() - opened > HOLD_MS);
    const openedAnswer = answer();
    attacker.postMessage({ port: relayer.port, heads, sent: SENT, chunked: values.chunked });
    await openedAnswer;
    opened = performance.now();
    const duringSamples = await duringRecalls;
    stage = `after ${during}`;
    const closedAnswer = answer();
    attacker.postMessage({ close: true });
    const statuses = (await closedAnswer).statuses as Record<string, number>;
    await sleep(3000);
    return { duringSamples, opened, statuses };
  };
  const { duringSamples, opened, statuses } = await attack("during");
  const during = stats(duringSamples);
  // The same attack again: memory the first one left that it uses again was given back, not lost.
  if (values.again) await attack("during again");
  attacker.terminate();
  stage = "after";
  const after = stats(await recalls(relayer, normal, (n) => n >= 100));
  await sleep(1000);
  sampling = false;
  await sampler;
  const errorLines = relayer.errorLines() - errorsBefore;
  await relayer.stop();
  const of = (s: string) => samples.filter((x) => x.stage === s).map((x) => x.mb);
  // The last second of the unloaded measurement.
  const before = Math.max(...of("before").slice(-5));
  const peak = Math.max(...of("during"));
  const again = values.again
    ? { peak_during_again: Math.max(...of("during again")), after_first: of("after during").at(-1) }
    : {};
  const result = {
    attack: name,
    rss_mb: {
      before,
      peak_during: peak,
      after: of("after").at(-1)!,
      rise: peak - before,
      ...again,
    },
    recall_unloaded: unloaded,
    recall_during: {
      ...during,
      while_opening: stats(duringSamples.filter((s) => s.at < opened)),
      while_holding: stats(duringSamples.filter((s) => s.at >= opened)),
    },
    recall_after: after,
    load_average_before: loadBefore,
    attack_answers: statuses,
    error_log_lines: errorLines,
    targets: {
      rss_rise_at_most_100_mb: peak - before <= 100,
      p99_during_within_2x_unloaded: during.errors === 0 && during.p99_ms <= 2 * unloaded.p99_ms,
    },
  };
  console.log(JSON.stringify(result));
  return result;
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-slow-body-" });
try {
  const normal = await newKey(dataDir);
  const attacker = await newKey(dataDir);
  const setup = await startBenchRelayer(dataDir);
  const facts = ["I like jazz", "I drink green tea", "My sister lives in Lyon", "I run on Sundays"];
  for (let i = 0; i < 20; i++) {
    const text = `${facts[i % facts.length]} (note ${i})`;
    await (await signedFetch(setup.url, normal, "/api/remember", { text })).body?.cancel();
  }
  await sleep(3000);
  await setup.stop();

  const strangers = await Promise.all(Array.from({ length: 16 }, () => generateKeyPair()));
  // The body never arrives in full, so what the signature covers does not matter.
  const sign = (key: KeyPair) =>
    signRequest({ key, method: "POST", path: "/api/remember", nonce: true });
  const attacks: [string, Attacker][] = [
    ["unknown_key", (i) => sign(strangers[i % strangers.length])],
    [
      "valid_key",
      async () => ({ ...await sign(attacker.key), "x-account-id": attacker.accountId }),
    ],
    ["valid_key_many_addresses", async (i) => ({
      ...await sign(attacker.key),
      "x-account-id": attacker.accountId,
      "x-forwarded-for": `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    })],
  ];
  const results = [];
  for (const [name, headersOf] of attacks) {
    results.push(await runAttack(name, dataDir, normal, headersOf));
  }
  const commit = new TextDecoder().decode(
    (await new Deno.Command("git", { args: ["rev-parse", "--short", "HEAD"], cwd: ROOT }).output())
      .stdout,
  ).trim();
  const summary = {
    date: new Date().toISOString(),
    machine: `${navigator.hardwareConcurrency} cores, ${
      Math.round(Deno.systemMemoryInfo().total / 2 ** 30)
    } GiB, ${Deno.build.os}-${Deno.build.arch}, deno ${Deno.version.deno}, load ${
      Deno.loadavg().map((l) => l.toFixed(1)).join(" ")
    }`,
    commit,
    connections: CONNECTIONS,
    declared_bytes: DECLARED,
    sent_bytes: SENT,
    hold_seconds: HOLD_MS / 1000,
    results,
  };
  console.log(JSON.stringify(summary, null, 2));
  await writeResults(values.out!, summary);
} finally {
  await Deno.remove(dataDir, { recursive: true });
}
