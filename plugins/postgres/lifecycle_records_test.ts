import assert from "node:assert/strict";
import {
  blindLogSuite,
  lifecycleRecordStoreSuite,
  StateLifecycleRecords,
  StateUpdateClaims,
  updateClaimsSuite,
} from "@svc/relayer/testing";
import { Database } from "./database.ts";
import { PgStateStore } from "./state_store.ts";
import { relayerPools, testDatabase } from "./testing/test_server.ts";

const SECRET = new Uint8Array(32).fill(7);
const T = 1_800_000_000_000;
const OWNER = "0x" + "c3".repeat(32);

/** A store on a fresh database, which closes both when disposed. */
async function opened<T extends object>(make: (database: Database) => Promise<T>) {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 3 });
  return Object.assign(await make(database), {
    async [Symbol.asyncDispose]() {
      await database.close();
      await db[Symbol.asyncDispose]();
    },
  });
}

/** The lifecycle records on `database`, as a relayer opens them. */
const recordsOn = (database: Database, secret = SECRET) =>
  Promise.resolve(new StateLifecycleRecords(new PgStateStore(database), secret));

lifecycleRecordStoreSuite("StateLifecycleRecords over PgStateStore", () => opened(recordsOn));
/** The update claims on `database`, as a relayer opens them. */
const claimsOn = (database: Database) => StateUpdateClaims.open(new PgStateStore(database), SECRET);

updateClaimsSuite("StateUpdateClaims over PgStateStore", () => opened(claimsOn));

Deno.test("StateUpdateClaims over PostgreSQL: two relayers racing to update one memory: exactly one wins", async () => {
  await using shared = await relayerPools(2);
  const [a, b] = await Promise.all(shared.pools.map(claimsOn));
  for (let round = 0; round < 20; round++) {
    const memory = `memory-${round}`;
    const outcomes = await Promise.all([
      a.claim(memory, `update-a-${round}`, T),
      b.claim(memory, `update-b-${round}`, T),
      a.claim(memory, `update-c-${round}`, T),
      b.claim(memory, `update-d-${round}`, T),
    ]);
    assert.equal(outcomes.filter(Boolean).length, 1, `round ${round}`);
  }
  // A claim released on one relayer is free on the other.
  assert.equal(await a.claim("m", "v1", T), true);
  assert.equal(await b.claim("m", "v2", T), false);
  await a.release("m", "v1");
  assert.equal(await b.claim("m", "v2", T + 1), true);
});

Deno.test("StateUpdateClaims over PostgreSQL: svc_state holds keyed hashes, not the memories' ids", async () => {
  await using shared = await relayerPools(1);
  const claims = await claimsOn(shared.pools[0]);
  await claims.claim("memory-visible-id", "update-visible-id", T);
  const rows = await shared.pools[0].sql`
    select encode(key, 'escape') as k, encode(value, 'escape') as v from svc_state`;
  assert.equal(rows.length, 1);
  assert.doesNotMatch(`${rows[0].k} ${rows[0].v}`, /visible/);
});

Deno.test("StateLifecycleRecords over PostgreSQL: an erase or a schedule made on one relayer is seen by the other", async () => {
  await using shared = await relayerPools(2);
  const [a, b] = await Promise.all(
    shared.pools.map((pool) => recordsOn(pool)),
  );
  await a.markErased(OWNER, [{ memoryId: "m1" }], T);
  assert.deepEqual(await b.erased(OWNER, ["m1", "m2"]), new Set(["m1"]));
  await b.schedule([{ memoryId: "m3", owner: OWNER, namespace: "notes", expiresAt: T + 10 }]);
  assert.deepEqual(await a.due(T + 10, 10), [
    { memoryId: "m3", owner: OWNER, namespace: "notes", expiresAt: T + 10 },
  ]);
});

Deno.test("StateLifecycleRecords over PostgreSQL: relayers sweeping together are each handed different memories", async () => {
  await using shared = await relayerPools(3);
  const stores = await Promise.all(
    shared.pools.map((pool) => recordsOn(pool)),
  );
  const expiries = Array.from({ length: 300 }, (_, i) => ({
    memoryId: `m${String(i).padStart(3, "0")}`,
    owner: OWNER,
    namespace: "notes",
    expiresAt: T + i,
  }));
  await stores[0].schedule(expiries);
  const handed = await Promise.all(stores.map((store) => store.due(T + 1000, 120, 60_000)));
  const ids = handed.flat().map((expiry) => expiry.memoryId);
  assert.equal(new Set(ids).size, ids.length, "no memory handed twice");
  assert.equal(ids.length, 300, "every due memory handed to some sweep");
  // A sweep that died: its memories are handed again once the lease ends.
  assert.deepEqual(await stores[0].due(T + 1000, 500, 60_000), []);
  assert.equal((await stores[1].due(T + 61_000, 500, 60_000)).length, 300);
});

Deno.test("StateLifecycleRecords over PostgreSQL: no owner, namespace or key readable", async () => {
  await using shared = await relayerPools(1);
  const store = await recordsOn(shared.pools[0]);
  await store.markErased(OWNER, [{ memoryId: "m1" }], T);
  await store.schedule([{ memoryId: "m2", owner: OWNER, namespace: "diary-secret", expiresAt: T }]);
  const rows = await shared.pools[0].sql`
    select encode(key, 'escape') as k, encode(value, 'escape') as v from svc_state`;
  assert.equal(rows.length, 2);
  assert.doesNotMatch(JSON.stringify(rows), /c3c3|diary-secret|notes/);
  // Another secret opens none of it.
  const other = await recordsOn(shared.pools[0], new Uint8Array(32).fill(8));
  assert.deepEqual(await other.erased(OWNER, ["m1"]), new Set());
  await assert.rejects(other.due(T, 10));
});

blindLogSuite("BlindLog over PgStateStore, two relayers", async () => {
  const shared = await relayerPools(2);
  const [a, b] = shared.pools.map((pool) => new PgStateStore(pool));
  return { states: [a, b], [Symbol.asyncDispose]: () => shared[Symbol.asyncDispose]() };
});
