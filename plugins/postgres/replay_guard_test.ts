import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { PgReplayGuard, printOf } from "./replay_guard.ts";
import { readOnlyDatabase, relayerPools } from "./testing/test_server.ts";

const TTL = 600_000;
const key = (n: number) => `nonce:${"ab".repeat(32)}:nonce-${n}-0123456789`;

Deno.test("PgReplayGuard: of concurrent claims of one key exactly one is accepted", async () => {
  await using shared = await relayerPools(1);
  const guard = new PgReplayGuard(shared.pools[0]);
  const outcomes = await Promise.all(Array.from({ length: 20 }, () => guard.claim(key(1), TTL)));
  assert.equal(outcomes.filter(Boolean).length, 1);
  assert.equal(await guard.claim(key(1), TTL), false);
  assert.equal(await guard.claim(key(2), TTL), true);
  await guard.close();
});

Deno.test("PgReplayGuard: two relayers claiming the same keys at once accept each exactly once", async () => {
  await using shared = await relayerPools(2);
  const guards = shared.pools.map((pool) => new PgReplayGuard(pool, { maxBatch: 16 }));
  const keys = Array.from({ length: 300 }, (_, i) => key(i));
  // Each relayer claims every key, in opposite orders, all at once.
  const [one, two] = await Promise.all([
    Promise.all(keys.map((k) => guards[0].claim(k, TTL))),
    Promise.all(keys.toReversed().map((k) => guards[1].claim(k, TTL))),
  ]);
  two.reverse();
  keys.forEach((_, i) => assert.equal(Number(one[i]) + Number(two[i]), 1, `key ${i}`));
  assert.ok(one.some(Boolean) || two.some(Boolean));
  // A replay later is refused by both.
  for (const guard of guards) {
    assert.equal(await guard.claim(keys[7], TTL), false);
  }
  for (const guard of guards) await guard.close();
});

Deno.test("PgReplayGuard: a request accepted by one relayer is refused by the other", async () => {
  await using shared = await relayerPools(2);
  const [a, b] = shared.pools.map((pool) => new PgReplayGuard(pool));
  assert.equal(await a.claim(key(1), TTL), true);
  assert.equal(await b.claim(key(1), TTL), false);
  assert.equal(await b.claim(key(2), TTL), true);
  assert.equal(await a.claim(key(2), TTL), false);
  await a.close();
  await b.close();
});

Deno.test("PgReplayGuard: claims that arrive together are written in one statement", async () => {
  await using shared = await relayerPools(1);
  // The pool, counting the statements that write claims.
  let inserts = 0;
  const sql = new Proxy(shared.pools[0].sql, {
    apply(target, self, args) {
      if (String(args[0]).includes("insert into svc_replay_claims")) inserts++;
      return Reflect.apply(target, self, args);
    },
  });
  const guard = new PgReplayGuard(Object.create(shared.pools[0], { sql: { value: sql } }));
  const outcomes = await Promise.all(
    Array.from({ length: 200 }, (_, i) => guard.claim(key(i), TTL)),
  );
  assert.ok(outcomes.every(Boolean));
  // The claims of one turn go in one statement.
  assert.equal(inserts, 1);
  const [{ count }] = await shared.pools[0]
    .sql`select count(*)::int as count from svc_replay_claims`;
  assert.equal(count, 200);
  await guard.close();
});

Deno.test("PgReplayGuard: the table holds fingerprints and expiries, never the key", async () => {
  await using shared = await relayerPools(1);
  const clock = { now: 1_800_000_000_000 };
  const guard = new PgReplayGuard(shared.pools[0], { now: () => clock.now });
  await guard.claim(key(1), TTL);
  const rows = await shared.pools[0].sql`select * from svc_replay_claims`;
  assert.deepEqual(rows.map((row) => ({ ...row })), [
    { print: printOf(key(1)), expires_at: BigInt(clock.now + TTL) },
  ]);
  assert.doesNotMatch(
    JSON.stringify(rows, (_, v) => typeof v === "bigint" ? String(v) : v),
    /nonce/,
  );
  await guard.close();
});

Deno.test("PgReplayGuard: an expired claim can be taken again, and expired rows are pruned", async () => {
  await using shared = await relayerPools(2);
  const clock = { now: 1_800_000_000_000 };
  const now = () => clock.now;
  // Pruned one row a statement: a prune deletes everything expired all the same.
  const [a, b] = shared.pools.map((pool) =>
    new PgReplayGuard(pool, { now, pruneEveryMs: 10_000, pruneLimit: 1 })
  );
  assert.equal(await a.claim(key(1), 1000), true);
  assert.equal(await a.claim(key(2), TTL), true);
  assert.equal(await b.claim(key(1), 1000), false);
  clock.now += 2000;
  assert.equal(await b.claim(key(1), 1000), true, "expired: usable again");
  assert.equal(await a.claim(key(1), 1000), false, "and claimed again for its new time to live");
  assert.equal(await a.claim(key(2), TTL), false, "still alive");
  // Past the first claims' expiry and a prune interval: the next batch prunes.
  await a.claim(key(3), 1000);
  clock.now += 20_000;
  assert.equal(await a.claim(key(4), TTL), true);
  await a.close(); // the prune after that batch is done
  const rows = await shared.pools[0].sql`select print from svc_replay_claims order by print`;
  assert.deepEqual(
    rows.map((row) => row.print),
    [printOf(key(2)), printOf(key(4))].sort((x, y) => (x < y ? -1 : 1)),
  );
  assert.equal(await a.prune(), 0, "nothing left to prune");
  await a.close();
  await b.close();
});

Deno.test("PgReplayGuard: a database failure answers 503 to the claims waiting", async () => {
  await using shared = await relayerPools(1);
  const guard = new PgReplayGuard(shared.pools[0]);
  await shared.pools[0].close();
  await assert.rejects(guard.claim(key(1), TTL), (error: unknown) => {
    assert.ok(error instanceof SvcError);
    assert.equal(error.code, "backend_unavailable");
    assert.match(error.message, /postgres is unavailable; sign it again with a fresh nonce/);
    assert.doesNotMatch(error.message, /postgres:\/\/|nonce-1/);
    return true;
  });
  await guard.close();
});

Deno.test("PgReplayGuard: a read-only database is the operator's to fix, not the client's", async () => {
  await using readOnly = await readOnlyDatabase();
  const guard = new PgReplayGuard(readOnly.database);
  try {
    await assert.rejects(guard.claim(key(1), TTL), (error: SvcError) => {
      assert.equal(error.code, "backend_unavailable");
      assert.equal(
        error.message,
        "Cannot check whether this signed request was used before: the database is read-only " +
          "(a standby, or default_transaction_read_only is on); SVC_DATABASE_URL must name the " +
          "primary",
      );
      return true;
    });
  } finally {
    await guard.close();
  }
});
