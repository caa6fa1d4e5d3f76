import assert from "node:assert/strict";
import type { CallOptions } from "../backends/types.ts";
import { MemoryCipher } from "../testing/memory_cipher.ts";
import { SvcError } from "../errors.ts";
import { silentLogger } from "../log.ts";
import { testPipeline } from "../testing/job_fixtures.ts";
import { MemoryJobQueue } from "../testing/memory_job_queue.ts";
import { createWorker, type WorkerObserver } from "./worker.ts";

/** Refuses one owner's texts for good (a 400) and another's for now (a 503). */
class RefusingCipher extends MemoryCipher {
  override encrypt(owner: string, plaintext: Uint8Array<ArrayBuffer>, options?: CallOptions) {
    if (owner === "refused") {
      return Promise.reject(new SvcError("bad_request", "Cannot encrypt: refused"));
    }
    if (owner === "down") {
      return Promise.reject(new SvcError("backend_unavailable", "Cannot encrypt: down"));
    }
    return super.encrypt(owner, plaintext, options);
  }
}

Deno.test("worker: tells how each job ended, each retry and each batch's time", async () => {
  using queue = new MemoryJobQueue();
  const pipeline = await testPipeline({ cipher: new RefusingCipher() });
  const ended: [string, number][] = [];
  let retries = 0;
  const batches: number[] = [];
  const observe: WorkerObserver = {
    jobEnded: (outcome, acceptedAt) => ended.push([outcome, acceptedAt]),
    jobRetried: () => retries++,
    batchRan: (seconds) => batches.push(seconds),
  };
  const worker = createWorker({ queue, pipeline, logger: silentLogger, observe });
  const jobs = await queue.accept([
    { owner: "o1", namespace: "n1", text: "I keep bees" },
    { owner: "o1", namespace: "n1", text: "I keep bees" },
    { owner: "refused", namespace: "n1", text: "I keep goats" },
    { owner: "down", namespace: "n1", text: "I keep hens" },
  ]);
  assert.deepEqual(worker.stats(), { waiting: 0, running: 0 });
  const processing = Promise.all(jobs.map((job) => worker.process(job.job_id)));
  assert.deepEqual(worker.stats(), { waiting: 4, running: 0 }, "delivered, not yet in a batch");
  await processing;
  assert.deepEqual(worker.stats(), { waiting: 0, running: 0 });

  assert.deepEqual(ended.map(([outcome]) => outcome).sort(), ["done", "duplicate", "failed"]);
  const acceptances = jobs.map((job) => Date.parse(job.created_at));
  assert.ok(ended.every(([, at]) => acceptances.includes(at)), "each end names its acceptance");
  assert.equal(retries, 1, "the job whose cipher is down is retried");
  assert.equal(batches.length, 1);
  assert.ok(batches[0] >= 0);
  const statuses = (await queue.getMany(jobs.map((job) => job.job_id))).map((job) => job?.status);
  assert.deepEqual(statuses, ["done", "done", "failed", "pending"]);
});

/** A queue whose store is down when a failed attempt is to be recorded. */
class UnrecordingQueue extends MemoryJobQueue {
  override retry(): Promise<never> {
    return Promise.reject(new SvcError("backend_unavailable", "Cannot record: down"));
  }
}

Deno.test("worker: an attempt whose retry cannot be recorded still counts as retried", async () => {
  using queue = new UnrecordingQueue();
  const pipeline = await testPipeline({ cipher: new RefusingCipher() });
  let retries = 0;
  const observe: WorkerObserver = { jobEnded() {}, jobRetried: () => retries++, batchRan() {} };
  const worker = createWorker({ queue, pipeline, logger: silentLogger, observe });
  const [job] = await queue.accept([{ owner: "down", namespace: "n1", text: "I keep hens" }]);
  await worker.process(job.job_id);
  assert.equal(retries, 1, "tried again once its lease ends");
  assert.equal((await queue.getMany([job.job_id]))[0]?.status, "running");
});
