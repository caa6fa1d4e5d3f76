/**
 * A relayer without Deno KV: its replay guard, lifecycle records, update claims and access log
 * in PostgreSQL (the job queue in memory), two of them on one database.
 */
import assert from "node:assert/strict";
import { signRequest } from "../../src/auth/signing.ts";
import { SvcError } from "../../src/errors.ts";
import { MemoryJobQueue } from "../../src/testing/memory_job_queue.ts";
import { createRelayer, type RelayerOptions } from "../../src/relayer.ts";
import { MemoryAccessLogStore, StateAccessLogStore } from "../../src/services/access_log_store.ts";
import { StateLifecycleRecords } from "../../src/services/lifecycle_records.ts";
import { StateUpdateClaims } from "../../src/services/update_claims.ts";
import {
  MemoryAccountDirectory,
  MemoryBlobStore,
  MemoryVectorStore,
} from "../../src/testing/mod.ts";
import { MemoryReplayGuard } from "../../src/auth/replay_guard.ts";
import { LexicalEmbedder } from "../../plugins/lexical_embedder/mod.ts";
import { LocalCipher } from "../../plugins/local_cipher/mod.ts";
import { Database, PgReplayGuard, PgStateStore } from "../../plugins/postgres/mod.ts";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { BASE, startTestRelayer, type TestRelayer } from "../fixtures.ts";

const SECRET = new Uint8Array(32).fill(3);

/** A test relayer whose shared state is on `database`, without Deno KV. */
async function pgRelayer(database: Database) {
  const replayGuard = new PgReplayGuard(database);
  const t = await startTestRelayer({
    withoutKv: true,
    secret: SECRET,
    queue: new MemoryJobQueue(),
    replayGuard,
    records: new StateLifecycleRecords(new PgStateStore(database), SECRET),
    updateClaims: await StateUpdateClaims.open(new PgStateStore(database), SECRET),
    accessLogStore: new StateAccessLogStore(new PgStateStore(database)),
  });
  return Object.assign(t, { replayGuard });
}

Deno.test("relayers without Deno KV on one database: a request accepted by one is a replay on the other", async () => {
  await using db = await testDatabase();
  const pools = [
    await Database.open({ url: db.url, pool: 3 }),
    await Database.open({ url: db.url, pool: 3 }),
  ];
  const relayers: (TestRelayer & { replayGuard: PgReplayGuard })[] = [];
  try {
    for (const pool of pools) relayers.push(await pgRelayer(pool));
    const [one, two] = relayers;
    const alice = await one.newCaller();
    two.directory.add({ accountId: alice.accountId, owner: alice.owner, active: true }, [
      alice.key.publicKey,
    ]);
    const body = JSON.stringify({ text: "The bees swarm in May", namespace: "notes" });
    const headers = await signRequest({
      key: alice.key,
      method: "POST",
      path: "/api/remember",
      body,
      audience: BASE,
    });
    const send = (t: TestRelayer) =>
      t.relayer.handler(
        new Request(`${BASE}/api/remember`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body,
        }),
      );
    // The same signed request to both relayers at once: one accepts it.
    const responses = await Promise.all([send(one), send(two)]);
    const statuses = responses.map((response) => response.status).sort();
    for (const response of responses) await response.body?.cancel();
    assert.deepEqual(statuses, [202, 409]);
    const again = await send(two);
    await again.body?.cancel();
    assert.equal(again.status, 409);
    // A fresh request works on either.
    const fresh = await two.signed(alice, "POST", "/api/recall", { query: "bees" });
    assert.equal(fresh.status, 200);
    await fresh.body?.cancel();
  } finally {
    for (const t of relayers) {
      await t[Symbol.asyncDispose]();
      await t.replayGuard.close();
    }
    for (const pool of pools) await pool.close();
  }
});

Deno.test("a relayer without every store of its own is refused at start", async () => {
  const embedder = new LexicalEmbedder();
  const vectors = new MemoryVectorStore(embedder.dimensions);
  // No lifecycle records: what a caller without types can leave out.
  const options: Omit<RelayerOptions, "records"> = {
    secret: SECRET,
    directory: new MemoryAccountDirectory(),
    cipher: await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) }),
    blobs: new MemoryBlobStore(),
    vectors,
    embedder,
    processJobs: false,
    queue: new MemoryJobQueue(),
    replayGuard: new MemoryReplayGuard(),
    accessLogStore: new MemoryAccessLogStore(),
  };
  try {
    await assert.rejects(createRelayer(options as RelayerOptions), (error: unknown) => {
      assert.ok(error instanceof SvcError);
      assert.match(
        error.message,
        /Cannot start the relayer: it needs a job queue, a replay guard, lifecycle records/,
      );
      return true;
    });
  } finally {
    await vectors.close();
  }
});
