/**
 * The lease half of the `JobQueue` conformance suite (`jobQueueSuite` registers it): renewals,
 * fencing, jobs given back after a crash, the ciphertext a job keeps, and svc's own worker
 * running jobs longer than their lease on the queue, and taking over the job of a worker that
 * died.
 */
import assert from "node:assert/strict";
import { MemoryBlobStore } from "../backends/memory.ts";
import { MemoryEmbedder } from "./memory_embedder.ts";
import type { BlobStore } from "../backends/types.ts";
import { type JobQueue, type JobQueueOptions, LeaseLost } from "../jobs/job_queue.ts";
import { reconcileJobs } from "../jobs/reconciler.ts";
import { createWorker } from "../remember/worker.ts";
import { silentLogger } from "../log.ts";
import {
  CountingVectorStore,
  HeldBlobStore,
  ManualClock,
  testPipeline,
  until,
} from "./job_fixtures.ts";

/** A remember pipeline over `blobs`, with a vector store counting its writes. */
async function countingPipeline(blobs: BlobStore) {
  const embedder = new MemoryEmbedder();
  const vectors = new CountingVectorStore(embedder.dimensions);
  return { pipeline: await testPipeline({ blobs, embedder, vectors }), vectors };
}

/** Registers the lease tests of `jobQueueSuite` for the queue `open` gives. */
export function jobLeaseSuite(
  name: string,
  open: (options?: JobQueueOptions) => Promise<JobQueue & AsyncDisposable>,
) {
  const input = (text: string) => ({ owner: "o1", namespace: "n1", text });

  Deno.test(`${name}: renew extends a held lease; a worker taken over can change nothing`, async () => {
    // Leases run out when the test advances the clock, never because the machine is slow.
    const clock = new ManualClock();
    await using queue = await open({ leaseMs: 100, now: clock.now });
    const [job] = await queue.accept([input("contested")]);
    const first = (await queue.lease(job.job_id, "w1"))!;
    assert.equal(first.lease_until, clock.now() + 100, "leased for leaseMs by the queue's clock");
    const saved = await queue.checkpoint(first, { blob_id: "blob-1" });
    clock.advance(60);
    const renewed = await queue.renew(first);
    assert.equal(renewed?.lease_until, clock.now() + 100, "the lease is extended from now");
    assert.equal(renewed.blob_id, "blob-1", "a renewal keeps the checkpoint");
    assert.equal(renewed.updated_at, saved.updated_at, "a renewal is not a change clients see");
    assert.deepEqual(await queue.get(job.job_id), renewed);
    clock.advance(60); // past the first lease, not the renewed one
    assert.equal(await queue.lease(job.job_id, "w2"), null, "a renewed lease is respected");

    clock.advance(40); // the renewed lease runs out
    const second = (await queue.lease(job.job_id, "w2"))!;
    assert.equal(second.attempts, 2);
    assert.equal(second.blob_id, "blob-1");
    assert.equal(await queue.renew(first), null, "the first worker's lease is lost");
    await assert.rejects(() => queue.checkpoint(first, { blob_id: "blob-2" }), LeaseLost);
    await assert.rejects(() => queue.saveCiphertext(first, new Uint8Array([1])), LeaseLost);
    await assert.rejects(() => queue.complete(first, { memory_id: job.job_id }), LeaseLost);
    await assert.rejects(() => queue.retry(first, "Cannot embed: slow", 0), LeaseLost);
    await assert.rejects(() => queue.fail(first, "Cannot embed: slow"), LeaseLost);
    assert.deepEqual(await queue.get(job.job_id), second, "nothing changed");
    assert.equal(await queue.ciphertext(job.job_id), null);
    assert.equal(await queue.payload(job.job_id), "contested");

    await queue.complete(second, { memory_id: job.job_id });
    assert.equal((await queue.get(job.job_id))?.status, "done");
    assert.equal(await queue.renew(second), null, "a finished job has no lease");
  });

  Deno.test(`${name}: interrupted gives a job back uncounted; interrupted too often, it fails`, async () => {
    await using queue = await open({ maxAttempts: 2 });
    const [job] = await queue.accept([input("cut short again and again")]);
    await queue.retry((await queue.lease(job.job_id, "w0"))!, "Cannot embed: down", 0);
    let record = (await queue.lease(job.job_id, "w1"))!;
    // Four crashes (twice maxAttempts) cut its attempts short; each is given back at start-up.
    for (let crash = 1; crash <= 4; crash++) {
      assert.equal(record.attempts, 2, "the failed attempt counts, the interrupted ones do not");
      await queue.interrupted(record);
      const back = await queue.get(job.job_id);
      assert.deepEqual(back, {
        ...record,
        status: "pending",
        attempts: 1,
        interruptions: crash,
        lease_until: undefined,
        worker: undefined,
        updated_at: back!.updated_at,
      });
      assert.equal(await queue.payload(job.job_id), "cut short again and again");
      await assert.rejects(() => queue.interrupted(record), LeaseLost, "given back once");
      if (crash < 4) record = (await queue.lease(job.job_id, `w${crash + 1}`))!;
    }
    assert.equal(await queue.lease(job.job_id, "w9"), null, "interrupted too often");
    const failed = await queue.get(job.job_id);
    assert.equal(failed?.status, "failed");
    assert.equal(failed?.error, "The job was interrupted too many times");
  });

  Deno.test(`${name}: a job keeps the ciphertext its worker saved until it finishes`, async () => {
    await using queue = await open();
    const [small, large] = await queue.accept([input("small"), input("large")]);
    const a = (await queue.lease(small.job_id, "w1"))!;
    const b = (await queue.lease(large.job_id, "w1"))!;
    const tiny = crypto.getRandomValues(new Uint8Array(100));
    const big = new Uint8Array(1_300_000).map((_, i) => i % 251);
    assert.equal(await queue.ciphertext(small.job_id), null);
    await queue.saveCiphertext(a, tiny);
    await queue.saveCiphertext(b, big);
    assert.deepEqual(await queue.ciphertext(small.job_id), tiny);
    assert.deepEqual(await queue.ciphertext(large.job_id), big);

    await queue.retry(b, "Cannot store: busy", 60_000);
    assert.deepEqual(await queue.ciphertext(large.job_id), big, "kept for the next attempt");
    await queue.complete(a, {});
    assert.equal(await queue.ciphertext(small.job_id), null, "dropped once done");
    await queue.fail((await queue.lease(large.job_id, "w2"))!, "Cannot store: no");
    assert.equal(await queue.ciphertext(large.job_id), null, "dropped once failed");
  });

  Deno.test(`${name}: a job slower than its lease runs once: the worker renews its lease`, async () => {
    // The lease runs out only when the test advances the clock; the worker renews it every
    // 10 ms of real time, and its upload waits until the test releases it.
    const clock = new ManualClock();
    await using queue = await open({ leaseMs: 30, now: clock.now });
    using blobs = new HeldBlobStore();
    const { pipeline, vectors } = await countingPipeline(blobs);
    const worker = createWorker({ queue, pipeline, logger: silentLogger });
    const other = createWorker({ queue, pipeline, logger: silentLogger });
    const listening = new AbortController();
    const listened = queue.listen(({ job_id }) => worker.process(job_id), {
      signal: listening.signal,
    });
    const [job] = await queue.accept([input("I keep bees on the roof")]);
    await until("the job is uploading", () => blobs.calls === 1);
    const leased = (await queue.get(job.job_id))!;
    assert.equal(leased.worker, worker.id);
    // Two thirds of a lease at a time: without renewals, the lease would run out at the
    // second step, and at the third whatever the first renewal gave.
    for (let step = 0; step < 3; step++) {
      const now = clock.advance(20);
      await until(
        "the worker renews its lease",
        async () => (await queue.get(job.job_id))?.lease_until === now + queue.leaseMs,
      );
      // The job is delivered again, re-driven, and offered to another worker.
      await queue.redrive(job.job_id);
      await reconcileJobs(queue, silentLogger, { startup: false, now });
      await other.process(job.job_id);
      assert.equal((await queue.get(job.job_id))?.worker, worker.id, "still the first worker's");
    }
    assert.ok(clock.now() > leased.lease_until!, "the first lease ran out long ago");
    blobs.release();
    await until("the job is done", async () => (await queue.get(job.job_id))?.status === "done");
    await worker.idle();
    listening.abort();
    await listened;

    const done = (await queue.get(job.job_id))!;
    assert.equal(done.attempts, 1, "never taken over");
    assert.equal(blobs.calls, 1, "one upload");
    assert.deepEqual((await blobs.list("o1", "n1")).map((entry) => entry.blobId), [done.blob_id]);
    assert.equal(vectors.writes.get(job.job_id), 1, "one vector write");
    assert.equal(await vectors.count(), 1);
  });

  Deno.test(`${name}: the job of a worker that died is taken over exactly once`, async () => {
    const clock = new ManualClock();
    await using queue = await open({ leaseMs: 30, now: clock.now });
    const blobs = new MemoryBlobStore();
    const { pipeline, vectors } = await countingPipeline(blobs);
    const text = "My sister lives in Lisbon";
    const [job] = await queue.accept([input(text)]);
    const meta = { memoryId: job.job_id, owner: "o1", namespace: "n1", createdAt: 1 };
    // The dead worker got as far as uploading its blob, not as far as recording it.
    const dead = (await queue.lease(job.job_id, "dead"))!;
    const ciphertext = await pipeline.encrypt({ ...meta, text });
    await queue.saveCiphertext(dead, ciphertext);
    const orphan = await blobs.put(ciphertext, meta);

    const takers = [1, 2, 3].map(() => createWorker({ queue, pipeline, logger: silentLogger }));
    const listening = new AbortController();
    const listened = queue.listen(({ job_id }) => takers[0].process(job_id), {
      signal: listening.signal,
    });
    await Promise.all(takers.map((taker) => taker.process(job.job_id)));
    assert.equal((await queue.get(job.job_id))?.worker, "dead", "a live lease is respected");
    const now = clock.advance(queue.leaseMs); // the dead worker's lease runs out
    await Promise.all([
      reconcileJobs(queue, silentLogger, { startup: false, now }),
      ...takers.map((taker) => taker.process(job.job_id)),
    ]);
    await until("the job is done", async () => (await queue.get(job.job_id))?.status === "done");
    await Promise.all(takers.map((taker) => taker.idle()));
    listening.abort();
    await listened;

    const done = (await queue.get(job.job_id))!;
    assert.equal(done.attempts, 2, "one takeover");
    assert.equal(done.blob_id, orphan, "the dead worker's ciphertext was put again");
    assert.deepEqual((await blobs.list("o1", "n1")).map((entry) => entry.blobId), [orphan]);
    assert.equal(vectors.writes.get(job.job_id), 1, "one vector write");
  });
}
