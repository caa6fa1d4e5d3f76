import assert from "node:assert/strict";
import { type SvcError } from "@svc/relayer/kit";
import { chachaOpen, deriveAesKey, deriveRawKey, gcmEncrypt, hkdfMaster } from "@svc/util/sealing";
import { BLOCK_MAGIC, IndexKeys } from "./keys.ts";

const secret = new Uint8Array(32).fill(7);
const plain = () => new TextEncoder().encode("rows of a block ".repeat(300));
const internal = (error: SvcError) => error.code === "internal";

Deno.test("index keys: a block is sealed with ChaCha20-Poly1305 behind the magic, bound to its namespace and id", async () => {
  const keys = await IndexKeys.derive(secret);
  const ref = await keys.ref("owner", "notes");
  const sealed = await keys.sealBlock(ref, "b1", plain());
  assert.deepEqual(sealed.subarray(0, 4), BLOCK_MAGIC);
  assert.deepEqual(new Uint8Array(await keys.openBlock(ref, "b1", sealed)), plain());
  // The namespace's key, as HKDF derives it from the secret.
  const key = await deriveRawKey(
    await hkdfMaster(secret),
    "svc-encrypted-index-v1",
    `chacha ${ref.ns}`,
  );
  const opened = chachaOpen(key, sealed.subarray(4), new TextEncoder().encode("block b1"));
  assert.deepEqual(opened, plain());

  const other = await keys.ref("owner", "other");
  await assert.rejects(keys.openBlock(ref, "b2", sealed), internal);
  await assert.rejects(keys.openBlock(other, "b1", sealed), internal);
  const flipped = sealed.slice();
  flipped[100] ^= 1;
  await assert.rejects(keys.openBlock(ref, "b1", flipped), internal);
  const elsewhere = await IndexKeys.derive(new Uint8Array(32).fill(8));
  await assert.rejects(elsewhere.openBlock(ref, "b1", sealed), internal);
});

Deno.test("index keys: blocks format 2 sealed with AES-GCM still open, even when their IV begins with the magic", async () => {
  const keys = await IndexKeys.derive(secret);
  const ref = await keys.ref("owner", "notes");
  const older = await keys.seal(ref, "block b1", plain());
  assert.deepEqual(new Uint8Array(await keys.openBlock(ref, "b1", older)), plain());
  // Format 2's key for the namespace, and an IV that happens to begin with the magic.
  const aes = await deriveAesKey(
    await hkdfMaster(secret),
    "svc-encrypted-index-v1",
    `block ${ref.ns}`,
  );
  const iv = new Uint8Array([...BLOCK_MAGIC, 1, 2, 3, 4, 5, 6, 7, 8]);
  const sealed = new Uint8Array([
    ...iv,
    ...gcmEncrypt(aes, iv, plain(), new TextEncoder().encode("block b1")),
  ]);
  assert.deepEqual(new Uint8Array(await keys.openBlock(ref, "b1", sealed)), plain());
  await assert.rejects(keys.openBlock(ref, "b2", sealed), internal);
});
