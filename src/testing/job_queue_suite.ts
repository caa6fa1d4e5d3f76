/**
 * The conformance suite of `JobQueue` (see `mod.ts` for the others): every implementation
 * must pass it.
 */
import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import type { JobQueue, JobQueueOptions } from "../jobs/job_queue.ts";
import { listening, ManualClock, until } from "./job_fixtures.ts";
import { jobBatchSuite } from "./job_batch_suite.ts";
import { jobLeaseSuite } from "./job_lease_suite.ts";

/**
 * `open` gives a fresh, empty queue with the given options; disposing it ends its listener.
 * The lease tests pass a manual clock as the `now` option, which the queue must read its time
 * from: a lease runs out when the test advances it. Delivery is asynchronous, so the listening
 * tests wait for what they expect (up to 10 s). The lease tests (`job_lease_suite.ts`) also run
 * svc's worker on the queue with jobs that outlast their lease; the batch tests
 * (`job_batch_suite.ts`) hold the methods a worker's batch uses to their one-job twins.
 */
export function jobQueueSuite(
  name: string,
  open: (options?: JobQueueOptions) => Promise<JobQueue & AsyncDisposable>,
) {
  const input = (text: string, owner = "o1") => ({ owner, namespace: "n1", text });
  const internal = { lease_until: undefined, worker: undefined };

  Deno.test(`${name}: accept makes pending records in order, kept with their texts`, async () => {
    await using queue = await open();
    const long = "a long text ".repeat(20_000);
    const [a, b] = await queue.accept([input("first"), input(long, "o2")]);
    assert.deepEqual(a, {
      job_id: a.job_id,
      status: "pending",
      owner: "o1",
      namespace: "n1",
      attempts: 0,
      created_at: a.created_at,
      updated_at: a.created_at,
    });
    assert.equal(b.owner, "o2");
    assert.notEqual(a.job_id, b.job_id);
    assert.deepEqual(await queue.get(a.job_id), a);
    assert.equal(await queue.get("unknown"), null);
    assert.equal(await queue.payload(a.job_id), "first");
    assert.equal(await queue.payload(b.job_id), long);
    assert.equal(await queue.payload("unknown"), null);
    const many = await queue.accept(Array.from({ length: 23 }, (_, i) => input(`${i}`)));
    const ids = [a.job_id, "unknown", ...many.map((job) => job.job_id), b.job_id];
    assert.deepEqual(await queue.getMany(ids), [a, null, ...many, b]);
    assert.deepEqual(await queue.accept([]), []);
  });

  Deno.test(`${name}: one lease at a time; checkpoint saves; complete drops the text`, async () => {
    await using queue = await open();
    const [job] = await queue.accept([input("leased")]);
    const before = Date.now();
    const leased = await queue.lease(job.job_id, "w1");
    assert.ok(leased);
    assert.equal(leased.status, "running");
    assert.equal(leased.attempts, 1);
    assert.equal(leased.worker, "w1");
    assert.ok(leased.lease_until! >= before + queue.leaseMs);
    assert.deepEqual(await queue.get(job.job_id), leased);
    assert.equal(await queue.lease(job.job_id, "w2"), null, "a live lease is respected");
    assert.equal(await queue.lease("unknown", "w2"), null);

    const saved = await queue.checkpoint(leased, { blob_id: "blob-1" });
    assert.equal(saved.blob_id, "blob-1");
    assert.deepEqual(await queue.get(job.job_id), saved);
    await queue.complete(saved, { memory_id: job.job_id });
    const done = await queue.get(job.job_id);
    assert.deepEqual(done, {
      ...saved,
      ...internal,
      status: "done",
      memory_id: job.job_id,
      error: undefined,
      updated_at: done!.updated_at,
    });
    assert.equal(await queue.payload(job.job_id), null);
    assert.equal(await queue.lease(job.job_id, "w2"), null, "a finished job is not leased");
  });

  Deno.test(`${name}: retry gives a job back; fail ends it; maxAttempts fails at the next lease`, async () => {
    await using queue = await open({ maxAttempts: 2 });
    assert.equal(queue.maxAttempts, 2);
    const [job, doomed] = await queue.accept([input("retried"), input("doomed")]);
    await queue.retry((await queue.lease(job.job_id, "w1"))!, "Cannot embed: down", 0);
    const pending = await queue.get(job.job_id);
    assert.deepEqual(pending, {
      ...job,
      ...internal,
      attempts: 1,
      error: "Cannot embed: down",
      updated_at: pending!.updated_at,
    });
    assert.equal(await queue.payload(job.job_id), "retried", "the text waits for the retry");
    const second = await queue.lease(job.job_id, "w2");
    assert.equal(second?.attempts, 2);
    await queue.retry(second!, "Cannot embed: still down", 0);
    assert.equal(await queue.lease(job.job_id, "w3"), null, "out of attempts");
    const failed = await queue.get(job.job_id);
    assert.equal(failed?.status, "failed");
    assert.equal(failed?.error, "Cannot embed: still down", "the last error is kept");
    assert.equal(failed?.attempts, 2);
    assert.equal(await queue.payload(job.job_id), null);

    // An attempt given back uncounted (a backend was down) leaves the job its attempts.
    const [patient] = await queue.accept([input("patient")]);
    for (let i = 0; i < 3; i++) {
      const leased = await queue.lease(patient.job_id, `w${i}`);
      assert.equal(leased?.attempts, 1, `lease ${i}`);
      await queue.retry(leased!, "Cannot store: the store is unavailable", 0, { counted: false });
    }
    const waiting = await queue.get(patient.job_id);
    assert.deepEqual([waiting?.status, waiting?.attempts], ["pending", 0]);
    assert.equal(waiting?.error, "Cannot store: the store is unavailable");
    // A delay in fractions of a millisecond (a quarter of a job's age) is taken as it is.
    const late = await queue.lease(patient.job_id, "w3");
    await queue.retry(late!, "Cannot store: still unavailable", 1_000.25, { counted: false });
    assert.equal((await queue.get(patient.job_id))?.error, "Cannot store: still unavailable");

    await queue.fail((await queue.lease(doomed.job_id, "w1"))!, "Cannot encrypt: no key");
    const dead = await queue.get(doomed.job_id);
    assert.deepEqual(dead, {
      ...doomed,
      ...internal,
      status: "failed",
      attempts: 1,
      error: "Cannot encrypt: no key",
      updated_at: dead!.updated_at,
    });
    assert.equal(await queue.payload(doomed.job_id), null);
    assert.equal(await queue.lease(doomed.job_id, "w2"), null, "a failed job is not leased");
  });

  Deno.test(`${name}: active lists the unfinished jobs, oldest first`, async () => {
    await using queue = await open();
    const jobs = await queue.accept([input("a"), input("b"), input("c"), input("d")]);
    const running = await queue.lease(jobs[1].job_id, "w1");
    await queue.complete((await queue.lease(jobs[0].job_id, "w1"))!, {});
    await queue.fail((await queue.lease(jobs[2].job_id, "w1"))!, "Cannot store: no");
    const active = [];
    for await (const record of queue.active()) active.push(record);
    assert.deepEqual(active, [running, jobs[3]]);
  });

  Deno.test(`${name}: a lease past its time may be taken over`, async () => {
    const clock = new ManualClock();
    await using queue = await open({ leaseMs: 20, now: clock.now });
    const [job] = await queue.accept([input("slow")]);
    assert.equal((await queue.lease(job.job_id, "w1"))?.worker, "w1");
    clock.advance(19);
    assert.equal(await queue.lease(job.job_id, "w2"), null, "not before the lease runs out");
    clock.advance(1);
    const taken = await queue.lease(job.job_id, "w2");
    assert.equal(taken?.worker, "w2");
    assert.equal(taken?.attempts, 2);
  });

  Deno.test(`${name}: listen delivers accepted, retried and re-driven jobs until its signal aborts`, async () => {
    await using queue = await open();
    const [early] = await queue.accept([input("before listening")]);
    const { delivered, stop } = listening(queue);
    await until(
      "the job accepted before listening arrives",
      () => delivered.includes(early.job_id),
    );
    const [job] = await queue.accept([input("while listening")]);
    await until("the accepted job arrives", () => delivered.includes(job.job_id));
    // Counted on the job accepted before listening: one accepted while listening may also be
    // handed over at once by the process that accepted it, besides its durable message.
    await queue.retry((await queue.lease(early.job_id, "w1"))!, "Cannot index: busy", 0);
    await until(
      "the retried job arrives",
      () => delivered.filter((id) => id === early.job_id).length === 2,
    );
    await queue.redrive(early.job_id);
    await until(
      "the re-driven job arrives",
      () => delivered.filter((id) => id === early.job_id).length === 3,
    );

    // A retry far in the future is still waiting when the queue is disposed.
    await queue.retry((await queue.lease(job.job_id, "w2"))!, undefined, 60_000);
    await stop(); // listening stops when the signal aborts
    const count = delivered.length;
    const [late] = await queue.accept([input("after listening")]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(delivered.length, count, "nothing is delivered once the signal aborts");
    assert.equal((await queue.get(late.job_id))?.status, "pending", "the job waits");
    await assert.rejects(() => queue.listen(() => Promise.resolve()), SvcError, "listen once");
  });

  Deno.test(`${name}: a message whose handler fails is delivered again`, async () => {
    await using queue = await open();
    const [job] = await queue.accept([input("flaky")]);
    let calls = 0;
    const listening = new AbortController();
    const listened = queue.listen(() => {
      calls++;
      return calls === 1 ? Promise.reject(new Error("Cannot process: flaky")) : Promise.resolve();
    }, { signal: listening.signal });
    await until("the job is delivered again", () => calls === 2);
    listening.abort();
    await listened;
    assert.equal((await queue.get(job.job_id))?.status, "pending");
  });

  jobLeaseSuite(name, open);
  jobBatchSuite(name, open);
}
