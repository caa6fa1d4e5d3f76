import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { assertUnavailable, enc, meta, setup } from "./testing/test_store.ts";
import type { WalrusBlobStore } from "./mod.ts";

/** A setup whose store is configured with Walrus's `System` object (deleting needs it). */
async function withSystem() {
  const s = await setup();
  const store = await s.open({
    walrusPackageId: undefined,
    systemObjectId: s.bed.chain.systemObjectId,
  });
  return Object.assign(s, { store });
}

/** The Walrus functions run since `from` (dry runs included), without the package id. */
function calledSince(s: { bed: { chain: { calls: string[] } } }, from: number): string[] {
  return s.bed.chain.calls.slice(from).map((c) => c.split("::").slice(1).join("::"));
}

/** Reads a blob id straight from the first aggregator: its HTTP status. */
async function served(s: { bed: { walrus: { aggregatorUrls: string[] } } }, blobId: string) {
  const response = await fetch(`${s.bed.walrus.aggregatorUrls[0]}/v1/blobs/${blobId}`);
  await response.body?.cancel();
  return response.status;
}

const cacheFile = (s: { cacheDir: string }, blobId: string) =>
  `${s.cacheDir}/${blobId.slice(0, 2)}/${blobId}`;

Deno.test("WalrusBlobStore: delete deletes every Blob object of the blob id on chain, and the cached copy", async () => {
  await using s = await withSystem();
  const bytes = enc("to be erased");
  const blobId = await s.store.put(bytes, meta(1));
  assert.equal(await s.store.put(bytes, meta(2, { namespace: "other" })), blobId);
  const kept = await s.store.put(enc("kept"), meta(3));
  assert.equal(s.bed.chain.blobObjects(s.store.address).length, 3, "two objects hold the blob");
  await Deno.stat(cacheFile(s, blobId));

  const calls = s.bed.chain.calls.length;
  await s.store.delete(blobId);
  assert.deepEqual(
    new Set(calledSince(s, calls)),
    new Set(["system::delete_blob", "storage_resource::destroy"]),
  );
  const left = s.bed.chain.blobObjects(s.store.address);
  assert.equal(left.length, 1);
  assert.equal(s.bed.chain.attributes(left[0].id)?.memory_id, "m3");
  await assert.rejects(() => Deno.stat(cacheFile(s, blobId)), Deno.errors.NotFound);
  assert.equal(await served(s, blobId), 404, "the storage nodes dropped it");
  assert.equal(await s.store.get(blobId), null);
  assert.deepEqual((await s.store.list(meta(1).owner, "notes")).map((e) => e.blobId), [kept]);
  assert.deepEqual(await s.store.list(meta(1).owner, "other"), []);

  // A restarted store (the same cache folder) and a fresh one agree.
  for (const cacheDir of [s.cacheDir, await s.tempDir()]) {
    const again = await s.open({ cacheDir, systemObjectId: s.bed.chain.systemObjectId });
    assert.equal(await again.get(blobId), null);
    assert.deepEqual(await again.get(kept), enc("kept"));
  }
});

Deno.test("WalrusBlobStore: the same bytes stored by someone else stay readable after a delete", async () => {
  await using s = await withSystem();
  const bytes = enc("stored twice");
  const blobId = await s.store.put(bytes, meta(1));
  const elsewhere = "0x" + "e".repeat(64);
  const other = await fetch(`${s.bed.walrus.publisherUrl}/v1/blobs?send_object_to=${elsewhere}`, {
    method: "PUT",
    body: bytes,
  });
  assert.equal((await other.json()).newlyCreated.blobObject.blobId, blobId);
  await s.store.delete(blobId);
  assert.deepEqual(s.bed.chain.blobObjects(s.store.address), []);
  assert.deepEqual(await s.store.list(meta(1).owner, "notes"), []);
  // As Walrus documents: its storage nodes keep a blob while another copy of it is stored.
  assert.deepEqual(await s.store.get(blobId), bytes);
});

Deno.test("WalrusBlobStore: an expired or permanent Blob object is burnt, so list leaves it out", async () => {
  await using s = await withSystem();
  const expiring = await s.store.put(enc("expiring"), meta(1));
  const permanent = await fetch(
    `${s.bed.walrus.publisherUrl}/v1/blobs?permanent=true&epochs=9&send_object_to=${s.store.address}`,
    { method: "PUT", body: enc("permanent") },
  );
  const object = (await permanent.json()).newlyCreated.blobObject;
  const owned = () => s.bed.chain.blobObjects(s.store.address).map((o) => o.id);
  assert.equal(owned().length, 2);
  s.bed.walrus.epoch = 5; // The store keeps blobs 3 epochs: the first has expired.
  assert.equal(await served(s, expiring), 404);

  const calls = s.bed.chain.calls.length;
  await s.store.delete(expiring);
  assert.deepEqual(owned(), [object.id]);
  assert.deepEqual(await s.store.list(meta(1).owner, "notes"), []);
  await s.store.delete(object.blobId);
  assert.deepEqual(owned(), []);
  // Each call as the transaction's dry run runs it, then (but for the refused one) executed.
  const used = calledSince(s, calls).filter((c, i, all) => c !== all[i - 1]);
  assert.deepEqual(used, [
    "system::delete_blob",
    "blob::burn",
    "system::delete_blob",
    "blob::burn",
  ]);
  // A permanent blob cannot be deleted from Walrus: it stays until its end epoch.
  assert.equal(await served(s, object.blobId), 200);
});

Deno.test("WalrusBlobStore: concurrent deletes share transactions, and the same id twice is fine", async () => {
  await using s = await withSystem();
  const ids = await Promise.all(
    Array.from({ length: 6 }, (_, i) => s.store.put(enc(`erased ${i}`), meta(i))),
  );
  const executed = () =>
    s.bed.sui.network.calls.filter((m) => m === "sui_executeTransactionBlock").length;
  const before = executed();
  await Promise.all([...ids, ids[0], ids[1]].map((id) => s.store.delete(id)));
  assert.ok(executed() - before < 6, `${executed() - before} transactions for 6 deletes`);
  assert.deepEqual(s.bed.chain.blobObjects(s.store.address), []);
  for (const id of ids) assert.equal(await s.store.get(id), null);
  await s.store.delete(ids[0]);
});

Deno.test("WalrusBlobStore: the chain down makes delete backend_unavailable; done again once it is back", async () => {
  await using s = await withSystem();
  const blobId = await s.store.put(enc("secret bytes"), meta(1));
  s.bed.sui.network.outage = 503;
  await assert.rejects(() => s.store.delete(blobId), (e) => assertUnavailable(e, "secret"));
  s.bed.sui.network.outage = null;
  assert.equal(s.bed.chain.blobObjects(s.store.address).length, 1, "nothing deleted");
  assert.equal(await served(s, blobId), 200);
  assert.deepEqual(await s.store.get(blobId), enc("secret bytes"), "still readable");
  await s.store.delete(blobId);
  assert.equal(await s.store.get(blobId), null);
  assert.equal(await served(s, blobId), 404);
});

Deno.test("WalrusBlobStore: a blob whose metadata write failed is stored anew after a delete", async () => {
  await using s = await withSystem();
  s.bed.sui.network.outage = 503;
  await assert.rejects(() => s.store.put(enc("half stored"), meta(1)));
  s.bed.sui.network.outage = null;
  const blobId = await s.bed.walrus.blobIdOf(enc("half stored"));
  // Its object names no memory yet: erasing the memory deletes it too.
  await s.store.delete(blobId, { memoryId: meta(1).memoryId });
  assert.deepEqual(s.bed.chain.blobObjects(s.store.address), []);
  const puts = s.bed.walrus.publisher.count("PUT");
  assert.equal(await s.store.put(enc("half stored"), meta(1)), blobId);
  assert.equal(s.bed.walrus.publisher.count("PUT"), puts + 1, "published again");
  assert.deepEqual((await s.store.list(meta(1).owner, "notes")).map((e) => e.blobId), [blobId]);
  assert.deepEqual(await s.store.get(blobId), enc("half stored"));
});

Deno.test("WalrusBlobStore: erasing one memory's copy leaves another's, whose reads are cached again", async () => {
  await using s = await withSystem();
  const bytes = enc("stored by two memories");
  const blobId = await s.store.put(bytes, meta(1));
  await s.store.put(bytes, meta(2, { namespace: "other" }));
  await s.store.delete(blobId, { memoryId: meta(1).memoryId });
  const left = s.bed.chain.blobObjects(s.store.address);
  assert.deepEqual(left.map((o) => s.bed.chain.attributes(o.id)?.memory_id), ["m2"]);
  assert.deepEqual(await s.store.get(blobId), bytes);
  await Deno.stat(cacheFile(s, blobId));
});

Deno.test("WalrusBlobStore: without the System object id delete is not_implemented and touches nothing", async () => {
  await using s = await setup();
  const store: WalrusBlobStore = s.store; // configured with the package id alone
  const blobId = await store.put(enc("kept"), meta(1));
  const calls = s.bed.sui.network.calls.length;
  await assert.rejects(() => store.delete(blobId), (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.code, "not_implemented");
    assert.match(e.message, /^Cannot delete the blob: .*SVC_WALRUS_SYSTEM_OBJECT_ID/);
    return true;
  });
  assert.equal(s.bed.sui.network.calls.length, calls, "no call to the chain");
  await Deno.stat(cacheFile(s, blobId));
  assert.deepEqual(await store.get(blobId), enc("kept"));
  // Malformed ids are ignored before that, as by every store.
  await store.delete("../../etc/passwd");
});

Deno.test("WalrusBlobStore: a delete called while another's scan of the chain is under way waits for a fresh one", async () => {
  await using s = await setup();
  // Between the store and the node: answers to owned-object scans are held until released.
  let release!: () => void;
  const held = new Promise<void>((resolve) => release = resolve);
  let scans = 0;
  const proxy = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const body = await req.text();
    const answer = await fetch(s.bed.sui.url, { method: "POST", body, headers: req.headers });
    const text = await answer.text();
    if (body.includes("suix_getOwnedObjects")) {
      scans++;
      await held;
    }
    return new Response(text, { status: answer.status, headers: answer.headers });
  });
  try {
    const store = await s.open({
      rpcUrl: `http://127.0.0.1:${proxy.addr.port}`,
      walrusPackageId: undefined,
      systemObjectId: s.bed.chain.systemObjectId,
    });
    const first = await store.put(enc("first"), meta(1));
    const deletingFirst = store.delete(first);
    while (scans === 0) await new Promise((r) => setTimeout(r, 5));
    // Stored after that scan read the chain: only a later scan can find it.
    const second = await store.put(enc("second"), meta(2));
    const deletingSecond = store.delete(second);
    release();
    await Promise.all([deletingFirst, deletingSecond]);
    assert.deepEqual(s.bed.chain.blobObjects(store.address), [], "both deleted");
    assert.equal(scans, 2);
  } finally {
    await proxy.shutdown();
  }
});

Deno.test("WalrusBlobStore: a system object id naming another object, or none, says so and names the setting", async () => {
  await using s = await setup();
  const store = await s.open({
    walrusPackageId: undefined,
    systemObjectId: s.bed.chain.systemObjectId,
  });
  const blobId = await store.put(enc("a blob"), meta(1));
  const [object] = s.bed.chain.blobObjects(store.address);
  for (
    const [systemObjectId, says] of [
      [object.id, / is a 0x[0-9a-f]+::blob::Blob, not Walrus's System/],
      [`0x${"5".repeat(64)}`, /no object has the id 0x5{64}, not Walrus's System/],
    ] as const
  ) {
    const wrong = await s.open({ walrusPackageId: undefined, systemObjectId });
    // An unusable answer, not an outage: a job's attempts count, and it fails saying why.
    await assert.rejects(() => wrong.put(enc("another blob"), meta(2)), (error: unknown) => {
      assert.ok(error instanceof SvcError && error.code === "backend_unavailable");
      assert.equal(error.details.reason, "not_walrus_system");
      assert.match(error.message, says);
      assert.match(error.message, /check SVC_WALRUS_SYSTEM_OBJECT_ID$/);
      return true;
    });
  }
  assert.deepEqual(await store.get(blobId), enc("a blob"));
});
