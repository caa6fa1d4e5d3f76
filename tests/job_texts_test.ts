import assert from "node:assert/strict";
import type { KeyPlace, KeyStore } from "@svc/relayer/kit";
import { SqliteKeyStore } from "@svc/local-cipher/key_store";
import { deriveAesKey, hkdfMaster, openBytes, sealBytes } from "@svc/util/sealing";
import { KvStateStore } from "@svc/denokv";
import { StateLifecycleRecords } from "@svc/relayer/testing";
import { JobSeal } from "../src/jobs/job_seal.ts";
import { storedJobs } from "../app/job_export.ts";
import { openKvJobQueue } from "./fixtures.ts";

const OWNER = "0x" + "ab".repeat(32);
const TEXT = "my bank PIN is 4321";

/** A queue on a KV in memory, its texts' keys in a `keys.sqlite` of a temporary directory. */
async function openQueue(secret = crypto.getRandomValues(new Uint8Array(32))) {
  const dir = await Deno.makeTempDir({ prefix: "svc-job-texts-" });
  const keyStore = await SqliteKeyStore.open(`${dir}/keys.sqlite`);
  const kv = await Deno.openKv(":memory:");
  const queue = await openKvJobQueue(kv, secret, { keyStore });
  return {
    kv,
    keyStore,
    queue,
    secret,
    async [Symbol.asyncDispose]() {
      kv.close();
      await keyStore.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The chunks of job `jobId`'s sealed text, as a copy of `jobs.kv` holds them. */
async function rawPayload(kv: Deno.Kv, jobId: string): Promise<Uint8Array<ArrayBuffer>[]> {
  const entries = kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["job_payload", jobId] });
  return await Array.fromAsync(entries, (entry) => entry.value);
}

/** Puts `chunks` back as job `jobId`'s text: what Deno KV leaves of a deleted value. */
async function putBack(kv: Deno.Kv, jobId: string, chunks: Uint8Array<ArrayBuffer>[]) {
  for (const [c, chunk] of chunks.entries()) await kv.set(["job_payload", jobId, c], chunk);
}

/** The key texts were sealed under before (and still are without a key store). */
async function secretPayloadKey(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return await deriveAesKey(await hkdfMaster(secret), "svc-job-payload-v1", new Uint8Array());
}

const legacyAad = (jobId: string) => new TextEncoder().encode(`svc-job:${jobId}`);

Deno.test("the job queue in Deno KV: once a job's memory is erased, what jobs.kv still holds of its text opens with neither the secret nor the key store", async () => {
  await using t = await openQueue();
  const [job] = await t.queue.accept([{ owner: OWNER, namespace: "n1", text: TEXT }]);
  const copied = await rawPayload(t.kv, job.job_id);
  assert.equal(copied.length, 1);
  assert.equal(await t.queue.payload(job.job_id), TEXT, "the worker reads it");

  await t.keyStore.erase(OWNER, [job.job_id]);
  assert.equal(await t.queue.payload(job.job_id), null, "the job finds its text gone");
  // What the erase could not reach in jobs.kv, read by someone holding the secret and a copy of
  // the key store taken after the erase.
  await putBack(t.kv, job.job_id, copied);
  const attacker = await openKvJobQueue(t.kv, t.secret, { keyStore: t.keyStore });
  assert.equal(await attacker.payload(job.job_id), null);
  const key = await secretPayloadKey(t.secret);
  for (const sealed of [copied[0], copied[0].subarray(1)]) {
    await assert.rejects(() => openBytes(key, sealed, legacyAad(job.job_id)));
  }
  await assert.rejects(() => openKvJobQueue(t.kv, t.secret).then((q) => q.payload(job.job_id)));
});

Deno.test("the job queue in Deno KV: a text's key is in the key store, wrapped, before its job is", async () => {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const kv = await Deno.openKv(":memory:");
  try {
    const puts: KeyPlace[] = [];
    const failing: KeyStore = {
      put(place) {
        puts.push(place);
        return Promise.reject(new Error("disk full"));
      },
      get: () => Promise.resolve(null),
      erase: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const queue = await openKvJobQueue(kv, secret, { keyStore: failing });
    await assert.rejects(() => queue.accept([{ owner: OWNER, namespace: "n1", text: TEXT }]));
    assert.deepEqual(puts.map(({ owner, keyTag }) => [owner, keyTag]), [
      [OWNER, "0000000000000000"],
    ]);
    assert.deepEqual(await Array.fromAsync(kv.list({ prefix: [] })), [], "no job without its key");
  } finally {
    kv.close();
  }
  await using t = await openQueue(secret);
  const [job] = await t.queue.accept([{ owner: OWNER, namespace: "n1", text: TEXT }]);
  const wrapped = await t.keyStore.get({
    owner: OWNER,
    memoryId: job.job_id,
    keyTag: "0000000000000000",
  });
  assert.equal(wrapped?.byteLength, 12 + 32 + 16);
});

Deno.test("the job queue in Deno KV: texts sealed under the secret (an earlier version's) still open", async () => {
  await using t = await openQueue();
  const before = await openKvJobQueue(t.kv, t.secret);
  const [job] = await before.accept([{ owner: OWNER, namespace: "n1", text: TEXT }]);
  assert.equal(await t.queue.payload(job.job_id), TEXT);
  assert.deepEqual(await t.queue.payloads([job.job_id]), [TEXT]);
  // One whose IV begins with the marker of a text sealed under its own key, as 1 in 256 do.
  const key = await secretPayloadKey(t.secret);
  let sealed: Uint8Array<ArrayBuffer>;
  do {
    sealed = await sealBytes(key, new TextEncoder().encode(TEXT), legacyAad(job.job_id));
  } while (sealed[0] !== 0x4b);
  await t.kv.set(["job_payload", job.job_id, 0], sealed);
  assert.equal(await t.queue.payload(job.job_id), TEXT);
});

Deno.test("StateLifecycleRecords: recording memories erased erases their jobs' text keys, whatever the cipher", async () => {
  await using t = await openQueue();
  const [job, kept] = await t.queue.accept([
    { owner: OWNER, namespace: "n1", text: TEXT },
    { owner: OWNER, namespace: "n1", text: "I like figs" },
  ]);
  const records = new StateLifecycleRecords(new KvStateStore(t.kv), t.secret, t.keyStore);
  await records.markErased(OWNER, [{ memoryId: job.job_id }], 1);
  assert.deepEqual(await t.queue.payloads([job.job_id, kept.job_id]), [null, "I like figs"]);
  assert.deepEqual(await records.erased(OWNER, [job.job_id, kept.job_id]), new Set([job.job_id]));
});

Deno.test("storedJobs: with the keys, texts come sealed under the secret, as PgJobQueue reads them", async () => {
  await using t = await openQueue();
  const [job, erased] = await t.queue.accept([
    { owner: OWNER, namespace: "n1", text: TEXT },
    { owner: OWNER, namespace: "n1", text: "I like figs" },
  ]);
  await t.keyStore.erase(OWNER, [erased.job_id]);
  const seal = await JobSeal.derive(t.secret);
  const keys = { secret: t.secret, keyStore: t.keyStore };
  const texts = new Map<string, Uint8Array<ArrayBuffer> | null>();
  for await (const stored of storedJobs(new KvStateStore(t.kv), seal, keys)) {
    texts.set(stored.record.job_id, stored.sealedText);
  }
  const opened = await openBytes(
    await secretPayloadKey(t.secret),
    texts.get(job.job_id)!,
    legacyAad(job.job_id),
  );
  assert.equal(new TextDecoder().decode(opened), TEXT);
  assert.equal(texts.get(erased.job_id), null, "an erased memory's text is not copied");
});

Deno.test("the job queue in Deno KV: a job done as a duplicate erases its text key: no erase of a memory would", async () => {
  await using t = await openQueue();
  const [failed, duplicate, done] = await t.queue.accept(
    ["a", "b", "c"].map((text) => ({ owner: OWNER, namespace: "n1", text })),
  );
  const copied = await rawPayload(t.kv, duplicate.job_id);
  const keyOf = (jobId: string) =>
    t.keyStore.get({ owner: OWNER, memoryId: jobId, keyTag: "0000000000000000" });
  await t.queue.fail((await t.queue.lease(failed.job_id, "w1"))!, "Cannot store: no");
  const leased = (await t.queue.lease(duplicate.job_id, "w1"))!;
  await t.queue.complete(leased, { memory_id: done.job_id, duplicate_of: done.job_id });
  const own = (await t.queue.lease(done.job_id, "w1"))!;
  await t.queue.complete(own, { memory_id: done.job_id });
  assert.ok(await keyOf(failed.job_id), "its memory may hold a blob until withdrawn");
  assert.equal(await keyOf(duplicate.job_id), null);
  assert.ok(await keyOf(done.job_id), "kept until its memory is erased");
  await putBack(t.kv, duplicate.job_id, copied);
  assert.equal(await t.queue.payload(duplicate.job_id), null);
});
