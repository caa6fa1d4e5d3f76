/**
 * Manual remember by `blob_id` (the reference TypeScript SDK's form): the client stored the blob
 * itself, on Walrus, and registers it under its vector; where the store has no such blob, a 400.
 */
import assert from "node:assert/strict";
import { WalrusBlobStore } from "../plugins/walrus/mod.ts";
import { startWalrusTestbed, walrusStoreOptions } from "./fixtures/walrus_network.ts";
import { startTestRelayer } from "./fixtures.ts";

async function errorOf(res: Response): Promise<[number, string, string]> {
  const { code, error } = await res.json();
  return [res.status, code, error];
}

Deno.test("manual remember by blob_id: a blob the client put on Walrus is stored, recalled and erased", async () => {
  await using bed = await startWalrusTestbed();
  const cacheDir = await Deno.makeTempDir();
  try {
    const blobs = await WalrusBlobStore.open(walrusStoreOptions(bed, cacheDir));
    await using t = await startTestRelayer({ blobs });
    const alice = await t.newCaller();
    const vector = Array.from({ length: t.vectors.dimensions }, (_, i) => (i === 5 ? 1 : 0));
    const blobId = await bed.walrus.seed(new TextEncoder().encode("sealed by the client"));

    const res = await t.signed(alice, "POST", "/api/remember/manual", {
      blob_id: blobId,
      vector,
      namespace: "own",
    });
    assert.equal(res.status, 200);
    const stored = await res.json();
    assert.equal(stored.blob_id, blobId, "the same bytes, so the same Walrus id");
    assert.equal(stored.namespace, "own");
    const found = await t.signed(alice, "POST", "/api/recall/manual", { vector, namespace: "own" });
    assert.deepEqual((await found.json()).results.map((r: { id: string }) => r.id), [stored.id]);
    const listed = await blobs.list(alice.owner, "own");
    assert.deepEqual(listed.map((entry) => entry.meta.memoryId), [stored.id]);

    assert.equal((await t.signed(alice, "DELETE", `/api/memories/${stored.id}`)).status, 200);
    const after = await t.signed(alice, "POST", "/api/recall/manual", { vector, namespace: "own" });
    assert.equal((await after.json()).total, 0);
  } finally {
    await Deno.remove(cacheDir, { recursive: true });
  }
});

Deno.test("manual remember by blob_id: an id the store does not hold is a 400 that stores nothing", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const vector = Array.from({ length: t.vectors.dimensions }, (_, i) => (i === 5 ? 1 : 0));
  const manual = (body: object) =>
    t.signed(alice, "POST", "/api/remember/manual", { vector, namespace: "own", ...body });

  const [status, code, error] = await errorOf(await manual({ blob_id: "A".repeat(43) }));
  assert.deepEqual([status, code], [400, "bad_request"]);
  assert.match(error, /No blob with that blob_id .* send encrypted_data instead/);
  assert.equal((await t.blobs.list(alice.owner, "own")).length, 0);

  const both = await errorOf(await manual({ blob_id: "A".repeat(43), encrypted_data: "YQ==" }));
  assert.deepEqual(both, [400, "bad_request", "Send one of encrypted_data and blob_id, not both"]);
  const odd = await errorOf(await manual({ blob_id: "../etc/passwd" }));
  assert.deepEqual(odd.slice(0, 2), [400, "bad_request"]);
  assert.match(odd[2], /blob_id must be a blob id/);

  // An id another memory's blob has: the bytes belong to that memory (409, as for the bytes).
  const first = await (await manual({ encrypted_data: btoa("ciphertext") })).json();
  const again = await errorOf(await manual({ blob_id: first.blob_id, namespace: "other" }));
  assert.deepEqual(again.slice(0, 2), [409, "conflict"]);
  const found = await t.signed(alice, "POST", "/api/recall/manual", { vector, namespace: "other" });
  assert.equal((await found.json()).total, 0);
});

Deno.test("manual remember by blob_id: a blob larger than a manual memory may be is a 413", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const vector = Array.from({ length: t.vectors.dimensions }, (_, i) => (i === 5 ? 1 : 0));
  const big = new Uint8Array(2 * 1024 * 1024 + 1);
  const blobId = await t.blobs.put(big, {
    owner: alice.owner,
    namespace: "own",
    memoryId: "0190e3c4-0000-7000-8000-000000000009",
    createdAt: 1,
  });
  const res = await t.signed(alice, "POST", "/api/remember/manual", { blob_id: blobId, vector });
  const [status, code] = await errorOf(res);
  assert.deepEqual([status, code], [413, "payload_too_large"]);
});
