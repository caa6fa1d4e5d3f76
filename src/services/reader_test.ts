import assert from "node:assert/strict";
import type { BlobStore, Cipher } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { createLogger, silentLogger } from "../log.ts";
import { createReader } from "./reader.ts";

/** A reader over a blob store whose every blob decrypts to "from the blob", counting reads. */
function reader(holdsKeys: boolean) {
  let reads = 0;
  const blobs = {
    get: () => (reads++, Promise.resolve(new Uint8Array([1]))),
  } as unknown as BlobStore;
  const cipher = {
    holdsKeys,
    decrypt: () => Promise.resolve(new TextEncoder().encode("from the blob")),
  } as unknown as Cipher;
  return { reader: createReader({ cipher, blobs, logger: silentLogger }), reads: () => reads };
}

Deno.test("reader: a text handed over is read back without its blob, by its owner only; once its blob is forgotten it is not kept", async () => {
  const { reader: r, reads } = reader(true);
  r.keep("alice", "b1", "I keep bees");
  assert.equal(await r.read("alice", { id: "m1", blobId: "b1" }, {}), "I keep bees");
  assert.equal(reads(), 0);
  assert.ok(r.holds("alice", "b1"));
  // Another owner's read of the same blob goes to the blob (and its cipher).
  assert.equal(await r.read("bob", { id: "m1", blobId: "b1" }, {}), "from the blob");
  assert.equal(reads(), 1);
  // Erased: forgotten, and a text handed over late is not kept.
  r.forget("b2");
  r.keep("alice", "b2", "erased meanwhile");
  assert.equal(r.holds("alice", "b2"), false);
  assert.equal(await r.read("alice", { id: "m2", blobId: "b2" }, {}), "from the blob");
});

Deno.test("reader: with a cipher that decrypts with the caller's key, nothing handed over is kept", async () => {
  const { reader: r, reads } = reader(false);
  r.keep("alice", "b1", "I keep bees");
  assert.equal(r.holds("alice", "b1"), false);
  assert.equal(await r.read("alice", { id: "m1", blobId: "b1" }, {}), "from the blob");
  assert.equal(reads(), 1);
});

Deno.test("reader: a cipher of the caller's key refuses the call, but a memory it calls erased, or another's, is read as nothing", async () => {
  const blobs = { get: () => Promise.resolve(new Uint8Array([1])) } as unknown as BlobStore;
  const refusing = (details: Record<string, string>) =>
    createReader({
      cipher: {
        holdsKeys: false,
        decrypt: () => Promise.reject(new SvcError("forbidden", "Cannot decrypt", { details })),
      } as unknown as Cipher,
      blobs,
      logger: silentLogger,
    });
  const memory = { id: "m1", blobId: "b1" };
  await assert.rejects(refusing({}).read("alice", memory, {}), SvcError);
  assert.equal(await refusing({ reason: "erased" }).read("alice", memory, {}), null);
  // Another memory's or owner's ciphertext: that memory is unreadable, the caller not refused.
  assert.equal(await refusing({ reason: "mismatch" }).read("alice", memory, {}), null);
});

Deno.test("reader: the cipher is asked for the memory read; bytes that do not decrypt are dropped from the blob store's cache, an erased memory's are not", async () => {
  const forgotten: string[] = [];
  const asked: (string | undefined)[] = [];
  const blobs = {
    get: () => Promise.resolve(new Uint8Array([1])),
    forget: (blobId: string) => (forgotten.push(blobId), Promise.resolve()),
  } as unknown as BlobStore;
  const cipher = {
    holdsKeys: false,
    decrypt: (_owner: string, _bytes: Uint8Array, options: { memoryId?: string }) => {
      asked.push(options.memoryId);
      const reason = options.memoryId === "m-erased" ? "erased" : "mismatch";
      return Promise.reject(new SvcError("forbidden", "Cannot decrypt", { details: { reason } }));
    },
  } as unknown as Cipher;
  const r = createReader({ cipher, blobs, logger: silentLogger });
  assert.equal(await r.read("alice", { id: "m1", blobId: "swapped" }, {}), null);
  assert.equal(await r.read("alice", { id: "m-erased", blobId: "erased" }, {}), null);
  r.forget("gone");
  assert.equal(await r.read("alice", { id: "m3", blobId: "gone" }, {}), null);
  assert.deepEqual(asked, ["m1", "m-erased", "m3"]);
  assert.deepEqual(forgotten, ["swapped"], "not the erased memory's, nor the blob erased here");
});

Deno.test("reader: each blob's trouble is logged once; a read that raced its memory's erase logs nothing", async () => {
  let reads = 0;
  const blobs = {
    get: (blobId: string) => {
      reads++;
      return Promise.resolve(["lost", "gone"].includes(blobId) ? null : new Uint8Array([1]));
    },
  } as unknown as BlobStore;
  const cipher = {
    holdsKeys: true,
    decrypt: () => Promise.reject(new SvcError("bad_request", "Cannot decrypt: altered")),
  } as unknown as Cipher;
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const r = createReader({ cipher, blobs, logger });
  for (const blobId of ["altered", "altered", "lost", "lost"]) {
    assert.equal(await r.read("alice", { id: "m1", blobId }, {}), null);
  }
  assert.equal(reads, 4, "each read goes to its blob");
  r.forget("gone");
  assert.equal(await r.read("alice", { id: "m3", blobId: "gone" }, {}), null);
  assert.deepEqual(lines.map(({ level, msg }) => [level, msg]), [
    ["warn", "memory cannot be decrypted"],
    ["warn", "memory has no blob"],
  ]);
});
