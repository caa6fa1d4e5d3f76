/**
 * The lifecycle in the relayer as users run it (its own process, the embedded default): a
 * memory that expired while the relayer was down is erased by the sweep at the next start, its
 * blob and key gone; an erased memory stays erased across a restart; one that expired while the
 * index was lost does not come back by restore.
 */
import assert from "node:assert/strict";
import { signRequest } from "../../src/auth/signing.ts";
import { SvcClient } from "../../src/client/mod.ts";
import { SqliteBlobStore } from "../../plugins/sqlite_blob/mod.ts";
import {
  jobIdOf,
  newAccountClient,
  removeIndex,
  startRelayer,
  svcCli,
  testMasterKey,
} from "../relayer_process.ts";

/** A signed request by a delegate key: its status and JSON answer. */
async function call(url: string, privateKey: string, method: string, path: string) {
  const headers = await signRequest({ key: privateKey, method, path, audience: url });
  const response = await fetch(url + path, { method, headers });
  return { status: response.status, body: await response.json() };
}

/** The warning of a start whose index holds no memory while the blob store holds some. */
const LOST_INDEX = /"msg":"the vector index holds no memory while the blob store holds some/;

/** The blobs the data directory's blob store (the default, SQLite) holds. */
async function storedBlobs(dataDir: string): Promise<number> {
  const store = await SqliteBlobStore.open({
    path: `${dataDir}/blobs/blobs.sqlite`,
    secret: await testMasterKey(dataDir),
  });
  try {
    return (await Array.fromAsync(store.entries())).length;
  } finally {
    store.close();
  }
}

Deno.test("expiry sweep after a restart; an erase holds across one", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-lifecycle-" });
  let relayer = await startRelayer(dataDir);
  try {
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const brief = await client.request<{ job_id: string }>("POST", "/api/remember", {
      text: "My parking spot today is B12",
      ttl_seconds: 2,
    });
    const kept = { job_id: jobIdOf(await client.remember("My car is a blue Volvo")) };
    const erased = { job_id: jobIdOf(await client.remember("My locker code is 4711")) };
    for (const { job_id } of [brief, kept, erased]) await client.waitForJob(job_id);
    const files = await storedBlobs(dataDir);
    const erase = await call(relayer.url, privateKey, "DELETE", `/api/memories/${erased.job_id}`);
    assert.equal(erase.status, 200);
    assert.equal(erase.body.memory_id, erased.job_id);
    assert.equal(await storedBlobs(dataDir), files - 1);
    await relayer.stop();

    await new Promise((r) => setTimeout(r, 2_100));
    relayer = await startRelayer(dataDir);
    const url = relayer.url;
    // The sweep runs once at start; its erase is done when the blob file is gone.
    for (let i = 0; i < 200 && (await storedBlobs(dataDir)) > files - 2; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(await storedBlobs(dataDir), files - 2, "the expired memory's blob is deleted");
    const list = await call(url, privateKey, "GET", "/api/memories");
    assert.deepEqual(list.body.memories.map((m: { id: string }) => m.id), [kept.job_id]);
    for (const { job_id } of [brief, erased]) {
      assert.equal((await call(url, privateKey, "GET", `/api/memories/${job_id}`)).status, 404);
    }
    const restarted = await SvcClient.create({ baseUrl: url, privateKey, accountId });
    const restore = await restarted.restore("default");
    assert.equal(restore.restored, 0, "nothing erased comes back");
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a memory that expired while the index was lost is not brought back by restore", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-lifecycle-" });
  let relayer = await startRelayer(dataDir);
  try {
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const brief = await client.request<{ job_id: string }>("POST", "/api/remember", {
      text: "My gate code today is 4711",
      ttl_seconds: 2,
    });
    const kept = { job_id: jobIdOf(await client.remember("My car is a blue Volvo")) };
    for (const { job_id } of [brief, kept]) await client.waitForJob(job_id);
    await relayer.stop();
    await removeIndex(dataDir);

    await new Promise((r) => setTimeout(r, 2_100));
    relayer = await startRelayer(dataDir);
    // The sweep runs once at start: it finds the expired memory in no index, and erases it.
    const swept = () => /"msg":"expired memories erased"[^\n]*"count":1/.test(relayer.log());
    for (let i = 0; i < 400 && !swept(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(swept(), relayer.log());
    const restarted = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
    const restore = await restarted.restore("default");
    assert.deepEqual([restore.restored, restore.skipped], [1, 1], "only the lasting memory");
    const list = await call(relayer.url, privateKey, "GET", "/api/memories");
    assert.deepEqual(list.body.memories.map((m: { id: string }) => m.id), [kept.job_id]);
    const gone = await call(relayer.url, privateKey, "GET", `/api/memories/${brief.job_id}`);
    assert.equal(gone.status, 404);
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("restore skips a memory whose text was stored again while the index was lost", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-lifecycle-" });
  let relayer = await startRelayer(dataDir);
  try {
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    for (const text of ["I live in Porto", "I keep bees"]) {
      await client.waitForJob(jobIdOf(await client.remember(text)));
    }
    assert.doesNotMatch(relayer.log(), LOST_INDEX, "a new data directory has lost nothing");
    await relayer.stop();
    await removeIndex(dataDir);
    relayer = await startRelayer(dataDir);
    assert.match(relayer.log(), LOST_INDEX, "the start says the index was lost");
    const restarted = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
    await restarted.waitForJob(jobIdOf(await restarted.remember("i live in  porto")));

    // A key that may not erase restores, and keeps the copy it skips.
    const writer = await svcCli(dataDir, [
      ...["key", "add", "--account", accountId, "--label", "writer", "--operations", "read,write"],
    ]);
    const restore = await (await SvcClient.create({
      baseUrl: relayer.url,
      privateKey: writer.privateKey,
      accountId,
    })).restore("default");
    assert.deepEqual([restore.restored, restore.skipped, restore.total], [1, 2, 3]);
    assert.equal(await storedBlobs(dataDir), 3, "the copy is kept");
    const listed = await restarted.list();
    assert.deepEqual(listed.memories.map((m) => m.text).sort(), [
      "I keep bees",
      "i live in  porto",
    ]);
    // One that may erase erases the copy.
    assert.deepEqual((await restarted.restore("default")).restored, 0);
    assert.equal(await storedBlobs(dataDir), 2, "the copy is erased");
    // The text erased is not brought back by a later restore from a copy.
    const porto = listed.memories.find((m) => m.text === "i live in  porto")!;
    assert.equal((await restarted.forget(porto.id)).memory_id, porto.id);
    const again = await restarted.restore("default");
    assert.deepEqual([again.restored, again.total], [0, 1]);
    assert.deepEqual((await restarted.list()).memories.map((m) => m.text), ["I keep bees"]);
    assert.equal(await storedBlobs(dataDir), 1, "the copy skipped is erased with its key");
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("erasing a namespace whose index was lost erases its blobs: restore brings nothing back", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-lifecycle-" });
  let relayer = await startRelayer(dataDir);
  try {
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    for (const text of ["I live in Porto", "I keep bees"]) {
      await client.waitForJob(jobIdOf(await client.remember(text, { namespace: "home" })));
    }
    await client.waitForJob(jobIdOf(await client.remember("I am vegetarian")));
    await relayer.stop();
    await removeIndex(dataDir);
    relayer = await startRelayer(dataDir);
    const restarted = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
    const erased = await restarted.forgetNamespace("home");
    assert.equal(erased.erased, 2, "a receipt for each memory only a blob held");
    assert.equal(await storedBlobs(dataDir), 1, "only the other namespace's blob is left");
    const restore = await restarted.restore("home");
    assert.deepEqual([restore.restored, restore.total], [0, 0]);
    assert.deepEqual((await restarted.list({ namespace: "home" })).memories, []);
    assert.equal((await restarted.restore("default")).restored, 1, "another namespace is kept");
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
