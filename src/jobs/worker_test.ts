import assert from "node:assert/strict";
import { MemoryBlobStore, MemoryVectorStore } from "../backends/memory.ts";
import type { BlobMeta, CallOptions } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { silentLogger } from "../log.ts";
import { MemoryEmbedder } from "../backends/memory_embedder.ts";
import { HeldBlobStore, ManualClock, testPipeline, until } from "../testing/job_fixtures.ts";
import { SlowEmbedder } from "../testing/slow_backends.ts";
import type { JobRecord } from "./job_queue.ts";
import { MemoryJobQueue } from "./memory_job_queue.ts";
import { createWorker } from "./worker.ts";

/** An embedder whose first call never answers (it only gives up when its signal aborts). */
class StallingOnceEmbedder extends MemoryEmbedder {
  calls = 0;
  override embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    if (++this.calls > 1) return super.embed(texts);
    return new Promise((_, reject) => {
      options?.signal?.addEventListener("abort", () => reject(options.signal!.reason));
    });
  }
}

Deno.test("worker: a call past its time limit fails the attempt by name; the retry keeps the blob", async () => {
  using queue = new MemoryJobQueue();
  const embedder = new StallingOnceEmbedder();
  const blobs = new MemoryBlobStore();
  const vectors = new MemoryVectorStore(embedder.dimensions);
  const pipeline = await testPipeline({ blobs, embedder, vectors });
  // Long enough for a first encryption on a busy machine; the stalled embedding never answers.
  const worker = createWorker({ queue, pipeline, logger: silentLogger, callTimeoutMs: 500 });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);

  await worker.process(job.job_id);
  const retried = await queue.get(job.job_id);
  assert.equal(retried?.status, "pending");
  assert.equal(retried?.error, "Embedding timed out after 500 ms");
  assert.ok(retried?.blob_id, "the blob id was checkpointed before indexing");

  await worker.process(job.job_id);
  const done = await queue.get(job.job_id);
  assert.equal(done?.status, "done");
  assert.equal(done?.attempts, 2);
  assert.equal(done?.blob_id, retried.blob_id);
  assert.equal(done?.memory_id, job.job_id);
  assert.equal((await blobs.list("o1", "n1")).length, 1, "one blob");
  assert.deepEqual([...await vectors.has([job.job_id])], [job.job_id]);
  assert.equal(await queue.payload(job.job_id), null);
});

/** A queue on which one worker's lease renewals fail, as if that worker had stalled. */
class StallingQueue extends MemoryJobQueue {
  stalled?: string;
  override renew(record: JobRecord): Promise<JobRecord | null> {
    if (record.worker === this.stalled) return Promise.reject(new Error("renewal stalled"));
    return super.renew(record);
  }
}

Deno.test("worker: a worker that lost its lease stops its calls and leaves the job to its successor", async () => {
  // The leases run out when the clock is advanced; the renewals beat every 10 ms.
  const clock = new ManualClock();
  using queue = new StallingQueue({ leaseMs: 30, now: clock.now });
  const embedder = new SlowEmbedder(new MemoryEmbedder());
  using blobs = new HeldBlobStore();
  const vectors = new MemoryVectorStore(embedder.dimensions);
  const pipeline = await testPipeline({ blobs, embedder, vectors });
  const first = createWorker({ queue, pipeline, logger: silentLogger });
  const second = createWorker({ queue, pipeline, logger: silentLogger });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);
  queue.stalled = first.id;

  let firstStopped = false;
  const firstRun = first.process(job.job_id).then(() => firstStopped = true);
  await until("the first worker uploads", () => blobs.calls === 1);
  const stale = (await queue.get(job.job_id))!;
  assert.equal(stale.worker, first.id);
  clock.advance(queue.leaseMs); // its lease runs out: it could not renew it
  const secondRun = second.process(job.job_id);
  await until("the second worker uploads", () => blobs.calls === 2);
  assert.equal((await queue.get(job.job_id))?.worker, second.id, "the second took the job");
  queue.stalled = undefined; // the first worker's next renewal finds the lease gone
  await until("the first worker stops, its upload abandoned", () => firstStopped);
  assert.deepEqual(await blobs.list("o1", "n1"), [], "no upload got through");
  blobs.release();
  await Promise.all([firstRun, secondRun]);

  const done = await queue.get(job.job_id);
  assert.equal(done?.status, "done");
  assert.equal(done?.attempts, 2);
  assert.equal(done?.error, undefined, "the first worker neither retried nor failed the job");
  assert.equal(blobs.calls, 2, "the first upload was abandoned, the second made");
  assert.equal(embedder.calls, 1, "the first worker stopped before indexing");
  assert.deepEqual((await blobs.list("o1", "n1")).map((entry) => entry.blobId), [done.blob_id]);
  assert.equal(await vectors.count(), 1);
});

/** A blob store that stores the first upload and then loses its answer, as a cut connection does. */
class AnswerLostOnceBlobStore extends MemoryBlobStore {
  puts = 0;
  override async put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta) {
    await super.put(bytes, meta);
    if (++this.puts === 1) throw new SvcError("backend_unavailable", "Cannot store: cut off");
    return await super.put(bytes, meta);
  }
}

Deno.test("worker: an upload whose answer was lost is retried with the same ciphertext, so one blob", async () => {
  using queue = new MemoryJobQueue();
  const blobs = new AnswerLostOnceBlobStore();
  const embedder = new MemoryEmbedder();
  const vectors = new MemoryVectorStore(embedder.dimensions);
  const pipeline = await testPipeline({ blobs, embedder, vectors });
  const worker = createWorker({ queue, pipeline, logger: silentLogger });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);

  await worker.process(job.job_id);
  const retried = await queue.get(job.job_id);
  assert.equal(retried?.status, "pending");
  assert.equal(retried?.blob_id, undefined, "the upload's answer never came");
  assert.ok(await queue.ciphertext(job.job_id), "the ciphertext was kept before the upload");
  await worker.process(job.job_id);
  const done = await queue.get(job.job_id);
  assert.equal(done?.status, "done");
  assert.equal(await queue.ciphertext(job.job_id), null, "dropped once the job is done");
  const stored = await blobs.list("o1", "n1");
  assert.deepEqual(stored.map((entry) => entry.blobId), [done?.blob_id], "one blob");
});
