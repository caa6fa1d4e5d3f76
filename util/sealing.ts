/**
 * Sealing with keys derived from one secret: HKDF-SHA-256 derives an AES-256-GCM key per purpose
 * (its own salt and info), and a sealed value is a fresh 12-byte IV followed by the AES-GCM
 * ciphertext and tag, bound to optional associated data.
 *
 * Large values sealed often use ChaCha20-Poly1305 (RFC 8439)
 * instead, laid out the same way (nonce, ciphertext, tag; `chachaSeal`): node:crypto runs it
 * about ten times faster than its AES-GCM here (about 900 against 85 MB/s for 60 KB values).
 *
 * @example
 * ```ts
 * const master = await hkdfMaster(crypto.getRandomValues(new Uint8Array(32)));
 * const key = await deriveAesKey(master, "svc-example-v1", "notes");
 * const aad = new TextEncoder().encode("note:1");
 * const sealed = await sealBytes(key, new TextEncoder().encode("hello"), aad);
 * new TextDecoder().decode(await openBytes(key, sealed, aad)); // "hello"
 * ```
 */

import { createCipheriv, createDecipheriv, KeyObject } from "node:crypto";

/** The size of the IV in front of every sealed value. */
export const IV_BYTES = 12;
/** The size of the AES-GCM tag at the end of every sealed value. */
export const TAG_BYTES = 16;

const encoder = new TextEncoder();
const bytesOf = (value: string | Uint8Array<ArrayBuffer>) =>
  typeof value === "string" ? encoder.encode(value) : value;

/** `secret` imported as the HKDF key {@link deriveAesKey} and {@link deriveRawKey} derive from. */
export function hkdfMaster(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey", "deriveBits"]);
}

type Bytes = string | Uint8Array<ArrayBuffer>;

/** The key HKDF-SHA-256 derives from `master` for `salt` and `info`, for `algorithm`. */
function deriveFor(
  master: CryptoKey,
  salt: Bytes,
  info: Bytes,
  algorithm: AesKeyGenParams | HmacImportParams,
  usages: KeyUsage[],
): Promise<CryptoKey> {
  const params = { name: "HKDF", hash: "SHA-256", salt: bytesOf(salt), info: bytesOf(info) };
  return crypto.subtle.deriveKey(params, master, algorithm, false, usages);
}

/** The AES-256-GCM key HKDF-SHA-256 derives from `master` for `salt` and `info`. */
export function deriveAesKey(
  master: CryptoKey,
  salt: string | Uint8Array<ArrayBuffer>,
  info: string | Uint8Array<ArrayBuffer>,
): Promise<CryptoKey> {
  return deriveFor(master, salt, info, { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]);
}

/** The HMAC-SHA-256 key (for signing) HKDF-SHA-256 derives from `master` for `salt` and `info`. */
export function deriveHmacKey(
  master: CryptoKey,
  salt: string | Uint8Array<ArrayBuffer>,
  info: string | Uint8Array<ArrayBuffer>,
): Promise<CryptoKey> {
  return deriveFor(master, salt, info, { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]);
}

/** AES-256-GCM keys as node:crypto takes them: each WebCrypto key converted once. */
const keyObjects = new WeakMap<CryptoKey, KeyObject>();

function keyObject(key: CryptoKey | Uint8Array): KeyObject | Uint8Array {
  if (key instanceof Uint8Array) return key;
  let found = keyObjects.get(key);
  if (!found) keyObjects.set(key, found = KeyObject.from(key));
  return found;
}

/** `parts` in one new array (with an `ArrayBuffer` of its own). */
export function concatBytes(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * AES-256-GCM encryption of `plaintext` under `key` (a WebCrypto key or 32 raw bytes): the
 * ciphertext, then the 16-byte tag, as WebCrypto's `encrypt` gives them. It runs on node:crypto,
 * synchronously: a WebCrypto call costs several times more on the calling thread.
 */
export function gcmEncrypt(
  key: CryptoKey | Uint8Array,
  iv: Uint8Array,
  plaintext: Uint8Array,
  additionalData?: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const cipher = createCipheriv("aes-256-gcm", keyObject(key), iv, { authTagLength: TAG_BYTES });
  if (additionalData) cipher.setAAD(additionalData);
  const body = cipher.update(plaintext);
  return concatBytes(body, cipher.final(), cipher.getAuthTag());
}

/** What {@link gcmEncrypt} encrypted (`sealed`: ciphertext and tag); throws when it was altered. */
export function gcmDecrypt(
  key: CryptoKey | Uint8Array,
  iv: Uint8Array,
  sealed: Uint8Array,
  additionalData?: Uint8Array,
): Uint8Array<ArrayBuffer> {
  if (sealed.byteLength < TAG_BYTES) throw new Error("AES-GCM: shorter than its tag");
  const end = sealed.byteLength - TAG_BYTES;
  const decipher = createDecipheriv("aes-256-gcm", keyObject(key), iv, {
    authTagLength: TAG_BYTES,
  });
  decipher.setAuthTag(sealed.subarray(end));
  if (additionalData) decipher.setAAD(additionalData);
  const body = decipher.update(sealed.subarray(0, end));
  return concatBytes(body, decipher.final());
}

/** The 32-byte key HKDF-SHA-256 derives from `master` for `salt` and `info` (for `chachaSeal`). */
export async function deriveRawKey(
  master: CryptoKey,
  salt: string | Uint8Array<ArrayBuffer>,
  info: string | Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const bits = await crypto.subtle.deriveBits(
    { name: "HKDF", hash: "SHA-256", salt: bytesOf(salt), info: bytesOf(info) },
    master,
    256,
  );
  return new Uint8Array(bits);
}

/**
 * `plaintext` sealed with ChaCha20-Poly1305 under `key` (32 bytes), bound to `additionalData`:
 * a fresh 12-byte nonce, then the ciphertext and the 16-byte tag.
 */
export function chachaSeal(
  key: Uint8Array,
  plaintext: Uint8Array,
  additionalData: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const nonce = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const cipher = createCipheriv("chacha20-poly1305", key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData, { plaintextLength: plaintext.byteLength });
  const body = cipher.update(plaintext);
  return concatBytes(nonce, body, cipher.final(), cipher.getAuthTag());
}

/** What {@link chachaSeal} sealed under `key` with the same associated data; throws otherwise. */
export function chachaOpen(
  key: Uint8Array,
  sealed: Uint8Array,
  additionalData: Uint8Array,
): Uint8Array<ArrayBuffer> {
  if (sealed.byteLength < IV_BYTES + TAG_BYTES) {
    throw new Error("ChaCha20-Poly1305: shorter than its nonce and tag");
  }
  const end = sealed.byteLength - TAG_BYTES;
  const decipher = createDecipheriv("chacha20-poly1305", key, sealed.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  });
  decipher.setAuthTag(sealed.subarray(end));
  decipher.setAAD(additionalData, { plaintextLength: end - IV_BYTES });
  const body = decipher.update(sealed.subarray(IV_BYTES, end));
  return concatBytes(body, decipher.final());
}

/**
 * `plaintext` sealed under `key` (a WebCrypto key or 32 raw bytes), at once: a fresh IV, then the
 * ciphertext and tag.
 */
export function sealNow(
  key: CryptoKey | Uint8Array,
  plaintext: Uint8Array,
  additionalData?: Uint8Array,
): Uint8Array<ArrayBuffer> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  return concatBytes(iv, gcmEncrypt(key, iv, plaintext, additionalData));
}

/** What {@link sealNow} sealed under `key` with the same associated data; throws otherwise. */
export function openNow(
  key: CryptoKey | Uint8Array,
  sealed: Uint8Array,
  additionalData?: Uint8Array,
): Uint8Array<ArrayBuffer> {
  return gcmDecrypt(key, sealed.subarray(0, IV_BYTES), sealed.subarray(IV_BYTES), additionalData);
}

/** {@link sealNow}, as a promise. */
// deno-lint-ignore require-await
export async function sealBytes(
  key: CryptoKey,
  plaintext: Uint8Array<ArrayBuffer>,
  additionalData?: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  return sealNow(key, plaintext, additionalData);
}

/** {@link openNow}, as a promise; rejects when `sealed` was altered or sealed otherwise. */
// deno-lint-ignore require-await
export async function openBytes(
  key: CryptoKey,
  sealed: Uint8Array<ArrayBuffer>,
  additionalData?: Uint8Array<ArrayBuffer>,
): Promise<ArrayBuffer> {
  return openNow(key, sealed, additionalData).buffer;
}

/** {@link sealBytes} as base64url without padding: a sealed value kept in a text field. */
export async function sealToText(
  key: CryptoKey,
  plaintext: Uint8Array<ArrayBuffer>,
  additionalData: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const sealed = await sealBytes(key, plaintext, additionalData);
  return sealed.toBase64({ alphabet: "base64url", omitPadding: true });
}

/**
 * What {@link sealToText} sealed under `key` with the same associated data, or `null` when it
 * does not open: not base64url, altered, sealed for other data or under another key.
 */
export async function openText(
  key: CryptoKey,
  sealed: string,
  additionalData: Uint8Array<ArrayBuffer>,
): Promise<ArrayBuffer | null> {
  try {
    const bytes = Uint8Array.fromBase64(sealed, { alphabet: "base64url" });
    if (bytes.byteLength < IV_BYTES + TAG_BYTES) return null;
    return await openBytes(key, bytes, additionalData);
  } catch {
    return null;
  }
}
