import assert from "node:assert/strict";
import {
  deriveAesKey,
  gcmDecrypt,
  gcmEncrypt,
  hkdfMaster,
  IV_BYTES,
  openBytes,
  sealBytes,
} from "./sealing.ts";

const enc = (s: string) => new TextEncoder().encode(s);

async function someKey(): Promise<CryptoKey> {
  const master = await hkdfMaster(crypto.getRandomValues(new Uint8Array(32)));
  return await deriveAesKey(master, "svc-test-v1", "sealing");
}

Deno.test("sealing: gcmEncrypt gives what WebCrypto's AES-GCM gives, so values sealed before still open", async () => {
  const key = await someKey();
  for (const length of [0, 1, 15, 16, 17, 300, 65_536]) {
    const plaintext = crypto.getRandomValues(new Uint8Array(length));
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const aad = enc(`aad ${length}`);
    const web = new Uint8Array(
      await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad }, key, plaintext),
    );
    assert.deepEqual(gcmEncrypt(key, iv, plaintext, aad), web);
    assert.deepEqual(gcmDecrypt(key, iv, web, aad), plaintext);
    // A value sealed by WebCrypto, as versions before wrote them.
    const sealed = new Uint8Array([...iv, ...web]);
    assert.deepEqual(new Uint8Array(await openBytes(key, sealed, aad)), plaintext);
  }
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const rawKey = await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt"]);
  const iv = new Uint8Array(IV_BYTES);
  assert.deepEqual(
    gcmEncrypt(raw, iv, enc("raw key")),
    new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, rawKey, enc("raw key"))),
  );
});

Deno.test("sealing: an altered value, other associated data, another key or a cut tag is refused", async () => {
  const key = await someKey();
  const aad = enc("note:1");
  const sealed = await sealBytes(key, enc("hello"), aad);
  assert.equal(new TextDecoder().decode(await openBytes(key, sealed, aad)), "hello");
  const flipped = sealed.slice();
  flipped[IV_BYTES + 2] ^= 1;
  await assert.rejects(openBytes(key, flipped, aad));
  await assert.rejects(openBytes(key, sealed, enc("note:2")));
  await assert.rejects(openBytes(await someKey(), sealed, aad));
  await assert.rejects(openBytes(key, sealed.subarray(0, sealed.length - 4), aad), "a 12-byte tag");
  await assert.rejects(
    openBytes(key, sealed.subarray(0, IV_BYTES + 10), aad),
    "shorter than a tag",
  );
  const raw = crypto.getRandomValues(new Uint8Array(16));
  assert.throws(() => gcmEncrypt(raw, new Uint8Array(IV_BYTES), enc("x")), "not a 256-bit key");
});

Deno.test("sealing: what it opens has an ArrayBuffer of its own", async () => {
  const key = await someKey();
  const opened = await openBytes(key, await sealBytes(key, enc("exactly this")));
  assert.equal(opened.byteLength, "exactly this".length);
});
