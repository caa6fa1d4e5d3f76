/**
 * A manual memory's vector at rest: sealed by the relayer before any blob store sees it (no
 * number of it in the SQLite store's file or in the public Walrus attributes), opened again by
 * restore (same index result), refused when moved or sealed under another secret, and read in
 * clear only from blobs written by 0.1.0.
 */
import assert from "node:assert/strict";
import type { BlobStore } from "../src/backends/types.ts";
import { createLogger } from "../src/log.ts";
import { VectorSeal } from "../src/pipeline/vector_seal.ts";
import { MemoryBlobStore } from "../src/testing/mod.ts";
import { SqliteBlobStore } from "../plugins/sqlite_blob/mod.ts";
import { setup as walrusSetup } from "../plugins/walrus/testing/test_store.ts";
import { type Caller, startTestRelayer, type TestRelayer } from "./fixtures.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** Distinctive numbers (none of them round), and a query that is not the vector itself. */
function vectors(dims: number) {
  return {
    vector: Array.from({ length: dims }, (_, i) => Math.sin(i + 1) / 7),
    query: Array.from({ length: dims }, (_, i) => Math.cos(i) / 5),
  };
}

/** No array of numbers anywhere in `text`, and none of `vector`'s numbers spelled out. */
function assertNoClearVector(text: string, vector: number[]): void {
  assert.doesNotMatch(text, /\[\s*-?\d/, "an array of numbers");
  for (const x of vector) assert.ok(!text.includes(String(x)), `${x} is readable`);
  assert.ok(!text.includes("f64le"), "the 0.1.0 clear encoding");
}

async function rememberManual(t: TestRelayer, caller: Caller, vector: number[]) {
  const res = await t.signed(caller, "POST", "/api/remember/manual", {
    encrypted_data: btoa("client ciphertext"),
    vector,
    namespace: "manual",
  });
  assert.equal(res.status, 200);
  return await res.json() as { id: string; blob_id: string };
}

async function recallManual(t: TestRelayer, caller: Caller, query: number[]) {
  const res = await t.signed(caller, "POST", "/api/recall/manual", {
    vector: query,
    namespace: "manual",
  });
  assert.equal(res.status, 200);
  return (await res.json()).results as { id: string; distance: number }[];
}

async function restore(t: TestRelayer, caller: Caller) {
  const res = await t.signed(caller, "POST", "/api/restore", { namespace: "manual" });
  assert.equal(res.status, 200);
  const { restored, skipped, total } = await res.json();
  return { restored, skipped, total };
}

/** Drops the memory from the index, restores, and checks recall finds it as before. */
async function assertRestoresSame(t: TestRelayer, caller: Caller, id: string, query: number[]) {
  const before = await recallManual(t, caller, query);
  assert.equal(before[0]?.id, id);
  await t.vectors.delete([id]);
  assert.deepEqual(await recallManual(t, caller, query), []);
  assert.deepEqual(await restore(t, caller), { restored: 1, skipped: 0, total: 1 });
  const after = await recallManual(t, caller, query);
  assert.deepEqual(after.map((h) => [h.id, h.distance]), [[id, before[0].distance]]);
}

async function sqliteRelayer() {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/blobs.sqlite`;
  const blobs = await SqliteBlobStore.open({
    path,
    secret: crypto.getRandomValues(new Uint8Array(32)),
  });
  const t = await startTestRelayer({ blobs });
  return {
    t,
    blobs,
    /** The database's files as text (bytes read as Latin-1). */
    async files() {
      const read = (suffix: string) => Deno.readFile(`${path}${suffix}`);
      const bytes = await Promise.all(["", "-wal"].map(read));
      return bytes.map((b) => new TextDecoder("latin1").decode(b)).join("");
    },
    async [Symbol.asyncDispose]() {
      await t[Symbol.asyncDispose]();
      await blobs.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("sealed vector: manual remember on the SQLite store writes no clear vector; restore indexes the same", async () => {
  await using sqlite = await sqliteRelayer();
  const { t } = sqlite;
  const alice = await t.newCaller();
  const { vector, query } = vectors(t.vectors.dimensions);
  const { id, blob_id } = await rememberManual(t, alice, vector);
  const files = await sqlite.files();
  for (const x of vector) assert.ok(!files.includes(String(x)), `${x} is readable`);
  assert.ok(!files.includes("f64le"), "the 0.1.0 clear encoding");
  const entries = await Array.fromAsync(sqlite.blobs.entries());
  const { meta } = entries.find((e) => e.blobId === blob_id)!;
  assert.ok(files.includes(meta.sealedVector!.slice(0, 40)), "the files read hold the row");
  assertNoClearVector(JSON.stringify(meta), vector);
  assert.deepEqual(Object.keys(meta).sort(), [
    "createdAt",
    "memoryId",
    "namespace",
    "owner",
    "sealedAttributes",
    "sealedVector",
  ]);
  await assertRestoresSame(t, alice, id, query);
});

Deno.test("sealed vector: manual remember on Walrus writes no clear vector attribute; restore indexes the same", async () => {
  await using s = await walrusSetup();
  await using t = await startTestRelayer({ blobs: s.store });
  const alice = await t.newCaller();
  const { vector, query } = vectors(t.vectors.dimensions);
  const { id } = await rememberManual(t, alice, vector);
  const [object] = s.bed.chain.blobObjects(s.store.address);
  const attributes = s.bed.chain.attributes(object.id)!;
  assert.ok(attributes.sealed_vector, "the sealed vector is on chain");
  assert.ok(!Object.keys(attributes).some((key) => key.startsWith("vector")));
  assertNoClearVector(JSON.stringify(attributes), vector);
  await assertRestoresSame(t, alice, id, query);
});

Deno.test("sealed vector: restore skips, and logs, a sealed vector moved, altered, of another secret or size", async () => {
  const lines: string[] = [];
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const logger = createLogger("warn", (l) => lines.push(l));
  await using t = await startTestRelayer({ secret, logger });
  const alice = await t.newCaller();
  const { vector, query } = vectors(t.vectors.dimensions);
  const { id } = await rememberManual(t, alice, vector);
  const [{ meta }] = await t.blobs.list(alice.owner, "manual");
  const put = (blobs: BlobStore, memoryId: string, sealedVector: string) =>
    blobs.put(enc(`copy for ${memoryId}`), { ...meta, memoryId, sealedVector });
  const foreign = await VectorSeal.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  const place = { memoryId: "foreign", owner: alice.owner, namespace: "manual" };
  const sealed = meta.sealedVector!;
  await put(t.blobs, "moved", sealed);
  await put(t.blobs, "foreign", await foreign.seal(place, vector));
  const altered = sealed.slice(0, 100) + (sealed[100] === "A" ? "B" : "A") + sealed.slice(101);
  await put(t.blobs, "altered", altered);
  // Sealed by this relayer, but of another size than the index (another embedder's).
  const own = await VectorSeal.fromSecret(secret);
  await put(t.blobs, "resized", await own.seal({ ...place, memoryId: "resized" }, vector.slice(1)));
  await t.vectors.delete([id]);

  assert.deepEqual(await restore(t, alice), { restored: 1, skipped: 4, total: 5 });
  assert.equal((await t.vectors.has(["moved", "foreign", "altered", "resized"])).size, 0);
  assert.deepEqual((await recallManual(t, alice, query)).map((h) => h.id), [id]);
  const logged = lines.map((l) => JSON.parse(l));
  const warned = logged.filter((l) => /does not open/.test(l.msg));
  assert.deepEqual(warned.map((l) => l.memory_id).sort(), ["altered", "foreign", "moved"]);
  const resized = logged.filter((l) => /of another embedder than the index's/.test(l.msg));
  assert.deepEqual(resized.map((l) => l.memory_id), ["resized"]);
  assert.ok(!lines.join("\n").includes(sealed), "the sealed vector is not logged");
});

/** Lists the blobs named in `clear` as 0.1.0 stored them: the vector in clear, nothing sealed. */
class ClearVectorBlobs extends MemoryBlobStore {
  readonly clear = new Map<string, number[]>();

  override async list(owner: string, namespace: string, options?: { limit?: number }) {
    return (await super.list(owner, namespace, options)).map(({ blobId, meta }) => {
      const vector = this.clear.get(blobId);
      if (!vector) return { blobId, meta };
      const { sealedVector: _, ...kept } = meta;
      return { blobId, meta: { ...kept, legacyVector: vector } };
    });
  }
}

Deno.test("sealed vector: a manual memory stored by 0.1.0, its vector in clear, still restores", async () => {
  const blobs = new ClearVectorBlobs();
  await using t = await startTestRelayer({ blobs });
  const alice = await t.newCaller();
  const { vector, query } = vectors(t.vectors.dimensions);
  const { id, blob_id } = await rememberManual(t, alice, vector);
  blobs.clear.set(blob_id, vector);
  await assertRestoresSame(t, alice, id, query);

  // One whose clear vector is of another size than the index is skipped, and the rest goes on.
  const res = await t.signed(alice, "POST", "/api/remember/manual", {
    encrypted_data: btoa("another client ciphertext"),
    vector,
    namespace: "manual",
  });
  const short = await res.json();
  blobs.clear.set(short.blob_id, vector.slice(1));
  await t.vectors.delete([id, short.id]);
  assert.deepEqual(await restore(t, alice), { restored: 1, skipped: 1, total: 2 });
  assert.deepEqual(await t.vectors.has([id, short.id]), new Set([id]));
});
