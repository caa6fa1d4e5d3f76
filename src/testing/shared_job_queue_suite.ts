/**
 * The conformance suite of a `JobQueue` that several relayers share (`JobQueue.shared`): two
 * handles on one store, as two relayers would open it, must never run a job twice, must hand
 * each other work, and must not take each other's live leases.
 */
import assert from "node:assert/strict";
import { MemoryBlobStore } from "../backends/memory.ts";
import { MemoryEmbedder } from "./memory_embedder.ts";
import type { JobQueue, JobQueueOptions } from "../jobs/job_queue.ts";
import { LeaseLost } from "../jobs/job_queue.ts";
import { reconcileJobs } from "../jobs/reconciler.ts";
import { createWorker } from "../remember/worker.ts";
import { silentLogger } from "../log.ts";
import { CountingVectorStore, ManualClock, testPipeline, until } from "./job_fixtures.ts";

/** Two relayers' handles on one shared job store. */
export interface SharedJobQueues extends AsyncDisposable {
  /** Relayer A's handle. */
  a: JobQueue;
  /** Relayer B's handle. */
  b: JobQueue;
  /** Ends relayer A as a crash would: its connections to the store close, nothing is finished. */
  crashA(): Promise<void>;
}

/** Options of the handles: the queue's, and how long an idle listener waits unwoken. */
export type SharedJobQueueOptions = JobQueueOptions & {
  /** The longest an idle listener waits before it looks for due jobs without being woken. */
  pollMs?: number;
};

/**
 * Registers the tests. `open` gives two handles on one fresh, empty store, with the same options
 * (and so the same clock); disposing them ends their listeners.
 */
export function sharedJobQueueSuite(
  name: string,
  open: (options?: SharedJobQueueOptions) => Promise<SharedJobQueues>,
) {
  const input = (text: string) => ({ owner: "o1", namespace: "n1", text });
  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Listens on `queue` with a handler that leases the job, counts it and completes it. */
  function finisher(queue: JobQueue, worker: string, signal: AbortSignal) {
    const delivered: string[] = [];
    const completed: string[] = [];
    const listened = queue.listen(async ({ job_id }) => {
      delivered.push(job_id);
      const record = await queue.lease(job_id, worker);
      if (!record) return;
      await queue.complete(record, { memory_id: job_id });
      completed.push(job_id);
    }, { signal });
    return { delivered, completed, listened };
  }

  Deno.test(`${name} shared: two relayers run each job of concurrent accepts exactly once`, async () => {
    await using queues = await open({ pollMs: 100 });
    assert.ok(queues.a.shared && queues.b.shared, "the queue says it is shared");
    const listening = new AbortController();
    const a = finisher(queues.a, "a", listening.signal);
    const b = finisher(queues.b, "b", listening.signal);
    const accepted = (await Promise.all(
      Array.from(
        { length: 24 },
        (_, i) =>
          (i % 2 ? queues.a : queues.b).accept([input(`fact ${i}`), input(`fact ${i} too`)]),
      ),
    )).flat();
    const ids = accepted.map((job) => job.job_id);
    await until(
      "every job is done",
      async () => (await queues.a.getMany(ids)).every((record) => record?.status === "done"),
    );
    listening.abort();
    await Promise.all([a.listened, b.listened]);
    const count = (list: string[], id: string) => list.filter((one) => one === id).length;
    for (const id of ids) {
      assert.equal(count([...a.completed, ...b.completed], id), 1, "completed once");
      assert.equal(count([...a.delivered, ...b.delivered], id), 1, "delivered once");
    }
  });

  Deno.test(`${name} shared: two relayers leasing the same jobs at once never share one`, async () => {
    await using queues = await open();
    const jobs = await queues.a.accept(Array.from({ length: 40 }, (_, i) => input(`${i}`)));
    const ids = jobs.map((job) => job.job_id);
    const [byA, byB] = await Promise.all([
      queues.a.leaseMany(ids, "a"),
      queues.b.leaseMany([...ids].reverse(), "b"),
    ]);
    const taken = [...byA, ...byB].filter((record) => record !== null).map((r) => r.job_id);
    assert.deepEqual(taken.toSorted(), ids.toSorted(), "each job leased by exactly one");
  });

  Deno.test(`${name} shared: a lease that ran out is taken over; the late worker changes nothing`, async () => {
    const clock = new ManualClock();
    await using queues = await open({ leaseMs: 1_000, now: clock.now });
    const [job] = await queues.a.accept([input("slow on A")]);
    const onA = (await queues.a.lease(job.job_id, "a"))!;
    clock.advance(999);
    assert.equal(await queues.b.lease(job.job_id, "b"), null, "A's lease is live");
    clock.advance(1);
    const onB = (await queues.b.lease(job.job_id, "b"))!;
    assert.equal(onB.attempts, 2);
    assert.equal(await queues.a.renew(onA), null, "A's lease is lost");
    assert.deepEqual(
      await queues.a.saveCiphertexts([{ record: onA, ciphertext: new Uint8Array([1]) }]),
      [false],
    );
    await assert.rejects(() => queues.a.complete(onA, { memory_id: job.job_id }), LeaseLost);
    assert.deepEqual(await queues.a.completeMany([{ record: onA, patch: {} }]), [false]);
    assert.deepEqual(await queues.a.get(job.job_id), onB, "as B holds it");
    await queues.b.complete(onB, { memory_id: job.job_id });
    assert.equal((await queues.a.get(job.job_id))?.status, "done", "A sees B's change");
  });

  Deno.test(`${name} shared: a job accepted by a relayer not listening wakes another's idle listener`, async () => {
    // B looks for due jobs unwoken once a minute: only a notification brings the job sooner.
    await using queues = await open({ pollMs: 60_000, leaseMs: 60_000 });
    const [first] = await queues.a.accept([input("before B listens")]);
    const listening = new AbortController();
    const b = finisher(queues.b, "b", listening.signal);
    await until("B finds the job waiting", () => b.completed.includes(first.job_id));
    await wait(100); // B is idle
    const [job] = await queues.a.accept([input("while B idles")]);
    await until("B is woken for the job", () => b.completed.includes(job.job_id));
    listening.abort();
    await b.listened;
  });

  Deno.test(`${name} shared: jobs a listening relayer accepts go to its own worker first`, async () => {
    await using queues = await open({ pollMs: 100 });
    const listening = new AbortController();
    const a = finisher(queues.a, "a", listening.signal);
    const b = finisher(queues.b, "b", listening.signal);
    await wait(100);
    const jobs = await queues.a.accept(["one", "two", "three"].map(input));
    await until("A ran them", () => jobs.every((job) => a.completed.includes(job.job_id)));
    await wait(300); // B polled meanwhile
    listening.abort();
    await Promise.all([a.listened, b.listened]);
    assert.deepEqual(b.delivered, [], "none was offered to B");
  });

  Deno.test(`${name} shared: start-up reconcile on one relayer leaves another's live lease alone`, async () => {
    const clock = new ManualClock();
    await using queues = await open({ leaseMs: 1_000, now: clock.now });
    const [lapsed, live, waiting] = await queues.a.accept(["lapsed", "live", "waiting"].map(input));
    await queues.a.lease(lapsed.job_id, "a");
    clock.advance(1_000); // the first lease runs out
    const held = (await queues.a.lease(live.job_id, "a"))!;
    await reconcileJobs(queues.b, silentLogger, { startup: true, now: clock.now() });
    assert.deepEqual(await queues.b.get(live.job_id), held, "A keeps its live job");
    const back = (await queues.b.get(lapsed.job_id))!;
    assert.equal(back.status, "pending", "the lapsed one is given back");
    assert.equal(back.interruptions, 1);
    assert.equal((await queues.b.get(waiting.job_id))?.status, "pending");
  });

  Deno.test(`${name} shared: the job of a relayer that died mid-job is finished once by another`, async () => {
    const clock = new ManualClock();
    await using queues = await open({ leaseMs: 1_000, now: clock.now, pollMs: 50 });
    const embedder = new MemoryEmbedder();
    const vectors = new CountingVectorStore(embedder.dimensions);
    const blobs = new MemoryBlobStore();
    const pipeline = await testPipeline({ blobs, embedder, vectors });
    const text = "My sister lives in Lisbon";
    const [job] = await queues.a.accept([input(text)]);
    // A leased the job and saved its ciphertext, then died before putting the blob.
    const onA = (await queues.a.lease(job.job_id, "a"))!;
    const meta = { memoryId: job.job_id, owner: "o1", namespace: "n1", createdAt: 1 };
    const ciphertext = await pipeline.encrypt({ ...meta, text });
    await queues.a.saveCiphertext(onA, ciphertext);
    await queues.crashA();

    const worker = createWorker({ queue: queues.b, pipeline, logger: silentLogger });
    const listening = new AbortController();
    const listened = queues.b.listen(({ job_id }) => worker.process(job_id), {
      signal: listening.signal,
    });
    await wait(200);
    assert.equal((await queues.b.get(job.job_id))?.worker, "a", "not before A's lease ran out");
    clock.advance(1_000); // nobody re-drives it: its lease running out makes it due
    await until("B finished it", async () => (await queues.b.get(job.job_id))?.status === "done");
    await worker.idle();
    listening.abort();
    await listened;
    const done = (await queues.b.get(job.job_id))!;
    assert.equal(done.attempts, 2, "one takeover");
    const stored = await blobs.list("o1", "n1");
    assert.deepEqual(stored.map((entry) => entry.blobId), [done.blob_id], "one blob");
    assert.deepEqual(await blobs.get(done.blob_id!), ciphertext, "A's saved ciphertext");
    assert.equal(vectors.writes.get(job.job_id), 1, "one vector write");
  });
}
