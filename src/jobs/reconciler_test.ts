import assert from "node:assert/strict";
import { silentLogger } from "../log.ts";
import { ManualClock } from "../testing/job_fixtures.ts";
import { MemoryJobQueue } from "../testing/memory_job_queue.ts";
import { reconcileJobs } from "./reconciler.ts";

/** A queue with a job whose lease ran out and one whose lease is live. */
async function twoRunning(shared: boolean) {
  const clock = new ManualClock();
  const queue = new MemoryJobQueue({ leaseMs: 1_000, now: clock.now });
  if (shared) Object.defineProperty(queue, "shared", { value: true });
  const input = (text: string) => ({ owner: "o1", namespace: "n1", text });
  const [lapsed, live] = await queue.accept([input("lapsed"), input("live")]);
  await queue.lease(lapsed.job_id, "w1");
  clock.advance(1_000);
  await queue.lease(live.job_id, "w2");
  await reconcileJobs(queue, silentLogger, { startup: true, now: clock.now() });
  const status = async (id: string) => (await queue.get(id))?.status;
  const result = [await status(lapsed.job_id), await status(live.job_id)];
  queue.close();
  return result;
}

Deno.test("start-up reconcile gives back every running job of a queue one relayer owns", async () => {
  assert.deepEqual(await twoRunning(false), ["pending", "pending"]);
});

Deno.test("start-up reconcile of a shared queue gives back only the jobs whose lease ran out", async () => {
  assert.deepEqual(await twoRunning(true), ["pending", "running"]);
});

Deno.test("reconcile leaves a shared queue's pending jobs to their due time: a backoff holds", async () => {
  const clock = new ManualClock();
  const queue = new MemoryJobQueue({ leaseMs: 1_000, now: clock.now });
  Object.defineProperty(queue, "shared", { value: true });
  const redriven: string[] = [];
  const redrive = queue.redrive.bind(queue);
  queue.redrive = (id) => (redriven.push(id), redrive(id));
  try {
    const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "backing off" }]);
    await queue.retry((await queue.lease(job.job_id, "w1"))!, "busy", 60_000);
    clock.advance(2_000);
    for (const startup of [true, false]) {
      await reconcileJobs(queue, silentLogger, { startup, now: clock.now() });
    }
    assert.deepEqual(redriven, []);
  } finally {
    queue.close();
  }
});

Deno.test("the periodic reconcile leaves alone the jobs its worker holds", async () => {
  const clock = new ManualClock();
  const queue = new MemoryJobQueue({ leaseMs: 1_000, now: clock.now });
  const redriven: string[] = [];
  const redrive = queue.redrive.bind(queue);
  queue.redrive = (id) => (redriven.push(id), redrive(id));
  try {
    const input = (text: string) => ({ owner: "o1", namespace: "n1", text });
    const [held, lost] = await queue.accept([input("held"), input("lost")]);
    clock.advance(2_000);
    const holds = (id: string) => id === held.job_id;
    await reconcileJobs(queue, silentLogger, { startup: false, now: clock.now(), holds });
    assert.deepEqual(redriven, [lost.job_id]);
  } finally {
    queue.close();
  }
});

Deno.test("the start-up reconcile delivers the pending jobs, enqueueing none", async () => {
  const queue = new MemoryJobQueue();
  const redriven: string[] = [];
  const redrive = queue.redrive.bind(queue);
  queue.redrive = (id) => (redriven.push(id), redrive(id));
  try {
    const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "left" }]);
    const delivered: string[] = [];
    const deliver = ({ job_id }: { job_id: string }) => void delivered.push(job_id);
    assert.equal(await reconcileJobs(queue, silentLogger, { startup: true, deliver }), 1);
    assert.deepEqual([delivered, redriven], [[job.job_id], []]);
  } finally {
    queue.close();
  }
});
