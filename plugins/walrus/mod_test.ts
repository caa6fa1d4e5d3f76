import assert from "node:assert/strict";
import { WalrusClient } from "@mysten/walrus";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { SvcError } from "../../src/errors.ts";
import type { BlobMeta } from "../../src/backends/types.ts";
import { startWalrusTestbed, type WalrusTestbed } from "../../tests/fixtures/walrus_network.ts";
import { WalrusBlobStore, type WalrusBlobStoreOptions } from "./mod.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const meta = (i: number, extra: Partial<BlobMeta> = {}): BlobMeta => ({
  owner: "0x" + "a".repeat(64),
  namespace: "notes",
  memoryId: `m${i}`,
  createdAt: 1_700_000_000_000 + i,
  ...extra,
});

interface Setup extends AsyncDisposable {
  bed: WalrusTestbed;
  store: WalrusBlobStore;
  cacheDir: string;
  open(extra?: Partial<WalrusBlobStoreOptions>): Promise<WalrusBlobStore>;
}

async function setup(
  options: { aggregators?: number } = {},
  extra: Partial<WalrusBlobStoreOptions> = {},
): Promise<Setup> {
  const bed = await startWalrusTestbed({ aggregators: options.aggregators ?? 2 });
  const cacheDir = await Deno.makeTempDir();
  const open = (more: Partial<WalrusBlobStoreOptions> = {}) =>
    WalrusBlobStore.open({
      publisherUrl: bed.walrus.publisherUrl,
      aggregatorUrls: bed.walrus.aggregatorUrls,
      epochs: 3,
      cacheDir,
      rpcUrl: bed.sui.url,
      walrusPackageId: bed.chain.packageId,
      operatorKey: bed.operatorKey,
      hedgeMs: 100,
      ...extra,
      ...more,
    });
  const store = await open();
  return {
    bed,
    store,
    cacheDir,
    open,
    async [Symbol.asyncDispose]() {
      await bed.close();
      await Deno.remove(cacheDir, { recursive: true });
    },
  };
}

Deno.test("WalrusBlobStore: put stores through the publisher with faithful ids and metadata on chain", async () => {
  await using s = await setup();
  const bytes = enc("ciphertext one");
  const blobId = await s.store.put(bytes, meta(1, { vector: [0.25, -1, 1e-300] }));
  assert.equal(blobId, await s.bed.walrus.blobIdOf(bytes), "the real Walrus blob id");
  const [put] = s.bed.walrus.publisher.requests;
  const query = new URL(put.path, "http://x").searchParams;
  assert.equal(put.method, "PUT");
  assert.equal(query.get("epochs"), "3");
  assert.equal(query.get("deletable"), "true");
  assert.equal(query.get("send_object_to"), s.store.address);

  const [object] = s.bed.chain.blobObjects(s.store.address);
  assert.ok(object, "the Blob object was sent to the operator");
  const attributes = s.bed.chain.attributes(object.id);
  assert.deepEqual(
    { ...attributes, vector: undefined },
    {
      app_id: "svc",
      owner: meta(1).owner,
      namespace: "notes",
      memory_id: "m1",
      created_at: String(meta(1).createdAt),
      vector: undefined,
    },
  );
  assert.match(attributes!.vector, /^f64le:/);

  // The official SDK reads the same attributes and knows the Blob type.
  const walrus = new WalrusClient({
    suiClient: new SuiJsonRpcClient({ url: s.bed.sui.url, network: "localnet" }),
    packageConfig: s.bed.chain.packageConfig,
  });
  assert.deepEqual(await walrus.readBlobAttributes({ blobObjectId: object.id }), attributes);
  assert.equal(await walrus.getBlobType(), s.bed.chain.blobType);

  const [listed] = await s.store.list(meta(1).owner, "notes");
  assert.deepEqual(listed, { blobId, meta: meta(1, { vector: [0.25, -1, 1e-300] }) });
});

/** Asserts a `backend_unavailable` error naming Walrus and leaking no bytes. */
function assertUnavailable(error: unknown, secret: string): true {
  assert.ok(error instanceof SvcError);
  assert.equal(error.code, "backend_unavailable");
  assert.equal(error.status, 503);
  assert.match(error.message, /^Cannot .*Walrus/);
  assert.ok(!error.message.includes(secret));
  return true;
}

Deno.test("WalrusBlobStore: the first aggregator down, the second serves the read", async () => {
  await using s = await setup({}, { hedgeMs: 10_000 });
  const bytes = enc("served by the second");
  const blobId = await s.bed.walrus.seed(bytes);
  const [first, second] = s.bed.walrus.aggregators;
  await first.setDown("refused");
  assert.deepEqual(await s.store.get(blobId), bytes);
  assert.equal(second.count("GET", "/v1/blobs/"), 1);

  first.setUp();
  await first.setDown("unavailable");
  const other = await s.bed.walrus.seed(enc("another"));
  assert.deepEqual(await s.store.get(other), enc("another"));
  assert.equal(first.count("GET", "/v1/blobs/"), 1, "tried first, answered 503");
  assert.equal(second.count("GET", "/v1/blobs/"), 2);
});

Deno.test("WalrusBlobStore: every aggregator down is backend_unavailable; unknown ids are null", async () => {
  await using s = await setup({ aggregators: 3 });
  const blobId = await s.bed.walrus.seed(enc("secret bytes"));
  assert.equal(await s.store.get(await s.bed.walrus.blobIdOf(enc("never stored"))), null);
  for (const aggregator of s.bed.walrus.aggregators) {
    assert.equal(aggregator.count("GET"), 1, "every aggregator was asked before saying null");
  }
  const [a, b, c] = s.bed.walrus.aggregators;
  await a.setDown("refused");
  await b.setDown("unavailable");
  await c.setDown("refused");
  await assert.rejects(() => s.store.get(blobId), (e) => assertUnavailable(e, "secret"));
});

Deno.test("WalrusBlobStore: malformed blob ids are null without a network call", async () => {
  await using s = await setup();
  for (const id of ["../../etc/passwd", "", "A".repeat(42), "A".repeat(44), "_".repeat(43)]) {
    assert.equal(await s.store.get(id), null, id);
  }
  assert.equal(s.bed.walrus.aggregators[0].requests.length, 0);
  assert.equal(s.bed.walrus.aggregators[1].requests.length, 0);
});

Deno.test("WalrusBlobStore: publisher down is backend_unavailable, with nothing on chain", async () => {
  await using s = await setup();
  await s.bed.walrus.publisher.setDown("unavailable");
  await assert.rejects(
    () => s.store.put(enc("secret bytes"), meta(1)),
    (e) => assertUnavailable(e, "secret"),
  );
  await s.bed.walrus.publisher.setDown("refused");
  await assert.rejects(
    () => s.store.put(enc("secret bytes"), meta(1)),
    (e) => assertUnavailable(e, "secret"),
  );
  assert.deepEqual(s.bed.chain.blobObjects(s.store.address), []);
  s.bed.walrus.publisher.setUp();
  assert.match(await s.store.put(enc("secret bytes"), meta(1)), /^[A-Za-z0-9_-]{43}$/);
});

Deno.test("WalrusBlobStore: a slow first aggregator loses the race to the second", async () => {
  await using s = await setup({}, { hedgeMs: 50 });
  const bytes = enc("raced");
  const blobId = await s.bed.walrus.seed(bytes);
  const [slow, fast] = s.bed.walrus.aggregators;
  slow.latencyMs = 60_000;
  assert.deepEqual(await s.store.get(blobId), bytes);
  assert.equal(slow.count("GET"), 1, "the first aggregator was asked first");
  assert.equal(slow.answered, 0, "and had not answered when the read returned");
  assert.equal(fast.answered, 1);
});

Deno.test("WalrusBlobStore: cached reads do not reach the aggregators; a corrupt cache file is re-fetched", async () => {
  await using s = await setup();
  const bytes = enc("cached ciphertext");
  const blobId = await s.store.put(bytes, meta(1));
  const reads = () => s.bed.walrus.aggregators.reduce((n, a) => n + a.count("GET"), 0);
  assert.deepEqual(await s.store.get(blobId), bytes);
  assert.equal(reads(), 0, "a stored blob is cached");
  const reopened = await s.open();
  assert.deepEqual(await reopened.get(blobId), bytes);
  assert.equal(reads(), 0, "the cache survives a restart");

  const path = `${s.cacheDir}/${blobId.slice(0, 2)}/${blobId}`;
  const file = await Deno.readFile(path);
  file[file.length - 1] ^= 1;
  await Deno.writeFile(path, file);
  assert.deepEqual(await s.store.get(blobId), bytes, "the corrupt file is not served");
  assert.equal(reads(), 1);
  assert.deepEqual(await s.store.get(blobId), bytes);
  assert.equal(reads(), 1, "the re-fetched bytes are cached again");

  await Deno.writeFile(path, new Uint8Array(5));
  assert.deepEqual(await s.store.get(blobId), bytes, "a truncated file is not served");
  assert.equal(reads(), 2);

  const fresh = await s.open({ cacheDir: await Deno.makeTempDir() });
  assert.deepEqual(await fresh.get(blobId), bytes);
  assert.equal(reads(), 3, "an empty cache reads from the aggregators");
});

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
  const restarted = await s.open({ cacheDir: await Deno.makeTempDir() });
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
  const { Ed25519Keypair } = await import("@mysten/sui/keypairs/ed25519");
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

Deno.test("WalrusBlobStore: bad metadata is bad_request before anything is stored", async () => {
  await using s = await setup();
  for (
    const bad of [
      meta(1, { createdAt: -1 }),
      meta(1, { vector: [1, Number.NaN] }),
      meta(1, { namespace: "n".repeat(20_000) }),
      meta(1, { vector: Array(20_000).fill(0.5) }),
    ]
  ) {
    await assert.rejects(() => s.store.put(enc("x"), bad), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, "bad_request");
      return true;
    });
  }
  assert.equal(s.bed.walrus.publisher.requests.length, 0);
});

Deno.test("WalrusBlobStore: a long vector is split across attributes and read back exactly", async () => {
  await using s = await setup();
  const vector = Array.from({ length: 3072 }, (_, i) => Math.sin(i) / 3);
  await s.store.put(enc("long vector"), meta(1, { vector }));
  const [object] = s.bed.chain.blobObjects(s.store.address);
  const attributes = s.bed.chain.attributes(object.id)!;
  assert.ok(attributes.vector_1 && attributes.vector_2, "split in chunks");
  assert.ok(Object.values(attributes).every((v) => v.length <= 15_000));
  const restarted = await s.open();
  const [entry] = await restarted.list(meta(1).owner, "notes");
  assert.deepEqual(entry.meta.vector, vector);
});

Deno.test("WalrusBlobStore: an authenticated publisher gets the bearer token", async () => {
  await using s = await setup({}, { publisherToken: "jwt-token" });
  await s.store.put(enc("with token"), meta(1));
  assert.equal(s.bed.walrus.publisher.requests[0].headers.get("authorization"), "Bearer jwt-token");
});
