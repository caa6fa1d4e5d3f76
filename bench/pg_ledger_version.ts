/**
 * What the ledger's per-request version read costs on PostgreSQL: the test server of the
 * postgres plugin (a local PostgreSQL on loopback), one relayer's `Database` pool and
 * `openPgLedger`, and a ledger with one account and key. Measures, each `--calls` times:
 *
 * - `version()`: the one round trip every request makes (the version's entry in `svc_state`),
 *   one call after another;
 * - a warm `resolve` (the version read, then the resolution kept in memory), one after another;
 * - `--concurrency` concurrent warm `resolve`s at a time (they share version reads), per call;
 * - `select 1` through the same pool, the floor of any round trip.
 *
 * Reports p50 and p95 in microseconds and writes `bench/results/pg_ledger_version.json` (or
 * `--out`).
 *
 *   deno run --allow-all --unstable-kv bench/pg_ledger_version.ts [--calls 5000]
 *                                                                 [--concurrency 50] [--out FILE]
 */
import { generateKeyPair } from "@svc/util/keys";
import {
  type LedgerStore,
  LocalLedger,
  type TransactionEffects,
} from "../plugins/local_ledger/mod.ts";
import { submitTransaction } from "../plugins/local_ledger/transactions.ts";
import { Database } from "../plugins/postgres/database.ts";
import { openPgLedger } from "../plugins/postgres/ledger.ts";
import { testDatabase } from "../plugins/postgres/testing/test_server.ts";
import { machine, percentile, resultsFile, round, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    calls: { type: "string", default: "5000" },
    concurrency: { type: "string", default: "50" },
    out: {
      type: "string",
      default: resultsFile("pg_ledger_version.json"),
    },
  },
});
const CALLS = whole(values.calls, "--calls");
const CONCURRENCY = whole(values.concurrency, "--concurrency");

/** p50 and p95, in µs, of `call` made `CALLS` times one after another (after a warm-up). */
async function sequential(call: () => Promise<unknown>) {
  for (let i = 0; i < 200; i++) await call();
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call();
    times.push((performance.now() - start) * 1000);
  }
  times.sort((a, b) => a - b);
  return { p50_us: round(percentile(times, 50)), p95_us: round(percentile(times, 95)) };
}

await using db = await testDatabase();
const database = await Database.open({ url: db.url, pool: 10 });
try {
  const store = await openPgLedger(database, crypto.getRandomValues(new Uint8Array(32)));
  const ledger = await LocalLedger.open({ store });
  const owner = await generateKeyPair();
  const created = await submitTransaction(ledger, owner, { kind: "create_account" });
  const accountId = (created.effects as TransactionEffects).account_id;
  const key = await generateKeyPair();
  await submitTransaction(ledger, owner, {
    kind: "add_delegate_key",
    account_id: accountId,
    public_key: key.publicKey,
    label: "bench",
  });

  const selectOne = await sequential(() => database.sql`select 1`);
  const versionRead = await sequential(() => store.version());
  const warmResolve = await sequential(() => ledger.resolve(key.publicKey));
  let reads = 0;
  const counting = new LocalLedger({
    ...Object.fromEntries(
      (["account", "accountOfOwner", "accountOfKey", "putPending", "transaction", "apply"] as const)
        .map((name) => [name, (...args: never[]) => (store[name] as CallableFunction)(...args)]),
    ),
    version: () => (reads++, store.version()),
  } as unknown as LedgerStore);
  await counting.resolve(key.publicKey);
  reads = 0;
  const start = performance.now();
  for (let done = 0; done < CALLS; done += CONCURRENCY) {
    await Promise.all(Array.from({ length: CONCURRENCY }, () => counting.resolve(key.publicKey)));
  }
  const concurrent = {
    concurrency: CONCURRENCY,
    per_call_us: round((performance.now() - start) * 1000 / CALLS),
    version_reads_per_call: round(reads / CALLS, 3),
  };
  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    calls: CALLS,
    select_one: selectOne,
    version_read: versionRead,
    warm_resolve: warmResolve,
    concurrent_warm_resolve: concurrent,
  };
  console.log(JSON.stringify(result, null, 2));
  await writeResults(values.out, result);
} finally {
  await database.close();
}
