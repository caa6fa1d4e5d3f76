/**
 * A database outage as clients see it: one relayer (`main.ts`, `SVC_STORE=postgres`, its own
 * process) on a fresh database of the test harness's PostgreSQL, and `--clients` closed-loop
 * clients over HTTP, each alternating a signed `whoami` (the ledger's version and the replay
 * guard: two database round trips) and a signed remember of a short text. After `--before`
 * seconds the database is stopped (`pg_ctl stop -m fast`, as an operator or a crash would) or
 * frozen (`SIGSTOP` to the server and its backends, as a hung host or a paused machine), and
 * `--down` seconds later started or thawed; the clients go on `--after` seconds more.
 *
 * Reports, per mode: the requests and their answers by status during the outage and after it, the
 * longest any request waited for its answer during the outage, when the first 503 came (from the
 * outage's start), when the first 200 came after the database's return, and how many lines the
 * relayer logged over the run. Each client waits
 * 50 ms after a failure, as a client backing off would. Writes `bench/results/db_outage.json`.
 *
 *   deno task bench:db-outage [--modes stop,freeze] [--clients 20] [--before 3] [--down 12]
 *                             [--after 10] [--root CHECKOUT/] [--out FILE]
 *
 * `--root` runs another checkout's relayer (a baseline) against the same harness.
 */
import {
  freezeTestServer,
  stopTestServer,
  testDatabase,
} from "../plugins/postgres/testing/test_server.ts";
import { startRelayer, svcCli } from "../tests/relayer_process.ts";
import { machine, resultsFile, round, writeResults } from "./harness.ts";
import { leanSigned } from "./load_generator.ts";
import { flags, positive, whole } from "./flags.ts";

const { values } = flags({
  options: {
    modes: { type: "string", default: "stop,freeze" },
    clients: { type: "string", default: "20" },
    before: { type: "string", default: "3" },
    down: { type: "string", default: "12" },
    after: { type: "string", default: "10" },
    root: { type: "string" },
    out: { type: "string", default: resultsFile("db_outage.json") },
  },
});
const CLIENTS = whole(values.clients, "--clients");
const BEFORE_MS = positive(values.before, "--before") * 1000;
const DOWN_MS = positive(values.down, "--down") * 1000;
const AFTER_MS = positive(values.after, "--after") * 1000;
const MODES = values.modes!.split(",").filter(Boolean);
for (const mode of MODES) {
  if (mode !== "stop" && mode !== "freeze") throw new Error(`--modes: stop or freeze, not ${mode}`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One request: when it was sent and answered (ms from the run's start), and its answer. */
interface Sent {
  at: number;
  done: number;
  /** `ok` for a 2xx, else the status (0: no answer). */
  status: string;
}

async function run(mode: string) {
  await using db = await testDatabase();
  const dataDir = await Deno.makeTempDir({ prefix: "svc-outage-" });
  const env = { SVC_STORE: "postgres", SVC_DATABASE_URL: db.url, SVC_MASTER_KEY: "6b".repeat(32) };
  const relayer = await startRelayer(dataDir, env, { root: values.root });
  try {
    const { accountId } = await svcCli(dataDir, ["account", "create"], env);
    const key = await svcCli(dataDir, ["key", "add", "--account", accountId, "--label", "b"], env);
    const signed = await leanSigned(relayer.url, key.privateKey, accountId);
    const start = performance.now();
    const now = () => performance.now() - start;
    const sent: Sent[] = [];
    let running = true;
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; running; i++) {
        const at = now();
        const call = i % 2
          ? signed("POST", "/api/remember", { text: `client ${c} note ${i}`, namespace: "outage" })
          : signed("GET", "/api/whoami");
        const status = await call.then(() => "ok", (error: Error) => `${Number(error.message)}`);
        sent.push({ at, done: now(), status });
        if (status !== "ok") await pause(50);
      }
    });
    await pause(BEFORE_MS);
    const outage = now();
    const restore = mode === "stop" ? await stopTestServer() : await freezeTestServer();
    await pause(DOWN_MS);
    await restore();
    const back = now();
    await pause(AFTER_MS);
    running = false;
    await Promise.all(clients);

    const during = sent.filter((r) => r.done > outage && r.at < back);
    const after = sent.filter((r) => r.at >= back);
    const byStatus = (rs: Sent[]) =>
      Object.fromEntries(
        [...new Set(rs.map((r) => r.status))].sort().map((s) => [
          s,
          rs.filter((r) => r.status === s).length,
        ]),
      );
    const first = (rs: Sent[], ok: (r: Sent) => boolean, from: number) => {
      const done = rs.filter(ok).map((r) => r.done).sort((a, b) => a - b)[0];
      return done === undefined ? null : round(done - from);
    };
    const result = {
      mode,
      during_outage: {
        requests: during.length,
        by_status: byStatus(during),
        longest_wait_ms: round(Math.max(0, ...during.map((r) => r.done - r.at))),
        first_503_after_ms: first(during, (r) => r.status === "503", outage),
      },
      after_return: {
        requests: after.length,
        by_status: byStatus(after),
        first_success_after_ms: first(after, (r) => r.status === "ok", back),
        longest_wait_ms: round(Math.max(0, ...after.map((r) => r.done - r.at))),
      },
      // What an operator reads of it: the relayer's log lines over the whole run.
      log_lines: relayer.log().split("\n").filter(Boolean).length,
    };
    console.log(JSON.stringify(result));
    return result;
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
}

const runs = [];
for (const mode of MODES) runs.push(await run(mode));
await writeResults(values.out!, {
  date: new Date().toISOString(),
  machine: machine(),
  relayer: values.root ?? "this checkout",
  clients: CLIENTS,
  seconds: { before: BEFORE_MS / 1000, down: DOWN_MS / 1000, after: AFTER_MS / 1000 },
  runs,
});
