import assert from "node:assert/strict";
import { SvcError } from "../errors.ts";
import { MemoryJobQueue } from "../testing/memory_job_queue.ts";
import { DiskBacklog, type DiskRoom, withDiskBacklog } from "./disk_backlog.ts";
import type { JobQueue } from "./job_queue.ts";

/** A disk whose room the test sets, and whose readings it takes by hand. */
class FakeDisk implements DiskRoom {
  room: number;
  readsStarted = 1;
  reading = 1;
  constructor(room: number) {
    this.room = room;
  }
  get low(): boolean {
    return this.room < 0;
  }
  /** A reading that finds `room`. */
  read(room: number): void {
    this.reading = ++this.readsStarted;
    this.room = room;
  }
}

const text = "x".repeat(1000);
const JOB = DiskBacklog.estimate(text);
const input = { owner: "o1", namespace: "n1", text };

async function refusal(promise: Promise<unknown>): Promise<SvcError> {
  const error = await promise.then(() => undefined, (error) => error);
  assert.ok(error instanceof SvcError, "refused");
  return error;
}

Deno.test("disk backlog: acceptance stops before the backlog would cross the floor, and resumes as jobs land", async () => {
  const disk = new FakeDisk(10 * JOB + JOB / 2);
  using stored = new MemoryJobQueue();
  const queue = withDiskBacklog(stored, new DiskBacklog(disk));
  const accepted = [];
  for (let i = 0; i < 10; i++) accepted.push(...await queue.accept([input]));
  // The disk has not changed yet (nothing written), but ten jobs will fill its room.
  const refused = await refusal(queue.accept([input]));
  assert.equal(refused.code, "backend_unavailable");
  assert.equal(refused.details.reason, "disk_full");
  assert.equal(refused.headers?.["retry-after"], "30");
  assert.equal((await refusal(queue.accept([input, input]))).details.reason, "disk_full");

  // Two jobs land: their charge holds until a reading counts what they wrote.
  for (const job of accepted.slice(0, 2)) {
    const record = (await queue.lease(job.job_id, "w1"))!;
    await queue.complete(record, { memory_id: job.job_id });
  }
  await refusal(queue.accept([input]));
  disk.read(disk.room - 2 * JOB);
  await refusal(queue.accept([input]));
  // Written smaller than estimated: the room found is larger, and takes two more.
  disk.read(disk.room + 2 * JOB);
  const more = await queue.accept([input, input]);
  assert.equal(more.length, 2);
  await refusal(queue.accept([input]));
});

Deno.test("disk backlog: less room left accepts less; a failed job gives its charge back", async () => {
  const disk = new FakeDisk(3 * JOB);
  using stored = new MemoryJobQueue({ maxAttempts: 1 });
  const backlog = new DiskBacklog(disk);
  const queue = withDiskBacklog(stored, backlog);
  const [a, b, c] = await queue.accept([input, input, input]);
  await refusal(queue.accept([input]));
  assert.equal(backlog.held, 3 * JOB);
  await queue.fail((await queue.lease(a.job_id, "w1"))!, "no");
  // A job the queue fails itself, at a lease past its attempts, is found finished.
  await queue.lease(b.job_id, "w1");
  await stored.retry((await stored.get(b.job_id))!, "again", 0);
  assert.equal(await queue.lease(b.job_id, "w1"), null);
  disk.read(disk.room);
  assert.equal(backlog.held, JOB);
  assert.ok(await queue.accept([input, input]));
  await refusal(queue.accept([input]));
  await queue.complete((await queue.lease(c.job_id, "w1"))!, {});
  // Under the floor: nothing, however small.
  disk.read(-1);
  await refusal(queue.accept([{ ...input, text: "a" }]));
});

Deno.test("disk backlog: an accept the store refuses keeps no charge", async () => {
  const backlog = new DiskBacklog(new FakeDisk(2 * JOB));
  const down = { accept: () => Promise.reject(new Error("store down")) } as unknown as JobQueue;
  await assert.rejects(withDiskBacklog(down, backlog).accept([input]), /store down/);
  assert.equal(backlog.held, 0);
});
