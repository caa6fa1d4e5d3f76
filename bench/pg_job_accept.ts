/**
 * Does group commit help `PgJobQueue.accept`? Many clients accept one job each at once: once with
 * a statement per accept (`groupAccepts: false`), once with the accepts that arrive while a
 * statement is in flight grouped into the next one (the default, as `StateJobStore` does), both with
 * the server's `fsync` off and on. Runs on the test harness's PostgreSQL; saves
 * `bench/results/pg_job_accept.json`.
 *
 *     deno run --allow-all bench/pg_job_accept.ts [accepts=2000] [clients=64]
 */
import { Database } from "../plugins/postgres/database.ts";
import { PgJobQueue } from "../plugins/postgres/job_queue.ts";
import { testDatabase } from "../plugins/postgres/testing/test_server.ts";
import { resultsFile, writeResults } from "./harness.ts";

const accepts = Number(Deno.args[0] ?? 2000);
const clients = Number(Deno.args[1] ?? 64);

async function run(mode: "statement" | "grouped", fsync: boolean) {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 10 });
  try {
    await database.sql.unsafe(`alter system set fsync = ${fsync ? "on" : "off"}`);
    await database.sql`select pg_reload_conf()`;
    const queue = await PgJobQueue.open(database, crypto.getRandomValues(new Uint8Array(32)), {
      groupAccepts: mode === "grouped",
    });
    let next = 0;
    const latencies: number[] = [];
    const started = performance.now();
    await Promise.all(Array.from({ length: clients }, async () => {
      while (next < accepts) {
        const i = next++;
        const t = performance.now();
        await queue.accept([{ owner: "0xowner", namespace: "default", text: `fact number ${i}` }]);
        latencies.push(performance.now() - t);
      }
    }));
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const at = (q: number) =>
      Math.round(latencies[Math.floor(q * (latencies.length - 1))] * 10) / 10;
    return {
      mode,
      fsync,
      accepts_per_s: Math.round(accepts / seconds),
      p50_ms: at(0.5),
      p95_ms: at(0.95),
    };
  } finally {
    await database.sql.unsafe(`alter system set fsync = off`).catch(() => {});
    await database.sql`select pg_reload_conf()`.catch(() => {});
    await database.close();
  }
}

const results = [];
for (const fsync of [false, true]) {
  for (const mode of ["statement", "grouped"] as const) {
    const result = await run(mode, fsync);
    console.log(JSON.stringify(result));
    results.push(result);
  }
}
const report = {
  date: new Date().toISOString(),
  machine: `${navigator.hardwareConcurrency} cores, ${Deno.build.os}`,
  accepts,
  clients,
  pool: 10,
  results,
};
await writeResults(resultsFile("pg_job_accept.json"), report);
