/**
 * The batch half of the `JobQueue` conformance suite (`jobQueueSuite` registers it): the
 * methods a worker uses for a batch of jobs do what their one-job twins do, per job, in order,
 * and the changes among them apply only to the jobs the worker still holds.
 */
import assert from "node:assert/strict";
import type { JobQueue, JobQueueOptions } from "../jobs/job_queue.ts";
import { backendError } from "../errors.ts";
import { silentLogger } from "../log.ts";
import { createWorker } from "../remember/worker.ts";
import { ManualClock, testPipeline } from "./job_fixtures.ts";

/** Registers the batch tests of `jobQueueSuite` for the queue `open` gives. */
export function jobBatchSuite(
  name: string,
  open: (options?: JobQueueOptions) => Promise<JobQueue & AsyncDisposable>,
) {
  const input = (text: string) => ({ owner: "o1", namespace: "n1", text });

  Deno.test(`${name}: leaseMany leases, in order, what lease would; an id given twice once`, async () => {
    const clock = new ManualClock();
    await using queue = await open({ maxAttempts: 2, now: clock.now });
    const [free, held, done, exhausted, other] = await queue.accept(
      ["free", "held", "done", "exhausted", "other"].map(input),
    );
    await queue.lease(held.job_id, "w0");
    await queue.complete((await queue.lease(done.job_id, "w0"))!, {});
    for (let attempt = 0; attempt < 2; attempt++) {
      await queue.retry((await queue.lease(exhausted.job_id, "w0"))!, "Cannot embed: down", 0);
    }
    const ids = [free, held, done, exhausted, other].map((job) => job.job_id);
    const leased = await queue.leaseMany([...ids, "unknown", free.job_id], "w1");
    assert.equal(leased.length, 7);
    const [a, b, c, d, e, f, g] = leased;
    for (const [record, job] of [[a, free], [e, other]] as const) {
      assert.deepEqual(record, {
        ...job,
        status: "running",
        attempts: 1,
        worker: "w1",
        lease_until: clock.now() + queue.leaseMs,
        updated_at: record!.updated_at,
      });
      assert.deepEqual(await queue.get(job.job_id), record);
    }
    assert.deepEqual([b, c, d, f, g], [null, null, null, null, null]);
    assert.equal((await queue.get(held.job_id))?.worker, "w0", "a live lease is respected");
    const failed = await queue.get(exhausted.job_id);
    assert.equal(failed?.status, "failed", "out of attempts: failed, as lease fails it");
    assert.equal(failed?.error, "Cannot embed: down");
    assert.deepEqual(await queue.leaseMany([free.job_id], "w2"), [null]);
    assert.deepEqual(await queue.leaseMany([], "w2"), []);
  });

  Deno.test(`${name}: payloads and ciphertexts read many jobs at once, in order`, async () => {
    await using queue = await open();
    const long = "a long text ".repeat(20_000);
    const [small, large] = await queue.accept([input("small"), input(long)]);
    assert.deepEqual(await queue.payloads([large.job_id, "unknown", small.job_id]), [
      long,
      null,
      "small",
    ]);
    const [a, b] = await queue.leaseMany([small.job_id, large.job_id], "w1");
    const tiny = crypto.getRandomValues(new Uint8Array(100));
    const big = new Uint8Array(1_300_000).map((_, i) => i % 251);
    const ids = [small.job_id, "unknown", large.job_id];
    assert.deepEqual(await queue.ciphertexts(ids), [null, null, null]);
    const saved = await queue.saveCiphertexts([
      { record: a!, ciphertext: tiny },
      { record: b!, ciphertext: big },
    ]);
    assert.deepEqual(saved, [true, true]);
    assert.deepEqual(await queue.ciphertexts(ids), [tiny, null, big]);
    assert.deepEqual(await queue.ciphertext(large.job_id), big, "as ciphertext reads it");
    assert.deepEqual(await queue.saveCiphertexts([]), []);
  });

  Deno.test(`${name}: saveCiphertexts and completeMany change only the jobs still held`, async () => {
    const clock = new ManualClock();
    await using queue = await open({ leaseMs: 100, now: clock.now });
    const jobs = await queue.accept([input("one"), input("two"), input("three")]);
    const ids = jobs.map((job) => job.job_id);
    const mine = (await queue.leaseMany(ids, "w1")).map((record) => record!);
    clock.advance(100); // the leases run out; another worker takes the second job
    const theirs = (await queue.lease(ids[1], "w2"))!;
    const bytes = [1, 2, 3].map((n) => new Uint8Array([n]));
    const saved = await queue.saveCiphertexts(
      mine.map((record, i) => ({ record, ciphertext: bytes[i] })),
    );
    assert.deepEqual(saved, [true, false, true]);
    assert.deepEqual(await queue.ciphertexts(ids), [bytes[0], null, bytes[2]]);

    const completed = await queue.completeMany(
      mine.map((record, i) => ({ record, patch: { blob_id: `blob-${i}`, memory_id: ids[i] } })),
    );
    assert.deepEqual(completed, [true, false, true]);
    for (const i of [0, 2]) {
      const done = await queue.get(ids[i]);
      assert.deepEqual(done, {
        ...mine[i],
        status: "done",
        blob_id: `blob-${i}`,
        memory_id: ids[i],
        error: undefined,
        lease_until: undefined,
        worker: undefined,
        updated_at: done!.updated_at,
      });
    }
    assert.deepEqual(
      await queue.get(ids[1]),
      theirs,
      "the job taken over is as its worker left it",
    );
    assert.deepEqual(await queue.payloads(ids), [null, "two", null], "texts dropped once done");
    assert.deepEqual(await queue.ciphertexts(ids), [null, null, null]);
    assert.deepEqual(await queue.completeMany([{ record: mine[0], patch: {} }]), [false]);
    const active = await Array.fromAsync(queue.active());
    assert.deepEqual(active.map((record) => record.job_id), [ids[1]]);
  });

  Deno.test(`${name}: completeMany finishes more jobs than one commit holds, long texts too`, async () => {
    await using queue = await open();
    const texts = Array.from({ length: 70 }, (_, i) => `fact ${i}`);
    texts[33] = "a long text ".repeat(20_000);
    const jobs = await queue.accept(texts.map(input));
    const ids = jobs.map((job) => job.job_id);
    const leased = (await queue.leaseMany(ids, "w1")).map((record) => record!);
    assert.ok(leased.every((record) => record.status === "running"));
    const big = new Uint8Array(200_000).fill(7);
    const ciphertexts = leased.map((_, i) => i === 33 ? big : new Uint8Array([i]));
    const saved = await queue.saveCiphertexts(
      leased.map((record, i) => ({ record, ciphertext: ciphertexts[i] })),
    );
    assert.ok(saved.every(Boolean));
    assert.deepEqual(await queue.ciphertexts(ids), ciphertexts);
    const completed = await queue.completeMany(leased.map((record) => ({ record, patch: {} })));
    assert.equal(completed.filter(Boolean).length, 70);
    const records = await queue.getMany(ids);
    assert.ok(records.every((record) => record?.status === "done"));
    assert.ok((await queue.payloads(ids)).every((text) => text === null));
    assert.ok((await queue.ciphertexts(ids)).every((bytes) => bytes === null));
    assert.deepEqual(await Array.fromAsync(queue.active()), []);
  });

  Deno.test(`${name}: a job whose memory cannot land fails after its attempts, each counted`, async () => {
    await using queue = await open({ maxAttempts: 3 });
    const failed: string[] = [];
    const landing = {
      vet: (memories: unknown[]) => Promise.resolve(memories.map(() => undefined)),
      // As a key store that refuses every erase: "unavailable", and so each time.
      indexed: () => Promise.reject(backendError("the key store", "erase keys", new Error("x"))),
      failed: (memories: { memoryId: string }[]) => {
        failed.push(...memories.map((memory) => memory.memoryId));
        return Promise.resolve();
      },
    };
    const pipeline = await testPipeline();
    const worker = createWorker({ queue, pipeline, logger: silentLogger, landing });
    const [job] = await queue.accept([input("I live in Bergen")]);
    const seen: string[] = [];
    for (let i = 0; i < 10 && seen.at(-1) !== "failed"; i++) {
      await worker.process(job.job_id);
      seen.push((await queue.get(job.job_id))!.status);
    }
    assert.deepEqual(seen, ["pending", "pending", "failed"], "bounded by maxAttempts");
    const ended = await queue.get(job.job_id);
    assert.equal(ended?.error, "Cannot erase keys: the key store is unavailable");
    assert.equal(ended?.attempts, 3);
    assert.deepEqual(failed, [job.job_id], "the landing withdraws what the job indexed");
    await worker.stop();
  });
}
