import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { VectorRow } from "@svc/relayer/kit";
import { indexPath, type IndexSource, openIndexFile } from "./index_file.ts";
import { SqliteBlockStorage } from "./sqlite_storage.ts";
import { EncryptedVectorStore } from "./mod.ts";
import type { BlockStorage } from "./storage.ts";

const secret = crypto.getRandomValues(new Uint8Array(32));
const DIMENSIONS = 8;

const row = (id: string, seed: number): VectorRow => ({
  id,
  owner: "o",
  namespace: "n",
  blobId: `blob-${id}`,
  createdAt: seed,
  vector: Array.from({ length: DIMENSIONS }, (_, i) => Math.sin(seed * 7 + i)),
  terms: [`term-${id}`],
});

const storeOn = (storage: BlockStorage) =>
  EncryptedVectorStore.open({ storage, secret, model: "test-model", dimensions: DIMENSIONS });

/** Every sealed block `storage` holds now. */
async function sealedBlocks(storage: BlockStorage): Promise<Uint8Array[]> {
  const blocks: Uint8Array[] = [];
  for (const { ref, version } of await storage.headers()) {
    for await (const { bytes } of storage.blocks(ref, version)) if (bytes) blocks.push(bytes);
  }
  return blocks;
}

/** How many of `blocks` the files of the SQLite database at `path` (its log included) hold. */
async function held(path: string, blocks: Uint8Array[]): Promise<number> {
  const files = await Promise.all(
    ["", "-wal"].map((suffix) => Deno.readFile(path + suffix).catch(() => new Uint8Array())),
  );
  const bytes = Buffer.concat(files);
  // A part of each block: a block may span pages that are not next to each other.
  return blocks.filter((block) => bytes.includes(Buffer.from(block.subarray(16, 80)))).length;
}

Deno.test("index.sqlite: once a delete resolves, no earlier version of a block it changed is in any file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const storage = await openIndexFile(dir, "index");
    const store = await storeOn(storage);
    // Blocks written in several commits, so that earlier versions pile up in the log.
    for (let i = 0; i < 40; i++) await store.upsert([row(`m${i}`, i)]);
    const before = await sealedBlocks(storage);
    assert.ok(before.length > 0);
    const path = indexPath(dir, "index");
    assert.ok(await held(path, before) > 0);
    await store.delete(["m3", "m17"]);
    const after = await sealedBlocks(storage);
    const replaced = before.filter((block) =>
      !after.some((kept) => Buffer.compare(kept, block) === 0)
    );
    assert.ok(replaced.length > 0, "the delete rewrote blocks");
    assert.equal(await held(path, replaced), 0);
    assert.equal(await held(path, after), after.length, "the live blocks are there");
    assert.deepEqual([...await store.has(["m3", "m4", "m17"])], ["m4"]);
    await store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * Writes `source` to `path` in the Deno KV layout of earlier versions: each block in two parts,
 * and a block of a change that never committed (its marker and a part), which is not read.
 */
async function writeKvIndex(path: string, source: IndexSource): Promise<void> {
  const kv = await Deno.openKv(path);
  await kv.set(["meta"], await source.meta());
  for (const { ref, header, version } of await source.headers()) {
    await kv.set(["ns", ref.owner, ref.ns], header);
    for await (const { id, bytes } of source.blocks(ref, version)) {
      const half = Math.ceil(bytes!.length / 2);
      await kv.set(["b", ref.ns, id, 2, 0], bytes!.slice(0, half));
      await kv.set(["b", ref.ns, id, 2, 1], bytes!.slice(half));
    }
    await kv.set(["b", ref.ns, "unfinished", 1], { version });
    await kv.set(["b", ref.ns, "unfinished", 1, 0], new Uint8Array(8));
  }
  for await (const { id, ref } of source.locations()) await kv.set(["id", id], [ref.owner, ref.ns]);
  kv.close();
}

Deno.test("index.sqlite: an earlier version's index.kv is moved into it whole at the first open, then deleted", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const storage = await SqliteBlockStorage.open(":memory:");
    const old = await storeOn(storage);
    await old.upsert(Array.from({ length: 30 }, (_, i) => row(`m${i}`, i)));
    const query = row("q", 5).vector;
    const expected = await old.search("o", "n", query, 10);
    await writeKvIndex(`${dir}/index.kv`, storage);
    await old.close();

    const store = await storeOn(await openIndexFile(dir, "index"));
    assert.deepEqual(await store.search("o", "n", query, 10), expected);
    assert.equal(await store.count(), 30);
    await store.close();
    const names = await Array.fromAsync(Deno.readDir(dir), (entry) => entry.name);
    assert.deepEqual(names.filter((name) => name.startsWith("index.kv")), []);
    // Opened again: nothing to move, the same index.
    const again = await storeOn(await openIndexFile(dir, "index"));
    assert.deepEqual(await again.search("o", "n", query, 10), expected);
    await again.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
