import assert from "node:assert/strict";
import { WalrusClient } from "@mysten/walrus";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { attributesToMeta, metaToAttributes } from "./attributes.ts";
import { assertUnavailable, enc, meta, setup } from "./testing/test_store.ts";

Deno.test("WalrusBlobStore: list reads the chain, newest first, one entry per blob id", async () => {
  await using s = await setup();
  const owner = meta(0).owner, other = "0x" + "b".repeat(64);
  for (
    const [i, o, ns] of [[1, owner, "n"], [3, owner, "n"], [2, owner, "n"], [4, owner, "x"], [
      5,
      other,
      "n",
    ]] as const
  ) {
    await s.store.put(enc(`blob ${i}`), meta(i, { owner: o, namespace: ns }));
  }
  await s.store.put(enc("blob 1"), meta(9)); // the same bytes again: same id, first metadata wins
  const objects = s.bed.chain.blobObjects(s.store.address);
  assert.equal(objects.length, 6, "one Blob object per store, all the operator's");
  assert.ok(objects.every((o) => s.bed.chain.attributes(o.id)?.app_id === "svc"));

  const listed = await s.store.list(owner, "n");
  assert.deepEqual(listed.map((e) => e.meta.memoryId), ["m3", "m2", "m1"]);
  assert.deepEqual(await s.store.get(listed[0].blobId), enc("blob 3"));
  assert.deepEqual((await s.store.list(owner, "n", { limit: 2 })).map((e) => e.meta.memoryId), [
    "m3",
    "m2",
  ]);
  assert.deepEqual(await s.store.list("0x" + "c".repeat(64), "n"), []);

  // A fresh process (empty attribute cache) reads the same from the chain.
  const calls = s.bed.sui.network.calls.length;
  const restarted = await s.open({ cacheDir: await s.tempDir() });
  assert.deepEqual(await restarted.list(owner, "n"), listed);
  const used = s.bed.sui.network.calls.slice(calls);
  assert.deepEqual([...new Set(used)].sort(), ["sui_multiGetObjects", "suix_getOwnedObjects"]);
  assert.equal(
    used.filter((m) => m === "sui_multiGetObjects").length,
    1,
    "fields read in one batch",
  );

  // A blob object without attributes, or another app's blobs, are not listed.
  const bare = await fetch(
    `${s.bed.walrus.publisherUrl}/v1/blobs?send_object_to=${s.store.address}`,
    {
      method: "PUT",
      body: "no attributes",
    },
  );
  assert.ok((await bare.json()).newlyCreated);
  assert.deepEqual(await s.store.list(owner, "n"), listed);
  const foreign = await s.open({ appId: "other-app" });
  assert.deepEqual(await foreign.list(owner, "n"), []);
});

Deno.test("WalrusBlobStore: attributes written by the official SDK are listed", async () => {
  await using s = await setup();
  const blobId = await s.store.put(enc("sdk"), meta(1));
  const [object] = s.bed.chain.blobObjects(s.store.address);
  const sui = new SuiJsonRpcClient({ url: s.bed.sui.url, network: "localnet" });
  const walrus = new WalrusClient({ suiClient: sui, packageConfig: s.bed.chain.packageConfig });
  const signer = Ed25519Keypair.fromSecretKey(s.bed.operatorKey);
  // The SDK builds the transaction (reading the existing attributes first); the JSON-RPC client
  // signs and executes it.
  const transaction = await walrus.writeBlobAttributesTransaction({
    blobObjectId: object.id,
    attributes: { namespace: "moved", extra: "kept" },
  });
  const result = await sui.signAndExecuteTransaction({
    transaction,
    signer,
    options: { showEffects: true },
  });
  assert.equal(result.effects?.status.status, "success");
  assert.deepEqual(s.bed.chain.attributes(object.id)?.extra, "kept");
  const restarted = await s.open();
  assert.deepEqual(await restarted.list(meta(1).owner, "notes"), []);
  assert.deepEqual(await restarted.list(meta(1).owner, "moved"), [
    { blobId, meta: meta(1, { namespace: "moved" }) },
  ]);
});

Deno.test("WalrusBlobStore: concurrent puts share metadata transactions", async () => {
  await using s = await setup();
  const executed = () =>
    s.bed.sui.network.calls.filter((m) => m === "sui_executeTransactionBlock").length;
  const ids = await Promise.all(
    Array.from({ length: 6 }, (_, i) => s.store.put(enc(`concurrent ${i}`), meta(i))),
  );
  assert.equal(new Set(ids).size, 6);
  assert.ok(executed() < 6, `${executed()} transactions for 6 puts`);
  assert.equal((await s.store.list(meta(0).owner, "notes")).length, 6);
});

Deno.test("WalrusBlobStore: the chain down is backend_unavailable for put and list", async () => {
  await using s = await setup();
  s.bed.sui.network.outage = 503;
  await assert.rejects(
    () => s.store.put(enc("secret bytes"), meta(1)),
    (e) => assertUnavailable(e, "secret"),
  );
  await assert.rejects(
    () => s.store.list(meta(1).owner, "notes"),
    (e) => assertUnavailable(e, "x"),
  );
  s.bed.sui.network.outage = null;
});

Deno.test("WalrusBlobStore: a long sealed vector is split across attributes and read back exactly", async () => {
  await using s = await setup();
  // A 3,072-dimension vector sealed as float64 (nonce, ciphertext, tag): 32,796 bytes.
  const sealedVector = crypto.getRandomValues(new Uint8Array(32_796))
    .toBase64({ alphabet: "base64url", omitPadding: true });
  await s.store.put(enc("long vector"), meta(1, { sealedVector }));
  const [object] = s.bed.chain.blobObjects(s.store.address);
  const attributes = s.bed.chain.attributes(object.id)!;
  assert.ok(attributes.sealed_vector_1 && attributes.sealed_vector_2, "split in chunks");
  assert.ok(Object.values(attributes).every((v) => v.length <= 15_000));
  assert.ok(!Object.keys(attributes).some((key) => key.startsWith("vector")), "no clear vector");
  const restarted = await s.open();
  const [entry] = await restarted.list(meta(1).owner, "notes");
  assert.equal(entry.meta.sealedVector, sealedVector);
});

Deno.test("WalrusBlobStore: a sealed vector is not kept in the attribute cache but read again for the entries listed", async () => {
  await using s = await setup();
  const sealedVector = crypto.getRandomValues(new Uint8Array(20_000))
    .toBase64({ alphabet: "base64url", omitPadding: true });
  await s.store.put(enc("sealed"), meta(1, { sealedVector }));
  const restarted = await s.open();
  const [first] = await restarted.list(meta(1).owner, "notes");
  assert.equal(first.meta.sealedVector, sealedVector);
  const calls = s.bed.sui.network.calls.length;
  const [again] = await restarted.list(meta(1).owner, "notes");
  assert.equal(again.meta.sealedVector, sealedVector);
  assert.ok(
    s.bed.sui.network.calls.slice(calls).includes("sui_multiGetObjects"),
    "the vector is read from the chain, not the cache",
  );
});

Deno.test("WalrusBlobStore: a legacy clear vector (written up to 0.1.0) is read as legacyVector", () => {
  // What 0.1.0 wrote: `vector` = "f64le:" + base64 of the float64 values, continued in vector_1…
  const vector = Array.from({ length: 3072 }, (_, i) => Math.sin(i) / 3);
  const view = new DataView(new ArrayBuffer(vector.length * 8));
  vector.forEach((x, i) => view.setFloat64(i * 8, x, true));
  const text = "f64le:" + new Uint8Array(view.buffer).toBase64();
  const attributes: Record<string, string> = Object.fromEntries(
    metaToAttributes(meta(1), "svc"),
  );
  for (let at = 0, part = 0; at < text.length; at += 15_000, part++) {
    attributes[part === 0 ? "vector" : `vector_${part}`] = text.slice(at, at + 15_000);
  }
  assert.deepEqual(attributesToMeta(attributes, "svc"), meta(1, { legacyVector: vector }));
  attributes.vector = "f64le:%%%";
  assert.equal(attributesToMeta(attributes, "svc"), null, "an unreadable one is not svc's");
});

Deno.test("WalrusBlobStore: with the System object id, calls follow a package upgrade", async () => {
  await using s = await setup();
  const before = await s.store.put(enc("before the upgrade"), meta(1));
  const upgraded = s.bed.chain.upgrade();
  const store = await s.open({
    walrusPackageId: undefined,
    systemObjectId: s.bed.chain.systemObjectId,
  });
  const calls = s.bed.chain.calls.length;
  const after = await store.put(enc("after the upgrade"), meta(2));
  const used = s.bed.chain.calls.slice(calls);
  assert.ok(used.length > 0 && used.every((c) => c.startsWith(`${upgraded}::`)), used.join());
  assert.deepEqual((await store.list(meta(1).owner, "notes")).map((e) => e.blobId), [
    after,
    before,
  ]);

  // The package id alone names the new package, whose id is not the Blob type's: nothing is found.
  const byPackage = await s.open({ walrusPackageId: upgraded, cacheDir: await s.tempDir() });
  assert.deepEqual(await byPackage.list(meta(1).owner, "notes"), []);
});

Deno.test("WalrusBlobStore: metadata transactions pay with one coin and leave the others alone", async () => {
  await using s = await setup();
  const sui = s.bed.sui.network;
  sui.mintGas(s.store.address, 5_000_000_000n);
  sui.mintGas(s.store.address, 7_000_000_000n);
  const balances = () =>
    new Map(
      sui.ownedObjects(s.store.address)
        .filter((o) => o.type.includes("::coin::Coin<"))
        .map((c) => [c.id, BigInt((c.fields as { balance: string }).balance)]),
    );
  const before = balances();
  assert.equal(before.size, 3);
  await s.store.put(enc("paid"), meta(1));
  const after = balances();
  assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort(), "no coin merged away");
  const spent = [...after].filter(([id, balance]) => balance !== before.get(id));
  assert.equal(spent.length, 1, "one coin paid");
  assert.equal(before.get(spent[0][0]), 40_000_000_000n, "the richest one");
});
