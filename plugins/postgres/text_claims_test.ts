import assert from "node:assert/strict";
import { textClaimsSuite } from "@svc/relayer/testing";
import { relayerPools } from "./testing/test_server.ts";
import { PgTextClaims } from "./text_claims.ts";

const SECRET = new Uint8Array(32).fill(7);
const T = 1_800_000_000_000;

/** `count` relayers' claims on one new database, closed on dispose. */
async function relayers(count: number) {
  const shared = await relayerPools(count);
  const claims = await Promise.all(shared.pools.map((pool) => PgTextClaims.open(pool, SECRET)));
  return Object.assign(shared, { claims });
}

textClaimsSuite("PgTextClaims", async () => {
  const shared = await relayers(1);
  return Object.assign(shared.claims[0], { [Symbol.asyncDispose]: shared[Symbol.asyncDispose] });
});

Deno.test("PgTextClaims: relayers claiming overlapping texts at once: one batch holds each text, none deadlocks", async () => {
  await using shared = await relayers(3);
  for (let round = 0; round < 10; round++) {
    // Each batch claims 20 texts, in its own order, 10 of them shared by every batch.
    const batches = Array.from({ length: 6 }, (_, b) => {
      const own = Array.from({ length: 10 }, (_, i) => 100 * (b + 1) + i);
      const common = Array.from({ length: 10 }, (_, i) => b % 2 ? i : 9 - i);
      return [...own, ...common].map((i) => ({
        place: `${round}:${i}`,
        job: `${round}:${b}:${i}`,
      }));
    });
    const outcomes = await Promise.all(
      batches.map((claims, b) => shared.claims[b % 3].claim(claims, T)),
    );
    assert.equal(outcomes.filter(Boolean).length, 1, `round ${round}`);
  }
  // Released on one relayer, free on another; a waiting relayer hears of it.
  const [a, b] = [{ place: "t", job: "a" }, { place: "t", job: "b" }];
  assert.equal(await shared.claims[0].claim([a], Date.now()), true);
  assert.equal(await shared.claims[1].claim([b], Date.now()), false);
  const waited = shared.claims[2].released([b]);
  await shared.claims[0].release(["a"]);
  await waited;
  assert.equal(await shared.claims[1].claim([b], Date.now()), true);
});

Deno.test("PgTextClaims: the table holds keyed hashes of the places", async () => {
  await using shared = await relayers(1);
  await shared.claims[0].claim([{ place: '["0xowner","diary","digest"]', job: "job-1" }], T);
  const rows = await shared.pools[0].sql`
    select encode(place, 'escape') as place, length(place) as bytes from svc_text_claims`;
  assert.equal(rows.length, 1);
  assert.equal(rows[0].bytes, 16);
  assert.doesNotMatch(rows[0].place, /owner|diary|digest/);
});
