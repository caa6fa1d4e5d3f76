import assert from "node:assert/strict";
import { ManualClock } from "../testing/job_fixtures.ts";
import { MemoryJobQueue } from "./memory_job_queue.ts";

const input = { owner: "o1", namespace: "n1", text: "I keep bees" };

Deno.test("a worker taking its own job again once its lease ran out uses an attempt, and the last fails it", async () => {
  const clock = new ManualClock();
  using queue = new MemoryJobQueue({ maxAttempts: 2, leaseMs: 1_000, now: clock.now });
  const [job] = await queue.accept([input]);
  const attempts = [];
  for (let i = 0; i < 3; i++) {
    attempts.push((await queue.lease(job.job_id, "w1"))?.attempts ?? null);
    clock.advance(2_000);
  }
  assert.deepEqual(attempts, [1, 2, null]);
  assert.equal((await queue.get(job.job_id))?.status, "failed");
});

Deno.test("a lease renewed while another worker decides to take it over is kept", async () => {
  const clock = new ManualClock();
  using queue = new MemoryJobQueue({ leaseMs: 1_000, now: clock.now });
  const [job] = await queue.accept([input]);
  const held = (await queue.lease(job.job_id, "w1"))!;
  clock.advance(1_500);
  const [takenOver, renewed] = await Promise.all([
    queue.leaseMany([job.job_id], "w2"),
    queue.renew(held),
  ]);
  assert.deepEqual(takenOver, [null]);
  assert.equal(renewed?.worker, "w1");
  assert.equal((await queue.get(job.job_id))?.worker, "w1");
});
