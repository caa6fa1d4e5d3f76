/** The enumerations `svc migrate-store` reads the embedded stores with. */
import assert from "node:assert/strict";
import { KvStateStore } from "@svc/denokv";
import { liveClaims, StateReplayGuard } from "../src/auth/state_replay_guard.ts";
import { fingerprintOf } from "../src/auth/claim_record.ts";
import { SqliteKeyStore } from "../plugins/local_cipher/key_store.ts";
import { SqliteBlobStore } from "../plugins/sqlite_blob/mod.ts";

Deno.test("replay claims and keys list what they hold", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    let now = 10_000;
    const guard = await StateReplayGuard.open(new KvStateStore(kv), { now: () => now });
    assert.equal(await guard.claim("nonce:a", 60_000), true);
    assert.deepEqual(await Array.fromAsync(liveClaims(new KvStateStore(kv), now)), [
      { print: fingerprintOf("nonce:a"), expiresAt: 70_000 },
    ]);
    now = 80_000;
    assert.deepEqual(
      await Array.fromAsync(liveClaims(new KvStateStore(kv), now)),
      [],
      "expired claims are left",
    );
  } finally {
    kv.close();
  }
  const dir = await Deno.makeTempDir();
  const keys = await SqliteKeyStore.open(`${dir}/keys.sqlite`);
  try {
    const wrapped = new Uint8Array([9, 9]);
    await keys.put({ owner: "0xa", memoryId: "m1", keyTag: "t1" }, wrapped);
    assert.deepEqual(await Array.fromAsync(keys.entries()), [
      { place: { owner: "0xa", memoryId: "m1", keyTag: "t1" }, wrapped },
    ]);
  } finally {
    await keys.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the SQLite blob store lists every blob of every owner, but not a deleted one", async () => {
  const dir = await Deno.makeTempDir();
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const store = await SqliteBlobStore.open({ path: `${dir}/blobs.sqlite`, secret });
  try {
    const meta = { owner: "0xa", namespace: "n", memoryId: "m1", createdAt: 1 };
    const kept = await store.put(new Uint8Array([1]), meta);
    const other = await store.put(new Uint8Array([2]), { ...meta, owner: "0xb", memoryId: "m2" });
    const gone = await store.put(new Uint8Array([3]), { ...meta, memoryId: "m3" });
    await store.delete(gone);
    const listed = await Array.fromAsync(store.entries());
    assert.deepEqual(listed.map((e) => e.blobId).sort(), [kept, other].sort());
    assert.deepEqual(listed.find((e) => e.blobId === kept)?.meta, meta);
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
