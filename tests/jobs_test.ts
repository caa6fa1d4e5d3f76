import assert from "node:assert/strict";
import { SvcError } from "../src/errors.ts";
import { MemoryJobQueue } from "../src/testing/memory_job_queue.ts";
import { reconcileJobs } from "../src/jobs/reconciler.ts";
import { silentLogger } from "../src/log.ts";
import { createWorker } from "../src/remember/worker.ts";
import { MemoryEmbedder } from "../src/testing/memory_embedder.ts";
import {
  CountingVectorStore,
  HeldBlobStore,
  ManualClock,
  testPipeline,
  until,
} from "../src/testing/job_fixtures.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { openKvJobQueue, startTestRelayer } from "./fixtures.ts";

Deno.test("duplicate deliveries of one job store it once", async () => {
  const vectors = new CountingVectorStore(384);
  await using t = await startTestRelayer({ vectors, processJobs: false });
  const alice = await t.newCaller();
  const [job] = await t.relayer.service.remember(alice.owner, [{
    text: "once",
    namespace: "default",
  }]);
  await Promise.all([1, 2, 3, 4].map(() => t.relayer.worker.process(job.job_id)));
  await t.relayer.worker.process(job.job_id);
  assert.equal(vectors.writes.get(job.job_id), 1);
  const record = await t.relayer.queue.get(job.job_id);
  assert.equal(record?.status, "done");
  assert.equal(record?.attempts, 1);
  assert.equal(
    await t.relayer.queue.payload(job.job_id),
    null,
    "the queued text is dropped once done",
  );
});

Deno.test("a remember slower than its job's lease is stored once, while the reconciler runs", async () => {
  // The relayer's queue reads a clock the test advances: the lease runs out only when the test
  // says. The worker renews it every 20 ms, the reconciler looks for jobs past their lease every
  // 10 ms, and the upload waits until the test releases it.
  const clock = new ManualClock();
  using kv = await Deno.openKv(":memory:");
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const queue = await openKvJobQueue(kv, secret, { leaseMs: 60, now: clock.now });
  const blobs = new HeldBlobStore();
  const vectors = new CountingVectorStore(384);
  await using t = await startTestRelayer({ queue, blobs, vectors, reconcileIntervalMs: 10 });
  using _held = blobs; // released before the relayer closes, should the test fail while held
  const alice = await t.newCaller();
  const res = await t.signed(alice, "POST", "/api/remember", { text: "I keep bees" });
  const { job_id } = await res.json();
  await until("the job is uploading", () => blobs.calls === 1);
  const leased = (await queue.get(job_id))!;
  // Two thirds of a lease at a time: without renewals the lease would run out at the second
  // step, and at the third whatever the first renewal gave.
  for (let step = 0; step < 3; step++) {
    const now = clock.advance(40);
    await until(
      "the worker renews the job's lease",
      async () => (await queue.get(job_id))?.lease_until === now + queue.leaseMs,
    );
    // Delivered again and re-driven: the relayer's worker gets the job once more.
    await queue.redrive(job_id);
    await reconcileJobs(queue, silentLogger, { startup: false, now });
  }
  assert.ok(clock.now() > leased.lease_until!, "the first lease ran out long ago");
  blobs.release();
  await t.settle(alice, [job_id]);
  const record = await queue.get(job_id);
  assert.equal(record?.status, "done");
  assert.equal(record?.attempts, 1);
  assert.equal(blobs.calls, 1);
  assert.deepEqual((await blobs.list(alice.owner, "default")).map((e) => e.blobId), [
    record?.blob_id,
  ]);
  assert.equal(vectors.writes.get(job_id), 1);
  const { results } = await (await t.signed(alice, "POST", "/api/recall", { query: "bees" }))
    .json();
  assert.equal(results[0]?.text, "I keep bees");
});

Deno.test("a job interrupted after its blob upload resumes without a second blob", async () => {
  await using t = await startTestRelayer({ processJobs: false, leaseMs: 60_000 });
  const alice = await t.newCaller();
  const [job] = await t.relayer.service.remember(alice.owner, [{
    text: "resume me",
    namespace: "default",
  }]);
  const leased = await t.relayer.queue.lease(job.job_id, "dead-worker");
  assert.ok(leased);
  const blobId = await t.blobs.put(new Uint8Array([1]), {
    owner: alice.owner,
    namespace: "default",
    memoryId: job.job_id,
    createdAt: 1,
  });
  await t.relayer.queue.checkpoint(leased, { blob_id: blobId });
  await t.relayer.worker.process(job.job_id);
  assert.equal(
    (await t.relayer.queue.get(job.job_id))?.status,
    "running",
    "a live lease is respected",
  );

  assert.equal(await reconcileJobs(t.relayer.queue, silentLogger, { startup: true }), 1);
  await t.relayer.worker.process(job.job_id);
  const record = await t.relayer.queue.get(job.job_id);
  assert.equal(record?.status, "done");
  assert.equal(record?.blob_id, blobId);
  assert.equal(record?.attempts, 1, "the attempt the crash cut short is not counted");
  assert.equal(record?.interruptions, 1);
  assert.equal((await t.blobs.list(alice.owner, "default")).length, 1);
});

Deno.test("a job interrupted after its ciphertext was kept stores that ciphertext, not another", async () => {
  await using t = await startTestRelayer({ processJobs: false, leaseMs: 60_000 });
  const alice = await t.newCaller();
  const [job] = await t.relayer.service.remember(alice.owner, [{
    text: "encrypt me once",
    namespace: "default",
  }]);
  const leased = await t.relayer.queue.lease(job.job_id, "dead-worker");
  assert.ok(leased);
  // What the cut attempt encrypted (the worker stores it as it is, and never decrypts it).
  const kept = new TextEncoder().encode("the ciphertext the first attempt kept");
  await t.relayer.queue.saveCiphertext(leased, kept);

  assert.equal(await reconcileJobs(t.relayer.queue, silentLogger, { startup: true }), 1);
  await t.relayer.worker.process(job.job_id);
  const record = await t.relayer.queue.get(job.job_id);
  assert.equal(record?.status, "done");
  assert.equal(record?.attempts, 1, "the resumed attempt is counted as the first");
  assert.deepEqual(await t.blobs.get(record!.blob_id!), kept, "the kept ciphertext, not another");
  assert.equal((await t.blobs.list(alice.owner, "default")).length, 1);
});

Deno.test("a backend that keeps failing (not an outage) ends the job failed with a sentence and a dead letter", async () => {
  const cipher = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
  let calls = 0;
  const broken = {
    name: "broken",
    encrypt() {
      calls++;
      return Promise.reject(
        new SvcError("internal", "Cannot encrypt: the key servers answer with keys that fail"),
      );
    },
    decrypt: cipher.decrypt.bind(cipher),
    erase: cipher.erase.bind(cipher),
  };
  await using t = await startTestRelayer({ cipher: broken, processJobs: false, maxAttempts: 3 });
  const alice = await t.newCaller();
  const [job] = await t.relayer.service.remember(alice.owner, [{
    text: "doomed",
    namespace: "default",
  }]);
  for (let i = 0; i < 3; i++) await t.relayer.worker.process(job.job_id);
  const record = await t.relayer.queue.get(job.job_id);
  assert.equal(record?.status, "failed");
  assert.equal(record?.error, "Cannot encrypt: the key servers answer with keys that fail");
  assert.equal(record?.attempts, 3);
  assert.equal(calls, 3);
  assert.ok((await t.kv.get(["job_dead", job.job_id])).value);
  await t.relayer.worker.process(job.job_id);
  assert.equal(calls, 3, "a failed job is not retried");
  assert.equal(await t.vectors.count(), 0);
});

Deno.test("large texts are queued in chunks and stored whole", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const text = "long memory ".repeat(80_000).trim();
  const res = await t.signed(alice, "POST", "/api/remember", { text });
  assert.equal(res.status, 202);
  const { job_id } = await res.json();
  await t.settle(alice, [job_id]);
  const { results } = await (await t.signed(alice, "POST", "/api/recall", { query: "long memory" }))
    .json();
  assert.equal(results[0].text, text);
});

Deno.test("a relayer runs on the job queue it is given", async () => {
  using queue = new MemoryJobQueue();
  await using t = await startTestRelayer({ queue });
  const alice = await t.newCaller();
  const res = await t.signed(alice, "POST", "/api/remember", { text: "I am vegetarian" });
  const { job_id } = await res.json();
  assert.equal((await queue.get(job_id))?.owner, alice.owner, "the job is in the given queue");
  await t.settle(alice, [job_id]);
  assert.equal((await queue.get(job_id))?.status, "done");
});

/**
 * A queue that delivers a waiting message before the reconciler reads the records, whenever
 * it is listened to first (Deno KV brings back the message of a job a crash interrupted).
 */
class DeliveringFirstQueue extends MemoryJobQueue {
  #listening = false;
  #leased = Promise.withResolvers<void>();
  override listen(...args: Parameters<MemoryJobQueue["listen"]>) {
    this.#listening = true;
    return super.listen(...args);
  }
  override async lease(jobId: string, worker: string) {
    const record = await super.lease(jobId, worker);
    if (record) this.#leased.resolve();
    return record;
  }
  override async *active() {
    if (this.#listening) await this.#leased.promise;
    yield* super.active();
  }
}

Deno.test("a restarted relayer re-drives unfinished jobs before it takes any, so none runs twice", async () => {
  using queue = new DeliveringFirstQueue();
  // What a crash leaves: a job accepted, its message waiting, no worker on it.
  const owner = "0x" + "ab".repeat(32);
  const [job] = await queue.accept([{ owner, namespace: "default", text: "only once" }]);
  await using t = await startTestRelayer({ queue });
  let record = await queue.get(job.job_id);
  for (let i = 0; i < 500 && record?.status !== "done"; i++) {
    await new Promise((r) => setTimeout(r, 10));
    record = await queue.get(job.job_id);
  }
  await t.relayer.worker.idle();
  assert.equal(record?.status, "done");
  assert.equal((await queue.get(job.job_id))?.attempts, 1, "one run");
  assert.equal((await t.blobs.list(owner, "default")).length, 1, "one blob");
});

Deno.test("a restarted relayer hands the jobs left pending to its worker, enqueueing none again", async () => {
  // Deno KV keeps a message until it is delivered: one enqueued at each start for every job
  // still pending would pile up over crashes in a row, each start's on top of the last's.
  using queue = new MemoryJobQueue();
  const redriven: string[] = [];
  const redrive = queue.redrive.bind(queue);
  queue.redrive = (id) => (redriven.push(id), redrive(id));
  const owner = "0x" + "ab".repeat(32);
  const left = await queue.accept(
    ["I keep bees", "I live in Porto"].map((text) => ({ owner, namespace: "default", text })),
  );
  await using t = await startTestRelayer({ queue });
  for (const { job_id } of left) {
    await until(
      "the job left pending is done",
      async () => (await queue.get(job_id))?.status === "done",
    );
  }
  assert.deepEqual(redriven, [], "no message enqueued again");
  assert.equal((await t.blobs.list(owner, "default")).length, 2);
});

Deno.test("a job handed to the worker in-process at acceptance and re-driven while it runs runs once", async () => {
  using kv = await Deno.openKv(":memory:");
  const queue = await openKvJobQueue(kv, crypto.getRandomValues(new Uint8Array(32)));
  const blobs = new HeldBlobStore();
  using _held = blobs;
  const vectors = new CountingVectorStore(384);
  const pipeline = await testPipeline({ blobs, vectors, embedder: new MemoryEmbedder(384) });
  const worker = createWorker({ queue, pipeline, logger: silentLogger });
  const deliveries: string[] = [];
  const listening = new AbortController();
  const listened = queue.listen(({ job_id }) => {
    deliveries.push(job_id);
    return worker.process(job_id);
  }, { signal: listening.signal });
  const owner = "0x" + "cd".repeat(32);
  const [job] = await queue.accept([{ owner, namespace: "default", text: "I keep bees" }]);
  // Handed over before `accept` resolved: no queue delivery could have come yet.
  assert.deepEqual(deliveries, [job.job_id], "delivered in-process at once");
  await until("the job is uploading", () => blobs.calls === 1);
  // As the periodic reconciler would: a queue message for the job while it runs.
  await queue.redrive(job.job_id);
  await until("Deno KV delivers the job's message too", () => deliveries.length === 2);
  blobs.release();
  await until("the job is done", async () => (await queue.get(job.job_id))?.status === "done");
  await worker.idle();
  listening.abort();
  await listened;
  const done = (await queue.get(job.job_id))!;
  assert.equal(done.attempts, 1, "leased once");
  assert.equal(blobs.calls, 1, "one upload");
  assert.equal(vectors.writes.get(job.job_id), 1, "one vector write");
  assert.deepEqual((await blobs.list(owner, "default")).map((e) => e.blobId), [done.blob_id]);
});
