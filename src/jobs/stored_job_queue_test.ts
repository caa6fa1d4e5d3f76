import assert from "node:assert/strict";
import { ManualClock, until } from "../testing/job_fixtures.ts";
import type { JobRecord } from "./job_queue.ts";
import type { CreateOptions } from "./job_store.ts";
import { MemoryJobQueue } from "../testing/memory_job_queue.ts";
import { MemoryJobStore } from "../testing/memory_job_store.ts";
import { StoredJobQueue } from "./stored_job_queue.ts";

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

Deno.test("jobs accepted past maxHanded are left to the store to deliver; a lease makes room", async () => {
  const delivered: (boolean | undefined)[] = [];
  class Store extends MemoryJobStore {
    override create(records: JobRecord[], texts: string[], options: CreateOptions = {}) {
      delivered.push(options.deliver);
      return super.create(records, texts, options);
    }
  }
  using store = new Store();
  const queue = new StoredJobQueue(store, { maxHanded: 2 });
  const listening = new AbortController();
  const heard: string[] = [];
  const stopped = queue.listen(({ job_id }) => Promise.resolve(void heard.push(job_id)), {
    signal: listening.signal,
  });
  const [a, b] = await queue.accept([input, input]);
  const [c] = await queue.accept([input]);
  assert.deepEqual(delivered, [false, true], "handed, then past the limit");
  await queue.lease(a.job_id, "w1");
  await queue.accept([input]);
  assert.deepEqual(delivered, [false, true, false], "a lease made room");
  await until("every job is heard", () => heard.length === 4);
  assert.ok([a, b, c].every((job) => heard.includes(job.job_id)));
  listening.abort();
  await stopped;
});

Deno.test("the text of a handed job another process leased first is not kept in memory", async () => {
  using store = new MemoryJobStore();
  const here = new StoredJobQueue(store);
  const elsewhere = new StoredJobQueue(store);
  const listening = new AbortController();
  const stopped = here.listen(() => Promise.resolve(), { signal: listening.signal });
  const [job] = await here.accept([input]);
  const taken = (await elsewhere.lease(job.job_id, "w9"))!;
  assert.deepEqual(await here.leaseMany([job.job_id], "w1"), [null]);
  await elsewhere.complete(taken, { memory_id: job.job_id });
  assert.deepEqual(await here.payloads([job.job_id]), [null], "its text went with the job");
  listening.abort();
  await stopped;
});
