import assert from "node:assert/strict";
import { MemoryBlobStore, MemoryVectorStore } from "../backends/memory.ts";
import type { BlobMeta, CallOptions, VectorRow } from "../backends/types.ts";
import { MemoryCipher } from "../testing/memory_cipher.ts";
import { backendError, SvcError } from "../errors.ts";
import { silentLogger } from "../log.ts";
import { MemoryEmbedder } from "../testing/memory_embedder.ts";
import {
  CountingVectorStore,
  HeldBlobStore,
  ManualClock,
  SharedVectorStore,
  testPipeline,
  until,
} from "../testing/job_fixtures.ts";
import { SlowEmbedder } from "../testing/slow_backends.ts";
import type { JobRecord } from "../jobs/job_queue.ts";
import { MemoryJobQueue } from "../testing/memory_job_queue.ts";
import { MemoryTextClaims, type TextClaim } from "./text_claims.ts";
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
  assert.equal(done?.attempts, 2, "the attempt that timed out counts: its text may be slow");
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
  const vectors = new CountingVectorStore(embedder.dimensions);
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
  assert.equal(vectors.writes.get(job.job_id), 1, "the first worker stopped before indexing");
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

/** A vector store counting its upserts, refusing rows whose id is in `refused` as bad input. */
class RefusingVectorStore extends MemoryVectorStore {
  upserts = 0;
  refused = new Set<string>();
  override upsert(rows: VectorRow[], options?: CallOptions) {
    this.upserts++;
    if (rows.some((row) => this.refused.has(row.id))) {
      return Promise.reject(new SvcError("bad_request", "Cannot index the memory: refused"));
    }
    return super.upsert(rows, options);
  }
}

/** An embedder counting its calls and the texts they carried. */
class CountingEmbedder extends MemoryEmbedder {
  calls: number[] = [];
  override embed(texts: string[], options?: CallOptions) {
    this.calls.push(texts.length);
    return super.embed(texts, options);
  }
}

/** A cipher that refuses, for a while, to encrypt for `owner`. */
class OwnerDownCipher extends MemoryCipher {
  down?: string;
  override encrypt(owner: string, plaintext: Uint8Array<ArrayBuffer>, options?: CallOptions) {
    if (owner === this.down) {
      return Promise.reject(new SvcError("backend_unavailable", "Cannot encrypt: key server down"));
    }
    return super.encrypt(owner, plaintext, options);
  }
}

Deno.test("worker: jobs delivered together run as one batch: one embedding call, one index write", async () => {
  using queue = new MemoryJobQueue();
  const embedder = new CountingEmbedder();
  const vectors = new RefusingVectorStore(embedder.dimensions);
  const blobs = new MemoryBlobStore();
  const pipeline = await testPipeline({ blobs, embedder, vectors });
  const worker = createWorker({ queue, pipeline, logger: silentLogger, batchSize: 64 });
  const texts = Array.from({ length: 20 }, (_, i) => `fact number ${i} about bees`);
  const jobs = await queue.accept(texts.map((text) => ({ owner: "o1", namespace: "n1", text })));
  await Promise.all(jobs.map((job) => worker.process(job.job_id)));
  assert.deepEqual(embedder.calls, [20]);
  assert.equal(vectors.upserts, 1);
  const records = await queue.getMany(jobs.map((job) => job.job_id));
  assert.ok(records.every((record) => record?.status === "done" && record.attempts === 1));
  const listed = new Set((await blobs.list("o1", "n1")).map((entry) => entry.blobId));
  assert.deepEqual(new Set(records.map((record) => record!.blob_id)), listed, "one blob each");
  assert.equal(listed.size, 20);
  assert.equal(await vectors.count(), 20);
});

Deno.test("worker: a batch larger than batchSize is split; a job delivered twice is taken once", async () => {
  using queue = new MemoryJobQueue();
  const embedder = new CountingEmbedder();
  const vectors = new RefusingVectorStore(embedder.dimensions);
  const pipeline = await testPipeline({ embedder, vectors });
  const worker = createWorker({
    queue,
    pipeline,
    logger: silentLogger,
    batchSize: 4,
    concurrency: 1,
  });
  const jobs = await queue.accept(
    Array.from({ length: 10 }, (_, i) => ({ owner: "o1", namespace: "n1", text: `fact ${i}` })),
  );
  await Promise.all([...jobs, ...jobs].map((job) => worker.process(job.job_id)));
  await worker.idle();
  assert.deepEqual(embedder.calls, [4, 4, 2]);
  const records = await queue.getMany(jobs.map((job) => job.job_id));
  assert.ok(records.every((record) => record?.status === "done" && record.attempts === 1));
});

Deno.test("worker: stop finishes the running batch and lets the waiting jobs go, pending", async () => {
  using queue = new MemoryJobQueue();
  const held = Promise.withResolvers<void>();
  class HeldEmbedder extends CountingEmbedder {
    override async embed(texts: string[], options?: CallOptions) {
      const vectors = super.embed(texts, options);
      await held.promise;
      return vectors;
    }
  }
  const embedder = new HeldEmbedder();
  const pipeline = await testPipeline({ embedder });
  const worker = createWorker({
    queue,
    pipeline,
    logger: silentLogger,
    batchSize: 4,
    concurrency: 1,
  });
  const jobs = await queue.accept(
    Array.from({ length: 10 }, (_, i) => ({ owner: "o1", namespace: "n1", text: `fact ${i}` })),
  );
  const deliveries = jobs.map((job) => worker.process(job.job_id));
  await until("the first batch embeds", () => embedder.calls.length === 1);
  let stopped = false;
  const stopping = worker.stop().then(() => stopped = true);
  await Promise.all(deliveries.slice(4));
  assert.equal(stopped, false, "the running batch is waited for");
  held.resolve();
  await stopping;
  await Promise.all(deliveries);
  await worker.process(jobs[9].job_id);
  assert.deepEqual(embedder.calls, [4], "no batch after the one running");
  const records = await queue.getMany(jobs.map((job) => job.job_id));
  assert.deepEqual(
    records.map((record) => `${record?.status} ${record?.attempts}`),
    [...Array(4).fill("done 1"), ...Array(6).fill("pending 0")],
  );
});

for (const [backlog, batches, run] of [[127, 1, "one batch"], [130, 2, "two batches"]] as const) {
  Deno.test(`worker: ${backlog} jobs waiting (batches of 1, concurrency 1) run ${run} at once`, async () => {
    using queue = new MemoryJobQueue();
    using blobs = new HeldBlobStore();
    const pipeline = await testPipeline({ blobs });
    const worker = createWorker({
      queue,
      pipeline,
      logger: silentLogger,
      batchSize: 1,
      concurrency: 1,
    });
    const jobs = await queue.accept(
      Array.from(
        { length: backlog },
        (_, i) => ({ owner: "o1", namespace: "n1", text: `fact ${i}` }),
      ),
    );
    const processed = Promise.all(jobs.map((job) => worker.process(job.job_id)));
    await until("the batches started reach their upload", () => blobs.held === batches);
    // The batches run are chosen as the jobs are delivered: no other one starts while they wait.
    assert.deepEqual(worker.stats(), { waiting: backlog - batches, running: batches });
    blobs.release();
    await processed;
    assert.equal(blobs.mostHeld, batches, "never more batches at once");
    const records = await queue.getMany(jobs.map((job) => job.job_id));
    assert.ok(records.every((record) => record?.status === "done"));
  });
}

Deno.test("worker: jobs delivered one at a time while a batch runs wait for it; a quarter batch starts beside it", async () => {
  using queue = new MemoryJobQueue();
  using blobs = new HeldBlobStore();
  const embedder = new CountingEmbedder();
  const pipeline = await testPipeline({ blobs, embedder });
  const worker = createWorker({ queue, pipeline, logger: silentLogger, batchSize: 16 });
  const accept = (count: number, from: number) =>
    queue.accept(Array.from({ length: count }, (_, i) => ({
      owner: "o1",
      namespace: "n1",
      text: `fact ${from + i}`,
    })));
  const jobs = await accept(4, 0);
  const processed = [worker.process(jobs[0].job_id)];
  await until("the first batch reaches its upload", () => blobs.held === 1);
  assert.equal(worker.ready(3), false, "fewer than a quarter batch would wait");
  assert.equal(worker.ready(4), true, "a quarter batch would start");
  for (const job of jobs.slice(1)) {
    processed.push(worker.process(job.job_id));
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  assert.deepEqual(worker.stats(), { waiting: 3, running: 1 });

  blobs.release();
  await Promise.all(processed);
  assert.deepEqual(embedder.calls, [1, 3], "the singles that waited went on together");

  // Idle, a single starts at once; two delivered beside it (a quarter of 8) start beside it.
  using held = new HeldBlobStore();
  const next = createWorker({
    queue,
    pipeline: await testPipeline({ blobs: held }),
    logger: silentLogger,
    batchSize: 8,
  });
  const more = await accept(3, 4);
  assert.equal(next.ready(1), true);
  const running = [next.process(more[0].job_id)];
  await until("the single reaches its upload", () => held.held === 1);
  running.push(...more.slice(1).map((job) => next.process(job.job_id)));
  await until("the pair reaches its upload", () => held.held === 3);
  assert.deepEqual(next.stats(), { waiting: 0, running: 3 });
  held.release();
  await Promise.all(running);
  const records = await queue.getMany([...jobs, ...more].map((job) => job.job_id));
  assert.ok(records.every((record) => record?.status === "done"));
});

Deno.test("worker: a job whose encryption fails retries alone; the rest of its batch is stored, their texts handed over", async () => {
  using queue = new MemoryJobQueue();
  const cipher = new OwnerDownCipher();
  cipher.down = "o2";
  const blobs = new MemoryBlobStore();
  const pipeline = await testPipeline({ cipher, blobs });
  const kept: string[][] = [];
  const reader = {
    keep: (owner: string, blobId: string, text: string) => kept.push([owner, blobId, text]),
  };
  const worker = createWorker({ queue, pipeline, logger: silentLogger, reader });
  const jobs = await queue.accept(["o1", "o2", "o1"].map((owner, i) => ({
    owner,
    namespace: "n1",
    text: `fact ${i}`,
  })));
  await Promise.all(jobs.map((job) => worker.process(job.job_id)));
  const [a, b, c] = await queue.getMany(jobs.map((job) => job.job_id));
  assert.equal(a?.status, "done");
  assert.equal(c?.status, "done");
  assert.equal(b?.status, "pending", "retried later");
  assert.equal(b?.error, "Cannot encrypt: key server down");
  assert.equal(await queue.payload(b!.job_id), "fact 1", "its text waits");
  assert.equal((await blobs.list("o1", "n1")).length, 2);
  // Only the memories stored hand over their texts, under the blobs their jobs name.
  assert.deepEqual(kept.toSorted((x, y) => x[2].localeCompare(y[2])), [
    ["o1", a!.blob_id, "fact 0"],
    ["o1", c!.blob_id, "fact 2"],
  ]);

  cipher.down = undefined;
  await worker.process(b!.job_id);
  const done = await queue.get(b!.job_id);
  assert.equal(done?.status, "done");
  assert.deepEqual(kept.at(-1), ["o2", done!.blob_id, "fact 1"]);
});

Deno.test("worker: a memory's text is handed over before its job is marked done, so whoever sees it done finds it kept", async () => {
  using queue = new MemoryJobQueue();
  const pipeline = await testPipeline();
  const events: string[] = [];
  const complete = queue.completeMany.bind(queue);
  queue.completeMany = (items) => {
    events.push(...items.map(({ record }) => `done ${record.job_id}`));
    return complete(items);
  };
  const reader = {
    keep: (_owner: string, _blobId: string, text: string) => events.push(`kept ${text}`),
  };
  const worker = createWorker({ queue, pipeline, logger: silentLogger, reader });
  const jobs = await queue.accept(["fact 0", "fact 1"].map((text) => ({
    owner: "o1",
    namespace: "n1",
    text,
  })));
  await Promise.all(jobs.map((job) => worker.process(job.job_id)));
  assert.deepEqual(events, [
    "kept fact 0",
    "kept fact 1",
    ...jobs.map((job) => `done ${job.job_id}`),
  ]);
});

Deno.test("worker: a memory the index refuses fails alone; the others of its batch are indexed", async () => {
  using queue = new MemoryJobQueue();
  const embedder = new CountingEmbedder();
  const vectors = new RefusingVectorStore(embedder.dimensions);
  const pipeline = await testPipeline({ embedder, vectors });
  const worker = createWorker({ queue, pipeline, logger: silentLogger });
  const jobs = await queue.accept(
    Array.from({ length: 3 }, (_, i) => ({ owner: "o1", namespace: "n1", text: `fact ${i}` })),
  );
  vectors.refused.add(jobs[1].job_id);
  await Promise.all(jobs.map((job) => worker.process(job.job_id)));
  const [a, b, c] = await queue.getMany(jobs.map((job) => job.job_id));
  assert.deepEqual([a?.status, b?.status, c?.status], ["done", "failed", "done"]);
  assert.equal(b?.error, "Cannot index the memory: refused");
  assert.deepEqual(
    await vectors.has(jobs.map((job) => job.job_id)),
    new Set([a!.job_id, c!.job_id]),
  );
});

/** Ten jobs, the first six leased once before and given back by `giveBack`, and a worker. */
async function sixLeasedBefore(
  giveBack: (queue: MemoryJobQueue, leased: JobRecord) => Promise<void>,
) {
  const queue = new MemoryJobQueue();
  const embedder = new CountingEmbedder();
  const pipeline = await testPipeline({ embedder });
  const worker = createWorker({ queue, pipeline, logger: silentLogger });
  const jobs = await queue.accept(
    Array.from({ length: 10 }, (_, i) => ({ owner: "o1", namespace: "n1", text: `fact ${i}` })),
  );
  for (const job of jobs.slice(0, 6)) {
    await giveBack(queue, (await queue.lease(job.job_id, "crashed"))!);
  }
  return { queue, embedder, worker, jobs };
}

Deno.test("worker: jobs on a later attempt run after the first attempts, at most 4 together", async () => {
  // Given back after a crash, as the reconciler does at start-up.
  const { queue, embedder, worker, jobs } = await sixLeasedBefore((queue, leased) =>
    queue.retry(leased, undefined, 60_000)
  );
  using _ = queue;
  await Promise.all(jobs.map((job) => worker.process(job.job_id)));
  assert.deepEqual(embedder.calls, [4, 4, 2], "the 4 first attempts, then the others by 4");
  const records = await queue.getMany(jobs.map((job) => job.job_id));
  assert.deepEqual(records.map((record) => record?.attempts), [2, 2, 2, 2, 2, 2, 1, 1, 1, 1]);
  assert.ok(records.every((record) => record?.status === "done"));
});

Deno.test("worker: jobs a crash interrupted (their attempt not counted) also run after the first attempts, at most 4 together", async () => {
  // Running when the process died: one of them may be what crashed it.
  const { queue, embedder, worker, jobs } = await sixLeasedBefore((queue, leased) =>
    queue.interrupted(leased)
  );
  using _ = queue;
  assert.ok((await queue.get(jobs[0].job_id))?.attempts === 0, "the cut attempt is not counted");
  await Promise.all(jobs.map((job) => worker.process(job.job_id)));
  assert.deepEqual(embedder.calls, [4, 4, 2], "the 4 first attempts, then the others by 4");
  const records = await queue.getMany(jobs.map((job) => job.job_id));
  assert.ok(records.every((record) => record?.status === "done"));
});

Deno.test("worker: jobs leased to it as they were accepted run together, on their first attempt, leased once", async () => {
  using queue = new MemoryJobQueue();
  let groups = 0;
  const worker = createWorker({
    queue,
    pipeline: await testPipeline(),
    logger: silentLogger,
    observe: { jobEnded() {}, jobRetried() {}, batchRan: () => groups++ },
  });
  const stopping = new AbortController();
  const listened = queue.listen(({ job_id }) => worker.process(job_id), {
    signal: stopping.signal,
    worker,
  });
  assert.ok(worker.ready(6));
  const jobs = await queue.accept(
    ["bees", "bikes", "Lyon", "Oslo", "tea", "chess"].map((word) => ({
      owner: "o1",
      namespace: "n1",
      text: `I think of ${word}`,
    })),
  );
  await until(
    "the jobs are done",
    async () =>
      (await queue.getMany(jobs.map((job) => job.job_id))).every((job) => job?.status === "done"),
  );
  await worker.idle();
  assert.equal(groups, 1, "one group of six, not the groups of four of jobs tried before");
  for (const job of await queue.getMany(jobs.map((job) => job.job_id))) {
    assert.equal(job?.attempts, 1);
    assert.equal(job?.interruptions, undefined);
  }
  assert.ok(worker.ready(64) && !worker.ready(65), "a batch takes at most 64");
  stopping.abort();
  await listened;
});

Deno.test("worker: two batches storing the same texts at once store each text once; a text the first fails to store, the second stores", async () => {
  using queue = new MemoryJobQueue();
  using blobs = new HeldBlobStore();
  const embedder = new CountingEmbedder();
  const vectors = new RefusingVectorStore(embedder.dimensions);
  const pipeline = await testPipeline({ blobs, embedder, vectors });
  const worker = createWorker({ queue, pipeline, logger: silentLogger, batchSize: 8 });
  const accept = () =>
    queue.accept(Array.from({ length: 4 }, (_, i) => ({
      owner: "o1",
      namespace: "n1",
      text: i === 3 ? "A new fact" : `Fact ${i}`,
    })));
  const first = await accept();
  vectors.refused.add(first[0].job_id); // the first batch fails to store "Fact 0"
  const processed = first.map((job) => worker.process(job.job_id));
  await until("the first batch reaches its upload", () => blobs.held === 4);
  const second = await accept(); // the same texts, in a batch beside the first
  processed.push(...second.map((job) => worker.process(job.job_id)));
  await until("the second batch starts", () => worker.stats().running === 8);
  blobs.release();
  await Promise.all(processed);

  const ended = await queue.getMany([...first, ...second].map((job) => job.job_id));
  assert.deepEqual(ended.map((job) => [job?.status, job?.duplicate_of]), [
    ["failed", undefined],
    ["done", undefined],
    ["done", undefined],
    ["done", undefined],
    ["done", undefined], // stored, since the first batch could not
    ["done", first[1].job_id],
    ["done", first[2].job_id],
    ["done", first[3].job_id],
  ]);
  assert.equal(await vectors.count(), 4, "each text once");
});

Deno.test("worker: two workers sharing their text claims (two relayers on one store) store a text both have once", async () => {
  using queue = new MemoryJobQueue();
  using blobs = new HeldBlobStore();
  const embedder = new CountingEmbedder();
  const vectors = new RefusingVectorStore(embedder.dimensions);
  const pipeline = await testPipeline({ blobs, embedder, vectors });
  const textClaims = new MemoryTextClaims();
  const [one, two] = [1, 2].map(() =>
    createWorker({ queue, pipeline, logger: silentLogger, batchSize: 8, textClaims })
  );
  const accept = () =>
    queue.accept(["Fact 0", "Fact 1"].map((text) => ({ owner: "o1", namespace: "n1", text })));
  const first = await accept();
  const processed = first.map((job) => one.process(job.job_id));
  await until("the first worker reaches its upload", () => blobs.held === 2);
  const second = await accept();
  processed.push(...second.map((job) => two.process(job.job_id)));
  await until("the second worker takes its batch", () => two.stats().running === 2);
  blobs.release();
  await Promise.all(processed);

  const ended = await queue.getMany(second.map((job) => job.job_id));
  assert.deepEqual(ended.map((job) => job?.duplicate_of), first.map((job) => job.job_id));
  assert.equal(await vectors.count(), 2, "each text once");
});

Deno.test("worker: a text another relayer stored while this one waited is found though its notice has not come", async () => {
  using queue = new MemoryJobQueue();
  using blobs = new HeldBlobStore();
  const embedder = new CountingEmbedder();
  const shared = new SharedVectorStore(embedder.dimensions);
  // Two relayers: one secret, one store, a lexical index each, which hears of the other's
  // writes only when it reads the store's version.
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const pipelines = [
    await testPipeline({ blobs, embedder, vectors: shared.view(), secret }),
    await testPipeline({ blobs, embedder, vectors: shared.view(), secret }),
  ];
  const textClaims = new MemoryTextClaims();
  const [one, two] = pipelines.map((pipeline) =>
    createWorker({ queue, pipeline, logger: silentLogger, batchSize: 8, textClaims })
  );
  const accept = () => queue.accept([{ owner: "o1", namespace: "n1", text: "Fact 0" }]);
  const [first] = await accept();
  const processed = [one.process(first.job_id)];
  await until("the first relayer reaches its upload", () => blobs.held === 1);
  const [second] = await accept();
  processed.push(two.process(second.job_id));
  await until("the second relayer takes its job", () => two.stats().running === 1);
  blobs.release();
  await Promise.all(processed);

  assert.equal((await queue.get(second.job_id))?.duplicate_of, first.job_id);
  assert.equal(await shared.inner.count(), 1, "the text once");
});

/** A blob store unavailable for its first `down` uploads. */
class DownBlobStore extends MemoryBlobStore {
  down = 0;
  override put(...args: Parameters<MemoryBlobStore["put"]>) {
    if (this.down-- > 0) {
      return Promise.reject(backendError("the blob store", "store the blob", new Error("refused")));
    }
    return super.put(...args);
  }
}

Deno.test("worker: a backend unavailable for longer than the attempts last loses no job; past a day it counts", async () => {
  const blobs = new DownBlobStore();
  const pipeline = await testPipeline({ blobs });
  const day = 24 * 3_600_000;
  for (const [age, ending] of [[0, "done"], [day + 60_000, "failed"]] as const) {
    using queue = new MemoryJobQueue({ maxAttempts: 2, now: () => Date.now() - age });
    const worker = createWorker({ queue, pipeline, logger: silentLogger });
    const [job] = await queue.accept([{
      owner: "o1",
      namespace: "n1",
      text: `I keep bees ${age}`,
    }]);
    blobs.down = 4;
    for (let i = 0; i < 5; i++) await worker.process(job.job_id);
    const ended = await queue.get(job.job_id);
    assert.equal(ended?.status, ending, `accepted ${age} ms ago`);
    if (ending === "failed") {
      assert.equal(ended?.error, "Cannot store the blob: the blob store is unavailable");
      assert.equal(ended?.attempts, 2);
    }
  }
});

Deno.test("worker: the texts a batch claimed are claimed again as its leases are renewed; a claims store down is an outage", async () => {
  using queue = new MemoryJobQueue({ leaseMs: 300 });
  using blobs = new HeldBlobStore();
  const pipeline = await testPipeline({ blobs });
  const asked: string[][] = [];
  const textClaims = new class extends MemoryTextClaims {
    override claim(claims: TextClaim[], now: number) {
      asked.push(claims.map((claim) => claim.job));
      return super.claim(claims, now);
    }
  }();
  const worker = createWorker({ queue, pipeline, logger: silentLogger, textClaims });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);
  const processed = worker.process(job.job_id);
  await until("the batch was renewed twice", () => asked.length >= 3);
  blobs.release();
  await processed;
  assert.deepEqual(asked.slice(0, 3), [[job.job_id], [job.job_id], [job.job_id]]);
  assert.equal((await queue.get(job.job_id))?.status, "done");

  const down = createWorker({
    queue,
    pipeline,
    logger: silentLogger,
    textClaims: {
      claim: () => Promise.reject(backendError("the database", "claim texts", new Error("down"))),
      released: () => Promise.resolve(),
      release: () => Promise.resolve(),
    },
  });
  const [waiting] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep wasps" }]);
  await down.process(waiting.job_id);
  const retried = await queue.get(waiting.job_id);
  assert.deepEqual([retried?.status, retried?.attempts], ["pending", 0]);
  assert.equal(retried?.error, "Cannot claim texts: the database is unavailable");
});

Deno.test("worker: an answer a backend gave that cannot be used counts as an attempt", async () => {
  const embedder = new class extends MemoryEmbedder {
    override embed(): Promise<Float32Array[]> {
      return Promise.reject(
        new SvcError("backend_unavailable", "Ollama returned a vector of only zeros", {
          details: { reason: "invalid_embedding" },
        }),
      );
    }
  }();
  const pipeline = await testPipeline({ embedder });
  using queue = new MemoryJobQueue({ maxAttempts: 2 });
  const worker = createWorker({ queue, pipeline, logger: silentLogger });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);
  for (let i = 0; i < 2; i++) await worker.process(job.job_id);
  const ended = await queue.get(job.job_id);
  assert.deepEqual([ended?.status, ended?.attempts], ["failed", 2]);
});

Deno.test("worker: at the disk floor no batch starts, and it looks again once per check, not in a loop", async () => {
  using queue = new MemoryJobQueue();
  const pipeline = await testPipeline({});
  let low = true;
  let looks = 0;
  const disk = {
    get low() {
      looks++;
      return low;
    },
  };
  const timers: (() => void)[] = [];
  const later = (again: () => void) => (timers.push(again), () => {});
  const worker = createWorker({ queue, pipeline, logger: silentLogger, disk, later });
  const jobs = await queue.accept(
    ["a", "b", "c"].map((text) => ({ owner: "o1", namespace: "n1", text })),
  );
  const processed = Promise.all(jobs.map((job) => worker.process(job.job_id)));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(timers.length, 1, "one look scheduled");
  const before = looks;
  for (let i = 0; i < 5; i++) {
    timers.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(timers.length, 1, "the next look, and only it");
  }
  assert.equal(looks - before, 5, "one look per check");
  assert.deepEqual(worker.stats(), { waiting: 3, running: 0 });
  assert.equal((await queue.get(jobs[0].job_id))?.status, "pending");
  low = false;
  timers.shift()!();
  await processed;
  assert.equal((await queue.get(jobs[2].job_id))?.status, "done");
  await worker.stop();
});

Deno.test("worker: an owner's backlog holds another owner's job back by one batch, not by the backlog", async () => {
  using queue = new MemoryJobQueue();
  using blobs = new HeldBlobStore();
  const pipeline = await testPipeline({ blobs });
  const worker = createWorker({
    queue,
    pipeline,
    logger: silentLogger,
    batchSize: 4,
    concurrency: 1,
  });
  const flood = await queue.accept(
    Array.from({ length: 12 }, (_, i) => ({ owner: "o1", namespace: "n1", text: `fact ${i}` })),
  );
  const flooding = Promise.all(flood.map((job) => worker.process(job.job_id, "o1")));
  await until("the first batch reaches its upload", () => blobs.held === 4);
  const [own] = await queue.accept([{ owner: "o2", namespace: "n1", text: "I keep bees" }]);
  const owning = worker.process(own.job_id, "o2");
  blobs.release();
  await owning;
  const records = await queue.getMany(flood.map((job) => job.job_id));
  const done = records.filter((record) => record?.status === "done").length;
  assert.equal(done, 7, "the next batch took o2's job beside three of o1's");
  assert.equal((await queue.get(own.job_id))?.status, "done");
  await flooding;
});

/** An embedder that refuses any call holding a text with `REFUSED`, as a model refuses one too long. */
class RefusingEmbedder extends MemoryEmbedder {
  calls = 0;
  override embed(texts: string[], options?: CallOptions) {
    this.calls++;
    if (texts.some((text) => text.includes("REFUSED"))) {
      return Promise.reject(new SvcError("bad_request", "The embedder refused the text"));
    }
    return super.embed(texts, options);
  }
}

Deno.test("worker: a text the embedder refuses fails its own job, not the others' in its batch", async () => {
  using queue = new MemoryJobQueue();
  const embedder = new RefusingEmbedder();
  const pipeline = await testPipeline({ embedder });
  const worker = createWorker({ queue, pipeline, logger: silentLogger, batchSize: 4 });
  const [refused, fine] = await queue.accept([
    { owner: "o1", namespace: "n1", text: "REFUSED: far too long for the model" },
    { owner: "o2", namespace: "n1", text: "I keep bees" },
  ]);
  await Promise.all([worker.process(refused.job_id, "o1"), worker.process(fine.job_id, "o2")]);
  const [failed, done] = await queue.getMany([refused.job_id, fine.job_id]);
  assert.deepEqual([failed?.status, done?.status], ["failed", "done"]);
  assert.equal(failed?.error, "The embedder refused the text");
  assert.equal(embedder.calls, 3, "the batch, then each text alone");
});
