/**
 * What every replay guard keeping its record in process memory must do: hold each claim for its
 * time to live, and no more than one time bucket past it.
 */
import assert from "node:assert/strict";
import type { ReplayGuard } from "../auth/replay_guard.ts";
import type { ClaimRecordStats } from "../auth/claim_record.ts";

/** A guard whose record is in process memory, as `open` gives one on the clock `now`. */
export type RecordedReplayGuard = ReplayGuard & { stats(): ClaimRecordStats };

/** Registers the suite's test for the guard `open` makes with one-minute buckets. */
export function replayGuardSuite(
  name: string,
  open: (now: () => number) => Promise<RecordedReplayGuard & Partial<AsyncDisposable>>,
): void {
  Deno.test(`${name}: memory is bounded by the claims of one time to live, dropped a bucket at a time`, async () => {
    const ttl = 600_000;
    const clock = { now: 1_800_000_000_000 };
    const guard = await open(() => clock.now);
    try {
      await boundedBy(guard, clock, ttl);
    } finally {
      await guard[Symbol.asyncDispose]?.();
    }
  });
}

async function boundedBy(guard: RecordedReplayGuard, clock: { now: number }, ttl: number) {
  let n = 0;
  let most = 0;
  // 30 minutes of claims, 50 a second of fake time; each lives 10 minutes.
  for (let second = 0; second < 1800; second++) {
    clock.now += 1000;
    const claims = [];
    for (let i = 0; i < 50; i++) claims.push(guard.claim(`k${n++}`, ttl));
    assert.ok((await Promise.all(claims)).every(Boolean));
    most = Math.max(most, guard.stats().claims);
  }
  const { claims, bytes, buckets } = guard.stats();
  // A claim is held at most one bucket past its expiry.
  assert.ok(most <= 50 * (600 + 60), `${most} claims held`);
  assert.ok(claims >= 50 * 600, `${claims} claims held`);
  assert.ok(buckets <= 11, `${buckets} buckets`);
  assert.ok(bytes <= 32 * claims + 16 * 1024 * buckets, `${bytes} bytes`);
  // A replay of a claim from 9 minutes ago is still refused; one from 12 minutes ago is not.
  assert.equal(await guard.claim(`k${n - 50 * 540}`, ttl), false);
  assert.equal(await guard.claim(`k${n - 50 * 720}`, ttl), true);
  clock.now += ttl + 60_000;
  await guard.claim("after", ttl);
  assert.deepEqual(guard.stats().claims, 1, "every earlier bucket dropped");
}
