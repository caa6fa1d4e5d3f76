/**
 * The conformance suite of `UpdateClaims`: one update holds a memory at a time, the same update
 * takes its claim again, a claim older than `UPDATE_CLAIM_MS` is taken over, release frees
 * only the holder's claim, revoke frees any, `holds` tells a live claim's holder, and of
 * concurrent claims exactly one wins.
 */
import assert from "node:assert/strict";
import { UPDATE_CLAIM_MS, type UpdateClaims } from "../services/update_claims.ts";

const T = 1_800_000_000_000;

/** Registers the suite's tests for the claims `open` makes (each test gets fresh ones). */
export function updateClaimsSuite(
  name: string,
  open: () => Promise<UpdateClaims & Partial<AsyncDisposable>>,
): void {
  const test = (title: string, body: (claims: UpdateClaims) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const claims = await open();
      try {
        await body(claims);
      } finally {
        await claims[Symbol.asyncDispose]?.();
      }
    });

  test("one update holds a memory; the same update takes it again", async (claims) => {
    assert.equal(await claims.claim("m1", "v2", T), true);
    assert.equal(await claims.claim("m1", "v3", T + 1), false);
    assert.equal(await claims.claim("m1", "v2", T + 2), true, "a job resumed");
    assert.equal(await claims.claim("m2", "v3", T + 3), true, "another memory is apart");
  });

  test("a claim older than UPDATE_CLAIM_MS is taken over; taking it again refreshes it", async (claims) => {
    assert.equal(await claims.claim("m1", "v2", T), true);
    assert.equal(await claims.claim("m1", "v3", T + UPDATE_CLAIM_MS - 1), false);
    assert.equal(await claims.claim("m1", "v3", T + UPDATE_CLAIM_MS), true);
    assert.equal(await claims.claim("m1", "v2", T + UPDATE_CLAIM_MS + 1), false, "now v3's");
    // v3 takes it again later: held for UPDATE_CLAIM_MS from then.
    assert.equal(await claims.claim("m1", "v3", T + 2 * UPDATE_CLAIM_MS), true);
    assert.equal(await claims.claim("m1", "v4", T + 3 * UPDATE_CLAIM_MS - 1), false);
  });

  test("release frees the holder's claim only", async (claims) => {
    assert.equal(await claims.claim("m1", "v2", T), true);
    await claims.release("m1", "v9");
    assert.equal(await claims.claim("m1", "v3", T + 1), false, "not v9's to release");
    await claims.release("m1", "v2");
    assert.equal(await claims.claim("m1", "v3", T + 2), true);
    await claims.release("m404", "v2");
  });

  test("holds: the holder's live claim only; revoke ends the claims of the memories given", async (claims) => {
    assert.equal(await claims.claim("m1", "v2", T), true);
    assert.equal(await claims.claim("m2", "v3", T), true);
    assert.equal(await claims.claim("m3", "v4", T), true);
    assert.equal(await claims.holds("m1", "v2", T + 1), true);
    assert.equal(await claims.holds("m1", "v3", T + 1), false, "another update's");
    assert.equal(await claims.holds("m1", "v2", T + UPDATE_CLAIM_MS), false, "run out");
    assert.equal(await claims.holds("m404", "v2", T), false);
    await claims.revoke(["m1", "m2", "m404"]);
    assert.equal(await claims.holds("m1", "v2", T + 1), false);
    assert.equal(await claims.holds("m2", "v3", T + 1), false);
    assert.equal(await claims.holds("m3", "v4", T + 1), true, "not revoked");
    assert.equal(await claims.claim("m1", "v5", T + 2), true, "free again");
    await claims.revoke([]);
    await claims.release("m3", "v4");
    assert.equal(await claims.holds("m3", "v4", T + 1), false, "released");
  });

  test("of concurrent claims of one memory exactly one wins", async (claims) => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => claims.claim("m1", `v${i}`, T)),
    );
    assert.equal(outcomes.filter(Boolean).length, 1);
  });
}
