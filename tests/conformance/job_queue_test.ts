import assert from "node:assert/strict";
import { KvStateStore, openKvStores } from "@svc/denokv";
import { deadLetters } from "../../app/job_export.ts";
import { JobSeal, sealStoredRecords, type StoredDeadLetter } from "../../src/jobs/job_seal.ts";
import { StateReplayGuard } from "../../src/auth/state_replay_guard.ts";
import type { ReplayGuard } from "../../src/auth/replay_guard.ts";
import { openKvJobQueue } from "../fixtures.ts";
import { MemoryStateStore } from "../../src/state/memory_state_store.ts";
import { MemoryMessageQueue } from "../../src/testing/memory_message_queue.ts";
import { StateJobStore } from "../../src/jobs/state_job_store.ts";
import type { MessageQueue } from "../../src/jobs/message_queue.ts";
import { StoredJobQueue } from "../../src/jobs/stored_job_queue.ts";
import { scrubSqlite } from "@svc/util/scrub";
import { MemoryJobQueue } from "../../src/testing/memory_job_queue.ts";
import type { JobQueueOptions } from "../../src/jobs/job_queue.ts";
import { jobQueueSuite } from "../../src/testing/mod.ts";
import { listening, ManualClock, until } from "../../src/testing/job_fixtures.ts";
import { reconcileJobs } from "../../src/jobs/reconciler.ts";
import { silentLogger } from "../../src/log.ts";

async function openKvQueue(
  options?: JobQueueOptions,
  secret = crypto.getRandomValues(new Uint8Array(32)),
) {
  const kv = await Deno.openKv(":memory:");
  const queue = await openKvJobQueue(kv, secret, options);
  return Object.assign(queue, { kv, [Symbol.asyncDispose]: () => Promise.resolve(kv.close()) });
}

jobQueueSuite("KvJobQueue", openKvQueue);
jobQueueSuite("MemoryJobQueue", (options) => {
  const queue = new MemoryJobQueue(options);
  return Promise.resolve(
    Object.assign(queue, { [Symbol.asyncDispose]: () => Promise.resolve(queue.close()) }),
  );
});

Deno.test("KvJobQueue: texts wait sealed, under the record, active and dead-letter keys", async () => {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  await using queue = await openKvQueue({}, secret);
  const text = "my bank PIN is 4321";
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text }]);
  const chunks = await Array.fromAsync(
    queue.kv.list<Uint8Array>({ prefix: ["job_payload", job.job_id] }),
  );
  assert.equal(chunks.length, 1);
  assert.ok(!new TextDecoder().decode(chunks[0].value).includes("4321"), "no plaintext in KV");
  const other = await openKvJobQueue(queue.kv, crypto.getRandomValues(new Uint8Array(32)));
  await assert.rejects(() => other.payload(job.job_id), "another secret cannot read it");
  assert.equal(await (await openKvJobQueue(queue.kv, secret)).payload(job.job_id), text);

  // The record names its owner and namespace only sealed; the queue reads them back.
  const stored = (await queue.kv.get<Record<string, unknown>>(["job", job.job_id])).value!;
  assert.deepEqual(Object.keys(stored).sort(), [
    "attempts",
    "created_at",
    "job_id",
    "sealed",
    "status",
    "updated_at",
  ]);
  assert.deepEqual(await queue.get(job.job_id), job);
  assert.equal((await queue.kv.get(["job_active", job.job_id])).value, job.created_at);
  await queue.fail((await queue.lease(job.job_id, "w1"))!, "Cannot store: no");
  assert.equal((await queue.kv.get(["job_active", job.job_id])).value, null);
  assert.equal((await queue.get(job.job_id))?.error, "Cannot store: no");
  const dead = (await queue.kv.get<Record<string, unknown>>(["job_dead", job.job_id])).value!;
  assert.deepEqual(Object.keys(dead).sort(), ["job_id", "sealed_error"]);
  assert.ok(!new TextDecoder("latin1").decode(dead.sealed_error as Uint8Array).includes("store"));
  assert.deepEqual(await Array.fromAsync(queue.kv.list({ prefix: ["job_payload"] })), []);
});

Deno.test("KvJobQueue: records an earlier version kept in clear are read, and sealed at start", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/jobs.kv`;
  try {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const kv = await Deno.openKv(path);
    const old = {
      job_id: "0190e3c4-0000-7000-8000-000000000001",
      status: "failed",
      owner: "0xfeedbeef",
      namespace: "oncology-notes",
      error: "Cannot store: no",
      attempts: 1,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
    };
    await kv.set(["job", old.job_id], old);
    await kv.set(["job_dead", old.job_id], { job_id: old.job_id, error: old.error });
    // What Deno KV stores when it gives up delivering a message: the message itself.
    const undelivered = "0190e3c4-0000-7000-8000-000000000002";
    await kv.set(["job_dead", undelivered], { job_ids: [undelivered, "another"] });
    assert.deepEqual(await (await openKvJobQueue(kv, secret)).get(old.job_id), old);
    assert.equal(await sealStoredRecords(new KvStateStore(kv), secret), 2);
    assert.equal(await sealStoredRecords(new KvStateStore(kv), secret), 0, "once");
    kv.close();
    await scrubSqlite(path);
    const bytes = new TextDecoder("latin1").decode(await Deno.readFile(path));
    assert.ok(!bytes.includes("oncology-notes") && !bytes.includes("0xfeedbeef"));
    const reopened = await Deno.openKv(path);
    try {
      assert.deepEqual(await (await openKvJobQueue(reopened, secret)).get(old.job_id), old);
      const seal = await JobSeal.derive(secret);
      const letter = (await reopened.get<StoredDeadLetter>(["job_dead", old.job_id])).value!;
      assert.deepEqual(seal.openedDeadLetter(old.job_id, letter), {
        job_id: old.job_id,
        error: old.error,
      });
      assert.deepEqual(await Array.fromAsync(deadLetters(new KvStateStore(reopened), seal)), [
        { job_id: old.job_id, error: old.error },
        { job_id: undelivered, error: "The job queue could not deliver the job" },
      ]);
    } finally {
      reopened.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("KvJobQueue: the jobs of one accept share a message; a message of one job, as 0.1.0 wrote, is read", async () => {
  await using queue = await openKvQueue();
  const jobs = await queue.accept(
    ["a", "b", "c"].map((text) => ({ owner: "o1", namespace: "n1", text })),
  );
  const ids = jobs.map((job) => job.job_id);
  await queue.kv.enqueue({ job_id: ids[1] }); // what 0.1.0 enqueued for each job
  const { delivered, stop } = listening(queue);
  await until("both messages arrive", () => delivered.length === 4);
  await stop();
  const count = (id: string) => delivered.filter((d) => d === id).length;
  assert.deepEqual(ids.map(count), [1, 2, 1]);
});

/** `kv` with its commits, queue messages and `getMany` reads counted. */
function counting(kv: Deno.Kv) {
  const counted = { commits: 0, reads: 0, enqueued: 0 };
  const proxy = new Proxy(kv, {
    get(target, property) {
      if (property === "atomic") {
        return () => {
          const op = target.atomic();
          const commit = op.commit.bind(op);
          op.commit = () => (counted.commits++, commit());
          return op;
        };
      }
      if (property === "getMany") {
        counted.reads++;
        return (keys: Deno.KvKey[]) => target.getMany(keys);
      }
      if (property === "enqueue") {
        return (...message: Parameters<Deno.Kv["enqueue"]>) => (
          counted.enqueued++, target.enqueue(...message)
        );
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return Object.assign(counted, { kv: proxy });
}

Deno.test("KvJobQueue: accepts made at once share commits, each whole, large texts too", async () => {
  using kv = await Deno.openKv(":memory:");
  const counted = counting(kv);
  const queue = await openKvJobQueue(counted.kv, crypto.getRandomValues(new Uint8Array(32)));
  const large = "a long text ".repeat(60_000); // past one commit: staged, committed alone
  const texts = Array.from({ length: 30 }, (_, i) => i === 7 ? large : `fact ${i}`);
  const accepted = await Promise.all(
    texts.map((text, i) =>
      queue.accept(
        i % 10 === 0
          ? [{ owner: "o1", namespace: "n1", text }, {
            owner: "o1",
            namespace: "n1",
            text: `${text} too`,
          }]
          : [{ owner: "o1", namespace: "n1", text }],
      )
    ),
  );
  assert.ok(counted.commits < 20, `30 accepts in ${counted.commits} commits`);
  const records = accepted.flat();
  assert.equal(records.length, 33);
  assert.deepEqual(await queue.getMany(records.map((r) => r.job_id)), records);
  const payloads = await queue.payloads(records.map((r) => r.job_id));
  const expected = texts.flatMap((text, i) => i % 10 === 0 ? [text, `${text} too`] : [text]);
  assert.deepEqual(payloads, expected);
  const active = await Array.fromAsync(queue.active());
  assert.equal(active.length, 33);
});

Deno.test("KvJobQueue: a group of accepts whose commit fails fails each of them, and later accepts go on", async () => {
  using kv = await Deno.openKv(":memory:");
  let failNext = false;
  const failing = new Proxy(kv, {
    get(target, property) {
      if (property === "atomic") {
        return () => {
          const op = target.atomic();
          if (failNext) {
            failNext = false;
            op.commit = () => Promise.reject(new TypeError("the job store refused the commit"));
          }
          return op;
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const queue = await openKvJobQueue(failing, crypto.getRandomValues(new Uint8Array(32)));
  const input = (text: string) => [{ owner: "o1", namespace: "n1", text }];
  failNext = true;
  await assert.rejects(() => queue.accept(input("refused")), /the job store failed/);
  const [job] = await queue.accept(input("accepted"));
  assert.equal((await queue.get(job.job_id))?.status, "pending");
  assert.equal((await Array.fromAsync(queue.active())).length, 1, "the refused job does not exist");
});

Deno.test("KvJobQueue: a replay claim kept in its store rides in the accept's commit; one kept elsewhere is settled first", async () => {
  using kv = await Deno.openKv(":memory:");
  const counted = counting(kv);
  const { queue, replayGuard: guard } = await openKvStores(
    counted.kv,
    crypto.getRandomValues(new Uint8Array(32)),
  );
  const input = (text: string) => [{ owner: "o1", namespace: "n1", text }];
  const claimed = async (guard: ReplayGuard, n: number) => {
    const claim = await guard.reserve!(`nonce:${"ab".repeat(32)}:accept-${n}-0123456789`, 60_000);
    assert.ok(claim);
    return claim;
  };
  const claims = () => Array.fromAsync(kv.list({ prefix: ["replay_claims"] }));

  const claim1 = await claimed(guard, 1);
  const first = counted.commits;
  const [job] = await queue.accept(input("I keep bees"), { claim: claim1 });
  assert.equal(counted.commits - first, 1, "the job and the claim in one commit");
  assert.equal((await claims()).length, 1);
  assert.equal((await queue.get(job.job_id))?.status, "pending");
  // Accepts made at once share a commit, their claims too.
  const before = counted.commits;
  await Promise.all(
    [2, 3, 4].map(async (n) =>
      queue.accept(input(`fact ${n}`), { claim: await claimed(guard, n) })
    ),
  );
  assert.ok(counted.commits - before < 3, `3 accepts in ${counted.commits - before} commits`);
  assert.equal((await claims()).length, 4);

  // A guard on another store: its claim is durable there before the job exists.
  using elsewhere = await Deno.openKv(":memory:");
  const other = await StateReplayGuard.open(new KvStateStore(elsewhere));
  const claim = await claimed(other, 5);
  const order: string[] = [];
  const settle = claim.settle;
  claim.settle = () => (order.push("claim settled"), settle());
  await queue.accept(input("I keep wasps"), { claim });
  order.push("accepted");
  assert.deepEqual(order, ["claim settled", "accepted"]);
  assert.equal((await Array.fromAsync(elsewhere.list({ prefix: ["replay_claims"] }))).length, 1);
  assert.equal((await claims()).length, 4, "not written into the queue's store");
});

Deno.test("KvJobQueue: the text of a job handed over at acceptance is read from memory once, then from KV", async () => {
  using kv = await Deno.openKv(":memory:");
  const counted = counting(kv);
  const queue = await openKvJobQueue(counted.kv, crypto.getRandomValues(new Uint8Array(32)));
  const input = (text: string) => [{ owner: "o1", namespace: "n1", text }];
  const [before] = await queue.accept(input("accepted before listening"));
  const { delivered: handed, stop } = listening(queue);
  const [job] = await queue.accept(input("I keep bees"));
  await until("the job is handed over", () => handed.includes(job.job_id));

  const start = counted.reads;
  assert.deepEqual(await queue.payloads([job.job_id]), ["I keep bees"]);
  assert.equal(counted.reads, start, "from memory");
  assert.deepEqual(await queue.payloads([before.job_id, job.job_id]), [
    "accepted before listening",
    "I keep bees",
  ]);
  assert.ok(counted.reads > start, "from KV");
  await stop();
});

Deno.test("KvJobQueue: a change lands only while its record is as its worker saw it", async () => {
  using kv = await Deno.openKv(":memory:");
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const queue = await openKvJobQueue(kv, secret, { leaseMs: 60_000 });
  // Another queue on the same store, whose clock is past every lease of the first.
  const other = await openKvJobQueue(kv, secret, {
    leaseMs: 60_000,
    now: () => Date.now() + 120_000,
  });
  const { delivered: handed, stop } = listening(queue);
  const accept = async (text: string) => {
    const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text }]);
    await until("the job is handed over", () => handed.includes(job.job_id));
    return job.job_id;
  };
  const ciphertext = new Uint8Array([1, 2, 3]);

  const a = await accept("I keep bees");
  const [leased] = await queue.leaseMany([a], "w1");
  assert.equal(leased?.worker, "w1");
  assert.deepEqual(await queue.saveCiphertexts([{ record: leased!, ciphertext }]), [true]);
  assert.deepEqual(await queue.completeMany([{ record: leased!, patch: { memory_id: a } }]), [
    true,
  ]);
  assert.equal((await queue.get(a))?.status, "done");

  // Leased by the other queue since it was accepted: the record accepted no longer stands.
  const b = await accept("I cycle to work");
  const [takenByOther] = await other.leaseMany([b], "w2");
  assert.equal(takenByOther?.worker, "w2");
  assert.deepEqual(await queue.leaseMany([b], "w1"), [null]);
  assert.equal((await queue.get(b))?.worker, "w2");

  // Taken over after this queue leased it: the save is refused, the other's record kept.
  const c = await accept("My dentist is Dr Lee");
  const [mine] = await queue.leaseMany([c], "w1");
  await other.leaseMany([c], "w2");
  assert.deepEqual(await queue.saveCiphertexts([{ record: mine!, ciphertext }]), [false]);
  assert.equal((await queue.get(c))?.worker, "w2");

  // Renewed since: the record held is stale but the job is still this worker's, so it completes.
  const d = await accept("I was born in Lyon");
  const [held] = await queue.leaseMany([d], "w1");
  assert.ok(await queue.renew(held!));
  assert.deepEqual(await queue.completeMany([{ record: held!, patch: { memory_id: d } }]), [true]);
  assert.equal((await queue.get(d))?.status, "done");
  await stop();
});

Deno.test("KvJobQueue: jobs handed to the listener get no queue message; after a crash the start-up pass re-drives them", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/jobs.kv`;
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const input = (text: string) => [{ owner: "o1", namespace: "n1", text }];
  const kv = await Deno.openKv(path);
  const counted = counting(kv);
  const queue = await openKvJobQueue(counted.kv, secret);
  const [unheard] = await queue.accept(input("accepted while nobody listens"));
  assert.equal(counted.enqueued, 1);

  // Jobs delivered and never processed: the relayer dies here.
  const { delivered: handed, stop } = listening(queue);
  await until("the waiting job's message arrives", () => handed.includes(unheard.job_id));
  const [job] = await queue.accept(input("I keep bees"));
  assert.equal(counted.enqueued, 1, "no message for a job handed over");
  await until("the job is handed over", () => handed.includes(job.job_id));
  await stop();
  kv.close();

  // The next start: the store opened again, and its start-up pass finds the job unfinished.
  using reopened = await Deno.openKv(path);
  const restarted = await openKvJobQueue(reopened, secret);
  const again = listening(restarted);
  await reconcileJobs(restarted, silentLogger, { startup: true });
  await until("the job is delivered again", () => again.delivered.includes(job.job_id));
  assert.deepEqual(await restarted.payloads([job.job_id]), ["I keep bees"]);
  await again.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("KvJobQueue: jobs accepted while the listener's worker is ready are leased to it by the accepting commit", async () => {
  const clock = new ManualClock();
  await using queue = await openKvQueue({ leaseMs: 60_000, now: clock.now });
  let ready = true;
  const worker = { id: "w1", ready: (jobs: number) => ready && jobs <= 3 };
  const { delivered: handed, stop } = listening(queue, worker);
  const accept = async (...texts: string[]) => {
    const jobs = await queue.accept(texts.map((text) => ({ owner: "o1", namespace: "n1", text })));
    await until("the jobs are handed over", () => jobs.every((j) => handed.includes(j.job_id)));
    return jobs.map((job) => job.job_id);
  };
  const stamp = async (id: string) => (await queue.kv.get(["job", id])).versionstamp;

  const [a] = await accept("I keep bees");
  const stored = await queue.get(a);
  assert.equal(stored?.status, "running");
  assert.equal(stored?.worker, "w1");
  assert.equal(stored?.attempts, 1);
  assert.equal(stored?.lease_until, clock.now() + 60_000);
  const accepted = await stamp(a);
  assert.deepEqual(await queue.leaseMany([a], "w2"), [null], "held by w1");
  const [leased] = await queue.leaseMany([a], "w1");
  assert.equal(leased?.worker, "w1");
  assert.equal(leased?.attempts, 1, "one attempt, not two");
  assert.equal(await stamp(a), accepted, "nothing written");
  assert.deepEqual(await queue.completeMany([{ record: leased!, patch: { memory_id: a } }]), [
    true,
  ]);
  assert.equal((await queue.get(a))?.status, "done");

  // With less than half its lease left, the worker's lease renews it.
  const [b] = await accept("I cycle to work");
  clock.advance(40_000);
  const [renewed] = await queue.leaseMany([b], "w1");
  assert.equal(renewed?.attempts, 1);
  assert.equal(renewed?.lease_until, clock.now() + 60_000);
  assert.deepEqual(await queue.get(b), renewed);

  // Run out before the worker took it: another worker may, and then it is no longer w1's.
  const [c] = await accept("My dentist is Dr Lee");
  clock.advance(61_000);
  const [takenOver] = await queue.leaseMany([c], "w2");
  assert.equal(takenOver?.worker, "w2");
  assert.equal(takenOver?.attempts, 2);
  assert.deepEqual(await queue.leaseMany([c], "w1"), [null]);

  // Not ready, or more jobs than it would start at once: accepted pending, as before.
  ready = false;
  const [d] = await accept("I was born in Lyon");
  ready = true;
  const many = await accept("one", "two", "three", "four");
  for (const id of [d, ...many]) assert.equal((await queue.get(id))?.status, "pending");

  // A crash: the start-up pass gives a job leased at acceptance back, its attempt not counted.
  const [e] = await accept("My sister lives in Oslo");
  await stop();
  await reconcileJobs(queue, silentLogger, { startup: true });
  const given = await queue.get(e);
  assert.equal(given?.status, "pending");
  assert.equal(given?.attempts, 0);
  assert.equal(given?.interruptions, 1);
});

Deno.test("StateJobStore: a job whose queue message is lost after its commit stays pending, and the start-up pass delivers it", async () => {
  const state = new MemoryStateStore();
  using messages = new MemoryMessageQueue();
  const lost: MessageQueue = {
    enqueue: () => Promise.reject(new TypeError("the queue is down")),
    listen: () => Promise.resolve(),
  };
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const before = new StoredJobQueue(await StateJobStore.open(state, lost, secret));
  // Nobody listens: the accept asks for a message, which is lost.
  const [job] = await before.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);
  assert.equal((await before.get(job.job_id))?.status, "pending");

  // The next start, its queue working again.
  const after = new StoredJobQueue(await StateJobStore.open(state, messages, secret));
  const { delivered, stop } = listening(after);
  assert.equal(await reconcileJobs(after, silentLogger, { startup: true }), 1);
  await until("the job is delivered", () => delivered.includes(job.job_id));
  assert.deepEqual(await after.payloads([job.job_id]), ["I keep bees"]);
  await stop();
});
