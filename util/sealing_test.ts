import assert from "node:assert/strict";
import {
  chachaOpen,
  chachaSeal,
  deriveAesKey,
  deriveRawKey,
  gcmDecrypt,
  gcmEncrypt,
  hkdfMaster,
  IV_BYTES,
  openBytes,
  sealBytes,
  TAG_BYTES,
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

Deno.test("sealing: ChaCha20-Poly1305 gives RFC 8439's test vector and refuses what was altered", async () => {
  // RFC 8439, section 2.8.2.
  const key = Uint8Array.fromHex(
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
  );
  const nonce = Uint8Array.fromHex("070000004041424344454647");
  const aad = Uint8Array.fromHex("50515253c0c1c2c3c4c5c6c7");
  const plaintext = enc(
    "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the " +
      "future, sunscreen would be it.",
  );
  const ciphertext = Uint8Array.fromHex(
    "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116",
  );
  const tag = Uint8Array.fromHex("1ae10b594f09e26a7e902ecbd0600691");
  const sealed = new Uint8Array([...nonce, ...ciphertext, ...tag]);
  assert.deepEqual(chachaOpen(key, sealed, aad), plaintext);

  const mine = chachaSeal(key, plaintext, aad);
  assert.equal(mine.byteLength, IV_BYTES + plaintext.byteLength + TAG_BYTES);
  assert.notDeepEqual(mine.subarray(0, IV_BYTES), chachaSeal(key, plaintext, aad).subarray(0, 12));
  assert.deepEqual(chachaOpen(key, mine, aad), plaintext);
  assert.deepEqual(chachaOpen(key, chachaSeal(key, new Uint8Array(), aad), aad), new Uint8Array());
  const flipped = mine.slice();
  flipped[IV_BYTES + 3] ^= 1;
  assert.throws(() => chachaOpen(key, flipped, aad));
  assert.throws(() => chachaOpen(key, mine, enc("other")));
  assert.throws(() => chachaOpen(key.toReversed(), mine, aad));
  assert.throws(() => chachaOpen(key, mine.subarray(0, IV_BYTES + 10), aad), /shorter/);
  const derived = await deriveRawKey(await hkdfMaster(key), "svc-test-v1", "chacha");
  assert.equal(derived.byteLength, 32);
  assert.deepEqual(derived, await deriveRawKey(await hkdfMaster(key), "svc-test-v1", "chacha"));
});
