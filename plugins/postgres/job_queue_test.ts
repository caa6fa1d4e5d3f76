import assert from "node:assert/strict";
import { silentLogger, SvcError } from "@svc/relayer/kit";
import {
  jobQueueSuite,
  type SharedJobQueueOptions,
  sharedJobQueueSuite,
} from "@svc/relayer/testing";
import { Database } from "./database.ts";
import { PgJobQueue, type PgJobQueueOptions } from "./job_queue.ts";
import { JobSeals } from "./job_rows.ts";
import { PgJobStore } from "./job_store.ts";
import { testDatabase } from "./testing/test_server.ts";

/** A queue on a fresh database; disposing it stops its listener, then closes the pool. */
async function openQueue(options: PgJobQueueOptions = {}) {
  const db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 3 });
  const queue = await PgJobQueue.open(database, crypto.getRandomValues(new Uint8Array(32)), {
    pollMs: 200,
    ...options,
  });
  return Object.assign(queue, {
    database,
    async [Symbol.asyncDispose]() {
      await queue.close();
      await database.close();
      await db[Symbol.asyncDispose]();
    },
  });
}

jobQueueSuite("PgJobQueue", (options) => openQueue(options));

/** Two relayers on one fresh database: two pools, one secret. */
async function openTwo(options: SharedJobQueueOptions = {}) {
  const db = await testDatabase();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const databases = await Promise.all([1, 2].map(() => Database.open({ url: db.url, pool: 3 })));
  const [a, b] = await Promise.all(
    databases.map((database) => PgJobQueue.open(database, secret, { pollMs: 200, ...options })),
  );
  let crashed = false;
  return {
    a,
    b,
    databases,
    async crashA() {
      crashed = true;
      await a.close();
      await databases[0].sql.end({ timeout: 0 });
    },
    async [Symbol.asyncDispose]() {
      await Promise.all([a.close(), b.close()]);
      if (!crashed) await databases[0].close();
      await databases[1].close();
      await db[Symbol.asyncDispose]();
    },
  };
}

sharedJobQueueSuite("PgJobQueue", openTwo);

Deno.test("PgJobQueue: nothing of a job is readable in the database without the secret", async () => {
  await using queues = await openTwo();
  const secrets = ["0xowner-secret", "ns-secret", "bank PIN is 4321", "Cannot store: ns-secret"];
  const [job] = await queues.a.accept([
    { owner: secrets[0], namespace: secrets[1], text: `my ${secrets[2]}` },
  ]);
  const [other] = await queues.a.accept([{ owner: secrets[0], namespace: secrets[1], text: "x" }]);
  await queues.a.fail((await queues.a.lease(other.job_id, "w"))!, secrets[3]);
  await queues.a.retry((await queues.a.lease(job.job_id, "w"))!, secrets[3], 60_000);
  const sql = queues.databases[0].sql;
  const tables = ["svc_jobs_job", "svc_jobs_text", "svc_jobs_ciphertext", "svc_jobs_dead"];
  let dump = "";
  for (const table of tables) {
    const rows = await sql`select t::text as row from ${sql(table)} t`;
    dump += rows.map((row) => row.row).join("\n");
  }
  assert.ok(dump.includes(job.job_id), "the dump holds the rows");
  const hex = (text: string) => new TextEncoder().encode(text).toHex();
  for (const secret of secrets) {
    assert.ok(!dump.includes(secret) && !dump.includes(hex(secret)), `${secret} is sealed`);
  }
  // The other relayer, with the same secret, reads it all; another secret reads nothing.
  assert.equal((await queues.b.get(job.job_id))?.owner, secrets[0]);
  assert.equal((await queues.b.get(other.job_id))?.error, secrets[3]);
  assert.equal(await queues.b.payload(job.job_id), `my ${secrets[2]}`);
  const stranger = await PgJobQueue.open(
    queues.databases[1],
    crypto.getRandomValues(new Uint8Array(32)),
  );
  await assert.rejects(() => stranger.get(job.job_id));
  await assert.rejects(() => stranger.payload(job.job_id));
});

Deno.test("PgJobQueue: a failed job leaves a dead letter; records are kept 7 days", async () => {
  let now = Date.now();
  await using queue = await openQueue({ now: () => now });
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "doomed" }]);
  await queue.fail((await queue.lease(job.job_id, "w1"))!, "Cannot store: no");
  const [dead] = await queue.database.sql`select job_id from svc_jobs_dead`;
  assert.equal(dead.job_id, job.job_id);
  now += 7 * 24 * 3600_000;
  assert.equal(await queue.get(job.job_id), null, "expired");
});

Deno.test("PgJobQueue: a listener deletes every expired record, more than one batch", async () => {
  let now = Date.now();
  await using queue = await openQueue({ now: () => now });
  const input = (i: number) => ({ owner: "o1", namespace: "n1", text: `fact ${i}` });
  for (let at = 0; at < 2500; at += 500) {
    await queue.accept(Array.from({ length: 500 }, (_, i) => input(at + i)));
  }
  const sql = queue.database.sql;
  // Finished long ago: nothing is due, every record is past its time.
  await sql`update svc_jobs_job set due_at = null, expires_at = ${now - 1}`;
  now += 1;
  const stop = new AbortController();
  const listening = queue.listen(() => Promise.resolve(), { signal: stop.signal });
  let left = 2500;
  for (let i = 0; i < 200 && left > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    [{ left }] = await sql`select count(*)::int as left from svc_jobs_job`;
  }
  stop.abort();
  await listening;
  assert.equal(left, 0);
});

Deno.test("PgJobQueue: accepts made at once land whole; a failed statement fails each of its accepts with a 503", async () => {
  await using queue = await openQueue();
  const input = (text: string) => ({ owner: "o1", namespace: "n1", text });
  const accepted = await Promise.all(
    Array.from(
      { length: 30 },
      (_, i) => queue.accept(i % 10 ? [input(`${i}`)] : [input(`${i}`), input(`${i}+`)]),
    ),
  );
  const records = accepted.flat();
  assert.equal(records.length, 33);
  assert.deepEqual(await queue.getMany(records.map((r) => r.job_id)), records);
  assert.deepEqual(
    await queue.payloads(records.map((r) => r.job_id)),
    accepted.flatMap((_, i) => i % 10 ? [`${i}`] : [`${i}`, `${i}+`]),
  );

  const sql = queue.database.sql;
  await sql`alter table svc_jobs_text rename to svc_jobs_text_away`;
  const refused = await Promise.allSettled(
    [1, 2, 3].map((i) => queue.accept([input(`lost ${i}`)])),
  );
  await sql`alter table svc_jobs_text_away rename to svc_jobs_text`;
  for (const result of refused) {
    assert.equal(result.status, "rejected");
    const error = (result as PromiseRejectedResult).reason;
    assert.ok(error instanceof SvcError && error.status === 503, String(error));
    assert.ok(!error.message.includes("postgres://"), "no URL in the error");
  }
  assert.equal((await Array.fromAsync(queue.active())).length, 33, "none of them exists");
  const [later] = await queue.accept([input("later")]);
  assert.equal(await queue.payload(later.job_id), "later");
});

Deno.test("PgJobStore: a delivery retried later than a held lease runs out is due when it runs out", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    const now = Date.now();
    const seals = await JobSeals.derive(crypto.getRandomValues(new Uint8Array(32)));
    const store = new PgJobStore(database, seals, {
      leaseMs: 30_000,
      now: () => now,
      pollMs: 200,
      maxInFlight: 8,
      groupAccepts: false,
      logger: silentLogger,
    });
    const at = new Date(now).toISOString();
    const record = {
      job_id: crypto.randomUUID(),
      status: "running" as const,
      owner: "o1",
      namespace: "n1",
      attempts: 1,
      worker: "w1",
      lease_until: now + 30_000,
      created_at: at,
      updated_at: at,
    };
    await store.create([record], ["I keep bees"]);
    await store.enqueue([record.job_id], 120_000, 4);
    const [row] = await database
      .sql`select due_at from svc_jobs_job where job_id = ${record.job_id}`;
    assert.equal(Number(row.due_at), now + 30_000, "taken over once the lease runs out");
  } finally {
    await database.close();
  }
});

Deno.test("PgJobQueue: a change from a record whose row changed since is checked on the row, then written", async () => {
  await using queue = await openQueue();
  const [job] = await queue.accept([{ owner: "o1", namespace: "n1", text: "I keep bees" }]);
  const held = (await queue.lease(job.job_id, "w1"))!;
  await queue.redrive(job.job_id); // its row changes; the job is still w1's
  const saved = await queue.checkpoint(held, { blob_id: "b1" });
  assert.equal(saved.blob_id, "b1");
  await queue.saveCiphertext(saved, new Uint8Array([1, 2, 3]));
  await queue.complete(saved, { memory_id: job.job_id });
  assert.equal((await queue.get(job.job_id))?.status, "done");
  await assert.rejects(
    () => queue.complete(held, { memory_id: job.job_id }),
    (error) => error instanceof SvcError && error.code === "conflict",
    "a record the job moved on from changes nothing",
  );
});
