import assert from "node:assert/strict";
import { replayGuardSuite } from "../testing/replay_guard_suite.ts";
import { ClaimRecord, fingerprintOf } from "./claim_record.ts";
import { MemoryReplayGuard } from "./replay_guard.ts";

replayGuardSuite(
  "MemoryReplayGuard",
  (now) => Promise.resolve(new MemoryReplayGuard({ now, bucketMs: 60_000 })),
);

Deno.test("ClaimRecord: holds every fingerprint through growth, and answers by bucket", () => {
  const record = new ClaimRecord(1000);
  const prints = Array.from({ length: 5000 }, (_, i) => fingerprintOf(`key ${i}`));
  prints.forEach((print, i) => {
    assert.equal(record.has(print, 0), false);
    record.add(print, 500 + (i % 3) * 1000);
  });
  assert.ok(prints.every((print) => record.has(print, 0)));
  assert.equal(record.has(fingerprintOf("another"), 0), false);
  assert.deepEqual(record.stats(0).buckets, 3);
  // At 1000 the first bucket (claims expiring by 1000) is gone, the others stay.
  assert.equal(record.has(prints[0], 1000), false);
  assert.equal(record.has(prints[1], 1000), true);
  assert.equal(record.stats(1000).claims, prints.length - Math.ceil(prints.length / 3));
  assert.equal(record.stats(3000).claims, 0);
});
