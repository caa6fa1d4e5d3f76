import assert from "node:assert/strict";
import { WalrusClient } from "@mysten/walrus";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { SvcError } from "@svc/relayer/kit";
import { FakeHttpServer } from "../../tests/fixtures/http_endpoint.ts";
import { startSilentServer } from "../../tests/fixtures/silent_server.ts";
import { assertUnavailable, enc, meta, setup } from "./testing/test_store.ts";

Deno.test("WalrusBlobStore: put stores through the publisher with faithful ids and metadata on chain", async () => {
  await using s = await setup();
  const bytes = enc("ciphertext one");
  const blobId = await s.store.put(bytes, meta(1, { sealedVector: "c2VhbGVk_-0" }));
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
    attributes,
    {
      app_id: "svc",
      owner: meta(1).owner,
      namespace: "notes",
      memory_id: "m1",
      created_at: String(meta(1).createdAt),
      sealed_vector: "c2VhbGVk_-0",
    },
  );

  // The official SDK reads the same attributes and knows the Blob type.
  const walrus = new WalrusClient({
    suiClient: new SuiJsonRpcClient({ url: s.bed.sui.url, network: "localnet" }),
    packageConfig: s.bed.chain.packageConfig,
  });
  assert.deepEqual(await walrus.readBlobAttributes({ blobObjectId: object.id }), attributes);
  assert.equal(await walrus.getBlobType(), s.bed.chain.blobType);

  const [listed] = await s.store.list(meta(1).owner, "notes");
  assert.deepEqual(listed, { blobId, meta: meta(1, { sealedVector: "c2VhbGVk_-0" }) });
});

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

Deno.test("WalrusBlobStore: a publisher's redirect is not followed: the blob goes nowhere else (503)", async () => {
  await using s = await setup();
  await using redirecting = FakeHttpServer.start("redirecting publisher", (request) => {
    const { pathname, search } = new URL(request.url);
    const location = s.bed.walrus.publisherUrl + pathname + search;
    return new Response(null, { status: 307, headers: { location } });
  });
  const store = await s.open({ publisherUrl: redirecting.url });
  await assert.rejects(
    () => store.put(enc("secret bytes"), meta(1)),
    (e) => assertUnavailable(e, "secret"),
  );
  assert.equal(redirecting.count("PUT"), 1);
  assert.deepEqual(s.bed.walrus.publisher.requests, [], "the publisher behind was not asked");
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

  const fresh = await s.open({ cacheDir: await s.tempDir() });
  assert.deepEqual(await fresh.get(blobId), bytes);
  assert.equal(reads(), 3, "an empty cache reads from the aggregators");
});

Deno.test("WalrusBlobStore: forget drops a blob's cached copy, so a lie an aggregator told is asked again; the blob stays", async () => {
  await using s = await setup();
  const bytes = enc("honest ciphertext");
  const blobId = await s.store.put(bytes, meta(1));
  const reads = () => s.bed.walrus.aggregators.reduce((n, a) => n + a.count("GET"), 0);
  const served = s.bed.walrus.blobs.get(blobId)!;
  served.bytes = enc("another memory's ciphertext");
  const reader = await s.open({ cacheDir: await s.tempDir() });
  assert.deepEqual(await reader.get(blobId), served.bytes, "the lie, read and cached");
  served.bytes = bytes;
  assert.deepEqual(await reader.get(blobId), enc("another memory's ciphertext"), "from the cache");
  assert.equal(reads(), 1);

  await reader.forget(blobId);
  assert.deepEqual(await reader.get(blobId), bytes, "asked again");
  assert.equal(reads(), 2);
  assert.deepEqual(await reader.get(blobId), bytes);
  assert.equal(reads(), 2, "the honest bytes are cached");
  const listed = await reader.list(meta(1).owner, meta(1).namespace);
  assert.deepEqual(listed.map((entry) => entry.blobId), [blobId], "the blob stays");
  await reader.forget(blobId);
  await reader.forget("not-a-blob-id");
});

Deno.test("WalrusBlobStore: bad metadata is bad_request before anything is stored", async () => {
  await using s = await setup();
  for (
    const bad of [
      meta(1, { createdAt: -1 }),
      meta(1, { sealedVector: "not base64url" }),
      meta(1, { namespace: "n".repeat(20_000) }),
      meta(1, { sealedVector: "A".repeat(120_001) }),
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

Deno.test("WalrusBlobStore: an authenticated publisher gets the bearer token", async () => {
  await using s = await setup({}, { publisherToken: "jwt-token" });
  await s.store.put(enc("with token"), meta(1));
  assert.equal(s.bed.walrus.publisher.requests[0].headers.get("authorization"), "Bearer jwt-token");
});

Deno.test("WalrusBlobStore: a failed metadata write is retried without storing the blob again", async () => {
  await using s = await setup();
  const stored = s.bed.walrus.publisher.count("PUT");
  s.bed.sui.network.outage = 503;
  await assert.rejects(
    () => s.store.put(enc("retried"), meta(1)),
    (e) => assertUnavailable(e, "retried"),
  );
  s.bed.sui.network.outage = null;
  assert.equal(s.bed.walrus.publisher.count("PUT"), stored + 1);
  const blobId = await s.store.put(enc("retried"), meta(1));
  assert.equal(s.bed.walrus.publisher.count("PUT"), stored + 1, "not stored twice");
  const [object] = s.bed.chain.blobObjects(s.store.address);
  assert.equal(s.bed.chain.attributes(object.id)?.memory_id, "m1");
  assert.deepEqual((await s.store.list(meta(1).owner, "notes")).map((e) => e.blobId), [blobId]);
});

Deno.test("WalrusBlobStore: a Sui node that never answers makes put fail with 503 after the deadline", async () => {
  await using s = await setup();
  await using hung = startSilentServer();
  const store = await s.open({ rpcUrl: hung.url, rpcTimeoutMs: 200 });
  const bytes = enc("stored, but the metadata cannot be written");
  await assert.rejects(store.put(bytes, meta(1)), (e) => assertUnavailable(e, "stored"));
  assert.ok(hung.accepted > 0, "the store asked the hung node");
  // The write queue is not stuck: the next put fails the same way instead of waiting forever.
  await assert.rejects(store.put(enc("second"), meta(2)), (e) => assertUnavailable(e, "second"));
});
