/**
 * The conformance suite of `TextClaims`: a batch claims all its texts or none (many too), a job takes its
 * own claim again, a claim older than `TEXT_CLAIM_MS` is taken over, `released` waits for the
 * other jobs holding the texts, release ends the given jobs' claims only, and of concurrent
 * batches claiming one text exactly one wins.
 */
import assert from "node:assert/strict";
import { TEXT_CLAIM_MS, type TextClaim, type TextClaims } from "../remember/text_claims.ts";

const T = 1_800_000_000_000;

/** Claims of `places`, each for the job named after its batch and place. */
const batch = (name: string, ...places: string[]): TextClaim[] =>
  places.map((place) => ({ place, job: `${name}:${place}` }));

/** Registers the suite's tests for the claims `open` makes (each test gets fresh ones). */
export function textClaimsSuite(
  name: string,
  open: () => Promise<TextClaims & Partial<AsyncDisposable>>,
): void {
  const test = (title: string, body: (claims: TextClaims) => Promise<void>) =>
    Deno.test(`${name}: ${title}`, async () => {
      const claims = await open();
      try {
        await body(claims);
      } finally {
        await claims[Symbol.asyncDispose]?.();
      }
    });

  test("a batch claims all its texts or none; a job takes its own claim again", async (claims) => {
    assert.equal(await claims.claim(batch("b1", "p1", "p2"), T), true);
    assert.equal(await claims.claim(batch("b2", "p3", "p2"), T + 1), false, "p2 is b1's");
    assert.equal(await claims.claim(batch("b3", "p3"), T + 2), true, "b2 took nothing");
    // b1's job for p2, retried after a crash in another batch.
    assert.equal(await claims.claim([...batch("b1", "p2"), ...batch("b4", "p4")], T + 3), true);
    assert.equal(await claims.claim([], T + 4), true, "nothing to claim");
  });

  test("a batch of many texts claims all or none", async (claims) => {
    const many = Array.from({ length: 70 }, (_, i) => `p${String(i).padStart(2, "0")}`);
    assert.equal(await claims.claim(batch("b1", "p65"), T), true);
    assert.equal(await claims.claim(batch("b2", ...many), T + 1), false, "p65 is b1's");
    assert.equal(
      await claims.claim(batch("b3", ...many.slice(0, 65)), T + 2),
      true,
      "b2 kept none",
    );
    await claims.release(many.slice(0, 65).map((place) => `b3:${place}`));
    assert.equal(await claims.claim(batch("b4", ...many.slice(0, 65)), T + 3), true, "released");
  });

  test("a claim older than TEXT_CLAIM_MS is taken over", async (claims) => {
    assert.equal(await claims.claim(batch("b1", "p1"), T), true);
    assert.equal(await claims.claim(batch("b2", "p1"), T + TEXT_CLAIM_MS - 1), false);
    assert.equal(await claims.claim(batch("b2", "p1"), T + TEXT_CLAIM_MS), true);
    assert.equal(await claims.claim(batch("b1", "p1"), T + TEXT_CLAIM_MS + 1), false, "b2's");
  });

  test("release ends the jobs' claims; released waits for the other jobs holding the texts", async (claims) => {
    const now = Date.now();
    assert.equal(await claims.claim(batch("b1", "p1", "p2"), now), true);
    assert.equal(await claims.claim(batch("b2", "p3"), now), true);
    await claims.released([...batch("b1", "p1"), ...batch("b9", "p4")]); // its own, or none
    let over = false;
    const waiting = claims.released(batch("b9", "p4", "p2", "p3")).then(() => over = true);
    await claims.release(["b1:p1", "b1:p2", "b404:p1"]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(over, false, "b2 still holds p3");
    assert.equal(await claims.claim(batch("b9", "p1", "p2"), now + 1), true, "b1's are free");
    await claims.release(["b2:p3"]);
    await waiting;
    assert.equal(await claims.claim(batch("b4", "p3"), now + 2), true);
    await claims.release([]);
  });

  test("released does not wait for a claim that ran out", async (claims) => {
    assert.equal(await claims.claim(batch("b1", "p1"), Date.now() - TEXT_CLAIM_MS), true);
    await claims.released(batch("b2", "p1"));
  });

  test("of batches claiming one text at once exactly one wins", async (claims) => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => claims.claim(batch(`b${i}`, `p${i}`, "shared"), T)),
    );
    assert.equal(outcomes.filter(Boolean).length, 1);
  });
}
