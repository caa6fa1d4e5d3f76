import assert from "node:assert/strict";
import type { JobQueueOptions } from "../../src/kit.ts";
import { jobQueueSuite } from "../../src/testing/mod.ts";
import { Database } from "./database.ts";
import { PgJobQueue, type PgJobQueueOptions } from "./job_queue.ts";
import { testDatabase } from "./test_server.ts";

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

jobQueueSuite("PgJobQueue", (options?: JobQueueOptions) => openQueue(options));

Deno.test("PgJobQueue: smoke", async () => {
  await using queue = await openQueue();
  const [job] = await queue.accept([{ owner: "o", namespace: "n", text: "t" }]);
  assert.equal((await queue.get(job.job_id))?.status, "pending");
});
