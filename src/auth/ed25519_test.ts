import assert from "node:assert/strict";
import { Ed25519Verifier, isSmallOrderKey, verifyEd25519 } from "@svc/util/ed25519";
import { generateKeyPair, keyPairFromSeed } from "@svc/util/keys";

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
  const signature = pair.sign(new TextEncoder().encode(text));
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
  // Not a string nor bytes at all, as a caller without types could pass.
  for (const wrong of [undefined, null, 42, {}, [1, 2, 3]]) {
    const value = wrong as unknown as string;
    assert.equal(await verifyEd25519(value, SIGNATURE, MESSAGE), false, `key ${wrong}`);
    assert.equal(await verifyEd25519(PUBLIC_KEY, value, MESSAGE), false, `signature ${wrong}`);
  }
});

Deno.test("Ed25519Verifier: the same answers as verifyEd25519, keeping at most maxKeys imported keys", async () => {
  const verifier = new Ed25519Verifier(3);
  const pairs = await Promise.all(Array.from({ length: 5 }, () => generateKeyPair()));
  const message = new TextEncoder().encode("svc");
  const signatures = pairs.map((pair) => pair.sign(message));
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

/** WebCrypto's answer, the reference the verifier must agree with. */
async function webCryptoVerifies(
  publicKey: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer>,
  message: Uint8Array<ArrayBuffer>,
) {
  try {
    const key = await crypto.subtle.importKey("raw", publicKey, "Ed25519", false, ["verify"]);
    return await crypto.subtle.verify("Ed25519", key, signature, message);
  } catch {
    return false;
  }
}

/** `n` as 32 little-endian bytes (a scalar or a field element as Ed25519 encodes them). */
function littleEndian(n: bigint): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) bytes[i] = Number(n & 255n);
  return bytes;
}

Deno.test("ed25519: answers as WebCrypto does on the edge cases: non-canonical values, small-order points", async () => {
  const GROUP_ORDER = (1n << 252n) + 27742317777372353535851937790883648493n;
  const FIELD_PRIME = (1n << 255n) - 19n;
  const pair = await generateKeyPair();
  const key = Uint8Array.fromHex(pair.publicKey);
  // For this message the order-2 key's case is valid: the check is cofactorless, so it holds
  // when the message's hash is even, as both implementations agree.
  const message = new TextEncoder().encode("hello");
  const signature = pair.sign(message);
  const withS = (s: bigint) => new Uint8Array([...signature.subarray(0, 32), ...littleEndian(s)]);
  const s = BigInt("0x" + signature.slice(32).reverse().toHex());
  // R the identity and S zero: valid for any message under a small-order key.
  const identitySignature = new Uint8Array(64);
  identitySignature[0] = 1;
  const signBitFlipped = key.slice();
  signBitFlipped[31] ^= 0x80;
  // [name, key, signature, WebCrypto's answer, ours when it differs]
  const cases: [string, Uint8Array<ArrayBuffer>, Uint8Array<ArrayBuffer>, boolean, boolean?][] = [
    ["valid", key, signature, true],
    ["S + L, not canonical", key, withS(s + GROUP_ORDER), false],
    ["S = L", key, withS(GROUP_ORDER), false],
    // Forged without a private key: ours refuses every key of small order.
    ["identity key", littleEndian(1n), identitySignature, true, false],
    ["key of order 2 (y = p - 1)", littleEndian(FIELD_PRIME - 1n), identitySignature, true, false],
    ["identity key encoded as y = p + 1", littleEndian(FIELD_PRIME + 1n), identitySignature, false],
    ["y = p", littleEndian(FIELD_PRIME), identitySignature, false],
    ["not on the curve", new Uint8Array(32).fill(0xff), signature, false],
    ["the key's sign bit flipped", signBitFlipped, signature, false],
    ["identity signature under a real key", key, identitySignature, false],
  ];
  const verifier = new Ed25519Verifier();
  for (const [name, publicKey, sig, expected, ours = expected] of cases) {
    assert.equal(await webCryptoVerifies(publicKey, sig, message), expected, `WebCrypto: ${name}`);
    assert.equal(await verifyEd25519(publicKey, sig, message), ours, name);
    assert.equal(await verifier.verify(publicKey, sig, message), ours, `kept key: ${name}`);
  }
});

Deno.test("ed25519: every encoding of a point of small order is one, and no generated key", async () => {
  const FIELD_PRIME = (1n << 255n) - 19n;
  // The points of order 1, 2, 4 and 8 (two of order 8 as y = ±sqrt of their known values).
  const ys = [0n, 1n, FIELD_PRIME - 1n, FIELD_PRIME, FIELD_PRIME + 1n];
  const known = [
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  ].map((hex) => Uint8Array.fromHex(hex));
  for (const y of [...ys.map(littleEndian), ...known]) {
    for (const sign of [0, 0x80]) {
      const encoded = y.slice();
      encoded[31] |= sign;
      assert.ok(isSmallOrderKey(encoded), encoded.toHex());
      assert.ok(isSmallOrderKey(encoded.toHex()), encoded.toHex());
    }
  }
  // The order-8 points: for one message in eight, R the identity and S zero verify.
  const identitySignature = new Uint8Array(64);
  identitySignature[0] = 1;
  for (const point of known) {
    let forged = false;
    for (let i = 0; i < 64 && !forged; i++) {
      forged = await webCryptoVerifies(point, identitySignature, new TextEncoder().encode(`m${i}`));
    }
    assert.ok(forged, `${point.toHex()} is forgeable under WebCrypto`);
  }
  for (let i = 0; i < 100; i++) {
    assert.equal(isSmallOrderKey((await generateKeyPair()).publicKey), false);
  }
  assert.equal(isSmallOrderKey("not hex"), false);
});

Deno.test("ed25519: a key pair signs exactly as WebCrypto does", async () => {
  for (let i = 0; i < 20; i++) {
    const pair = await generateKeyPair();
    const pkcs8 = Uint8Array.fromHex("302e020100300506032b657004220420" + pair.privateKey);
    const key = await crypto.subtle.importKey("pkcs8", pkcs8, "Ed25519", true, ["sign"]);
    const message = crypto.getRandomValues(new Uint8Array(i * 7));
    const expected = new Uint8Array(await crypto.subtle.sign("Ed25519", key, message));
    assert.equal(pair.sign(message).toHex(), expected.toHex());
    const { x } = await crypto.subtle.exportKey("jwk", key);
    assert.equal(pair.publicKey, Uint8Array.fromBase64(x!, { alphabet: "base64url" }).toHex());
  }
});
