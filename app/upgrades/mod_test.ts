import assert from "node:assert/strict";
import { StateLifecycleRecords } from "@svc/relayer/testing";
import { KvStateStore } from "@svc/denokv";
import { SqliteKeyStore } from "@svc/local-cipher/key_store";
import { upgrade } from "./mod.ts";

const place = { owner: "0x" + "ab".repeat(32), memoryId: "m1", keyTag: "t" };

async function inTempDir(use: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-upgrades-" });
  try {
    await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const names = (dir: string) => Array.fromAsync(Deno.readDir(dir), (entry) => entry.name);

Deno.test("upgrades: a new data directory has none to do, and none makes a file", async () => {
  await inTempDir(async (dir) => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const done = await upgrade({ dataDir: dir, secret });
    assert.deepEqual(done.map(({ name }) => name), [
      "keys.kv",
      "jobs.kv records",
      "jobs.kv erases",
      "blob files",
    ]);
    assert.ok(done.every(({ moved }) => moved === 0));
    assert.deepEqual(await names(dir), [], "a lost key store must still be found missing");
  });
});

Deno.test("upgrades: erases an earlier version filed under the owner's address are found, once moved", async () => {
  await inTempDir(async (dir) => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    // jobs.kv as the version before left it: sealed (its mark set), erases under the address.
    const kv = await Deno.openKv(`${dir}/jobs.kv`);
    await kv.set(["at_rest", "names_sealed"], true);
    await kv.set(["erased", place.owner, "m1"], 1_000);
    kv.close();
    const moved = (done: { name: string; moved: number }[]) =>
      done.find(({ name }) => name === "jobs.kv erases")?.moved;
    assert.equal(moved(await upgrade({ dataDir: dir, secret })), 1);
    assert.equal(moved(await upgrade({ dataDir: dir, secret })), 0, "once");
    const opened = await Deno.openKv(`${dir}/jobs.kv`);
    try {
      const state = new KvStateStore(opened);
      const records = new StateLifecycleRecords(state, secret);
      assert.deepEqual(await records.erased(place.owner, ["m1", "m2"]), new Set(["m1"]));
      const keys = await Array.fromAsync(state.list({ prefix: ["erased"] }), ({ key }) => key[1]);
      assert.equal(keys.length, 1);
      assert.doesNotMatch(String(keys[0]), /abab/, "the address is gone from jobs.kv");
    } finally {
      opened.close();
    }
  });
});

Deno.test("upgrades: an earlier version's keys.kv moves into keys.sqlite, and goes", async () => {
  await inTempDir(async (dir) => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const wrapped = crypto.getRandomValues(new Uint8Array(48));
    const kv = await Deno.openKv(`${dir}/keys.kv`);
    await kv.set(["key", place.owner, place.memoryId, place.keyTag], wrapped);
    kv.close();
    const [keys] = await upgrade({ dataDir: dir, secret });
    assert.deepEqual(keys, { name: "keys.kv", moved: 1 });
    assert.deepEqual((await names(dir)).filter((name) => name.startsWith("keys.kv")), []);
    const store = await SqliteKeyStore.open(`${dir}/keys.sqlite`);
    try {
      assert.deepEqual(await store.get(place), wrapped);
    } finally {
      await store.close();
    }
  });
});
