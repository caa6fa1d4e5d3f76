// The keys and entries of an operator-blind namespace, in the browser, made and read as the
// TypeScript client makes them (src/client/blind_keys.ts, and sealEntry in src/client/blind.ts).
// The content key is wrapped for an Ed25519 key: X25519 with the key's Montgomery form, then
// HKDF-SHA-256, then ChaCha20-Poly1305 bound to the namespace. Entries are sealed under a key
// that HKDF derives from the content key. WebCrypto does X25519, SHA-512 and HKDF. ChaCha20-Poly1305
// is @noble/ciphers: the dashboard serves the pinned npm package; under Deno (its unit test) the
// package itself is imported.
const CHACHA = globalThis.document ? "/vendor/noble-ciphers/chacha.js" : "@noble/ciphers/chacha.js";
const { chacha20poly1305 } = await import(CHACHA);

const NONCE_BYTES = 12;
const POINT_BYTES = 32;
const X25519_PKCS8_PREFIX = "302e020100300506032b656e04220420";
/** The field of Curve25519. */
const P = 2n ** 255n - 19n;
const encoder = new TextEncoder();

function concat(...parts) {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** The 32 bytes HKDF-SHA-256 derives from `secret` for `salt` and `info` (`deriveRawKey`). */
async function hkdf(secret, salt, info) {
  const master = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveBits"]);
  const text = (value) => typeof value === "string" ? encoder.encode(value) : value;
  const params = { name: "HKDF", hash: "SHA-256", salt: text(salt), info: text(info) };
  return new Uint8Array(await crypto.subtle.deriveBits(params, master, 256));
}

/** `plaintext` sealed under `key` for `data`: a fresh nonce, the ciphertext and the tag. */
function seal(key, plaintext, data) {
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  return concat(nonce, chacha20poly1305(key, nonce, data).encrypt(plaintext));
}

/** What `seal` sealed; throws when it was altered, or sealed under another key or data. */
function open(key, sealed, data) {
  const nonce = sealed.subarray(0, NONCE_BYTES);
  return chacha20poly1305(key, nonce, data).decrypt(sealed.subarray(NONCE_BYTES));
}

/** `base` to the power `exponent`, modulo P. */
function power(base, exponent) {
  let result = 1n;
  for (let b = base % P, e = exponent; e > 0n; e >>= 1n, b = b * b % P) {
    if (e & 1n) result = result * b % P;
  }
  return result;
}

/**
 * The X25519 public key of the Ed25519 public key `publicKey` (64 hex characters): the
 * birational map u = (1 + y) / (1 − y) mod p, as `ed25519.utils.toMontgomery` computes it.
 */
export function montgomery(publicKey) {
  if (!/^[0-9a-f]{64}$/.test(publicKey)) {
    throw new Error("A public key is 64 lowercase hex characters.");
  }
  const bytes = Uint8Array.fromHex(publicKey).reverse();
  bytes[0] &= 0x7f; // the sign of x, not part of y
  const y = BigInt(`0x${bytes.toHex()}`);
  if (y >= P || y === 1n) throw new Error("This is not an Ed25519 public key.");
  const u = (1n + y) * power(P + 1n - y, P - 2n) % P;
  return Uint8Array.fromHex(u.toString(16).padStart(64, "0")).reverse();
}

/** The X25519 key of the Ed25519 seed `seed` (32 bytes), as `toMontgomerySecret` makes it. */
async function x25519Secret(seed) {
  const scalar = new Uint8Array(await crypto.subtle.digest("SHA-512", seed)).slice(0, 32);
  scalar[0] &= 248;
  scalar[31] &= 127;
  scalar[31] |= 64;
  const pkcs8 = concat(Uint8Array.fromHex(X25519_PKCS8_PREFIX), scalar);
  return await crypto.subtle.importKey("pkcs8", pkcs8, "X25519", false, ["deriveBits"]);
}

/** The X25519 secret between the private key `secret` and the public key `point` (bytes). */
async function shared(secret, point) {
  const peer = await crypto.subtle.importKey("raw", point, "X25519", false, []);
  return new Uint8Array(
    await crypto.subtle.deriveBits({ name: "X25519", public: peer }, secret, 256),
  );
}

/** The key that wraps for the secret between `ephemeral` and `recipient`. */
function wrapKey(secret, ephemeral, recipient) {
  return hkdf(secret, "svc-blind-wrap-v1", concat(ephemeral, recipient));
}

/**
 * The content key wrapped (`wrapped`, bytes) for the Ed25519 key whose seed is `seed` (32 bytes)
 * and public key `publicKey` (hex), bound to `namespace`. Throws when it was wrapped for another
 * key or namespace, or altered.
 */
export async function unwrapWith(wrapped, seed, publicKey, namespace) {
  const secret = await x25519Secret(seed);
  const ephemeral = wrapped.subarray(0, POINT_BYTES);
  const key = await wrapKey(await shared(secret, ephemeral), ephemeral, montgomery(publicKey));
  return open(key, wrapped.subarray(POINT_BYTES), encoder.encode(namespace));
}

/** `contentKey` wrapped for the Ed25519 public key `publicKey` (hex), bound to `namespace`. */
export async function wrapFor(contentKey, publicKey, namespace) {
  const recipient = montgomery(publicKey);
  const pair = await crypto.subtle.generateKey("X25519", false, ["deriveBits"]);
  const ephemeral = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const key = await wrapKey(await shared(pair.privateKey, recipient), ephemeral, recipient);
  return concat(ephemeral, seal(key, contentKey, encoder.encode(namespace)));
}

/** The key a namespace's entries are sealed under, derived from its content key. */
export function entriesKey(contentKey) {
  return hkdf(contentKey, "svc-blind-v1", "entries");
}

/**
 * The memory the entry `id` of `namespace` holds (`sealed`, base64): its text, its time (Unix
 * milliseconds), its tags, and its thread and the memory it replaced, if any. An entry is the header's length
 * (4 bytes), the header as JSON, then the vector, sealed under `key` for `namespace\nid`. Throws
 * when it does not open: altered, moved, or sealed under another content key.
 */
export function openEntry(key, namespace, id, sealed) {
  let plain;
  try {
    plain = open(key, Uint8Array.fromBase64(sealed), encoder.encode(`${namespace}\n${id}`));
  } catch {
    throw new Error(
      `Memory ${id} does not open with the namespace's key: the relayer altered it or the key. ` +
        "Nothing was read from it.",
    );
  }
  const length = new DataView(plain.buffer, plain.byteOffset).getUint32(0);
  const header = JSON.parse(new TextDecoder().decode(plain.subarray(4, 4 + length)));
  const { text, createdAt, tags = [], thread, supersedes } = header;
  return {
    id,
    text,
    createdAt,
    tags,
    ...(thread !== undefined && { thread }),
    ...(supersedes && { supersedes }),
  };
}
