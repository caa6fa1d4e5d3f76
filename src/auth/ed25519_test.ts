import assert from "node:assert/strict";
import { Ed25519Verifier, verifyEd25519 } from "./ed25519.ts";
import { generateKeyPair, keyPairFromSeed } from "./keys.ts";

// RFC 8032, section 7.1, test 2: a one-byte message.
const PUBLIC_KEY = "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";
const MESSAGE = Uint8Array.fromHex("72");
const SIGNATURE = "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da" +
  "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00";

Deno.test("ed25519: accepts the RFC 8032 vector, as hex or bytes, either hex case", async () => {
  assert.equal(await verifyEd25519(PUBLIC_KEY, SIGNATURE, MESSAGE), true);
  assert.equal(
    await verifyEd25519(Uint8Array.fromHex(PUBLIC_KEY), Uint8Array.fromHex(SIGNATURE), MESSAGE),
    true,
  );
  assert.equal(
    await verifyEd25519(PUBLIC_KEY.toUpperCase(), SIGNATURE.toUpperCase(), MESSAGE),
    true,
  );
});

Deno.test("ed25519: a text message is verified as its UTF-8 bytes", async () => {
  const pair = await keyPairFromSeed("11".repeat(32));
  const text = "svc-dashboard:namespaces:1700000000 ✓";
  const signature = new Uint8Array(
    await crypto.subtle.sign("Ed25519", pair.signingKey, new TextEncoder().encode(text)),
  );
  assert.equal(await verifyEd25519(pair.publicKey, signature.toHex(), text), true);
  assert.equal(
    await verifyEd25519(pair.publicKey, signature, new TextEncoder().encode(text)),
    true,
  );
});

Deno.test("ed25519: refuses another key, a tampered message or signature", async () => {
  const other = await generateKeyPair();
  assert.equal(await verifyEd25519(other.publicKey, SIGNATURE, MESSAGE), false);
  assert.equal(await verifyEd25519(PUBLIC_KEY, SIGNATURE, Uint8Array.fromHex("73")), false);
  // A text message is its UTF-8 bytes ("r" is 0x72), never hex.
  assert.equal(await verifyEd25519(PUBLIC_KEY, SIGNATURE, "r"), true);
  assert.equal(await verifyEd25519(PUBLIC_KEY, SIGNATURE, "72"), false);
  const flipped = Uint8Array.fromHex(SIGNATURE);
  flipped[10] ^= 1;
  assert.equal(await verifyEd25519(PUBLIC_KEY, flipped, MESSAGE), false);
});

Deno.test("ed25519: malformed keys and signatures are false, never an exception", async () => {
  const cases: [string | Uint8Array<ArrayBuffer>, string | Uint8Array<ArrayBuffer>][] = [
    ["zz" + PUBLIC_KEY.slice(2), SIGNATURE],
    [PUBLIC_KEY.slice(2), SIGNATURE],
    [PUBLIC_KEY + "00", SIGNATURE],
    ["", SIGNATURE],
    [PUBLIC_KEY, SIGNATURE.slice(1)],
    [PUBLIC_KEY, "g" + SIGNATURE.slice(1)],
    [PUBLIC_KEY, ""],
    [new Uint8Array(31), SIGNATURE],
    [PUBLIC_KEY, new Uint8Array(65)],
    [" " + PUBLIC_KEY.slice(1), SIGNATURE],
  ];
  for (const [publicKey, signature] of cases) {
    assert.equal(await verifyEd25519(publicKey, signature, MESSAGE), false, `${publicKey}`);
  }
});

Deno.test("Ed25519Verifier: the same answers as verifyEd25519, keeping at most maxKeys imported keys", async () => {
  const verifier = new Ed25519Verifier(3);
  const pairs = await Promise.all(Array.from({ length: 5 }, () => generateKeyPair()));
  const message = new TextEncoder().encode("svc");
  const signatures = await Promise.all(
    pairs.map(async (pair) =>
      new Uint8Array(await crypto.subtle.sign("Ed25519", pair.signingKey, message))
    ),
  );
  for (let round = 0; round < 2; round++) {
    for (const [i, pair] of pairs.entries()) {
      assert.equal(await verifier.verify(pair.publicKey, signatures[i], message), true);
      // Another signer's signature, under a key already kept: still refused.
      const other = signatures[(i + 1) % pairs.length];
      assert.equal(await verifier.verify(pair.publicKey, other, message), false);
      assert.equal(await verifier.verify(pair.publicKey.toUpperCase(), signatures[i], "svc"), true);
      assert.ok(verifier.size <= 3, `${verifier.size} keys kept`);
    }
  }
  assert.equal(await verifier.verify(PUBLIC_KEY, SIGNATURE, MESSAGE), true);
  assert.equal(await verifier.verify("zz" + PUBLIC_KEY.slice(2), SIGNATURE, MESSAGE), false);
  assert.equal(await verifier.verify(new Uint8Array(32), SIGNATURE, MESSAGE), false);
  assert.equal(verifier.size, 3);
});
