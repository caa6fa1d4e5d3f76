/**
 * Sealing with keys derived from the relayer's secret: HKDF-SHA-256 derives an AES-256-GCM key
 * per purpose (its own salt and info), and a sealed value is a fresh 12-byte IV followed by the
 * AES-GCM ciphertext and tag, bound to optional associated data. The job queue's payloads, the
 * encrypted index's blocks and the sealed vectors of blob metadata all use it.
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

/** The size of the IV in front of every sealed value. */
export const IV_BYTES = 12;
/** The size of the AES-GCM tag at the end of every sealed value. */
export const TAG_BYTES = 16;

const encoder = new TextEncoder();
const bytesOf = (value: string | Uint8Array<ArrayBuffer>) =>
  typeof value === "string" ? encoder.encode(value) : value;

/** `secret` imported as the HKDF key that {@link deriveAesKey} derives from. */
export function hkdfMaster(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
}

/** The AES-256-GCM key HKDF-SHA-256 derives from `master` for `salt` and `info`. */
export function deriveAesKey(
  master: CryptoKey,
  salt: string | Uint8Array<ArrayBuffer>,
  info: string | Uint8Array<ArrayBuffer>,
): Promise<CryptoKey> {
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: bytesOf(salt), info: bytesOf(info) },
    master,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** `plaintext` sealed under `key`: a fresh IV, then the ciphertext and tag. */
export async function sealBytes(
  key: CryptoKey,
  plaintext: Uint8Array<ArrayBuffer>,
  additionalData: Uint8Array<ArrayBuffer> = new Uint8Array(),
): Promise<Uint8Array<ArrayBuffer>> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData },
    key,
    plaintext,
  );
  const out = new Uint8Array(IV_BYTES + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), IV_BYTES);
  return out;
}

/** What {@link sealBytes} sealed under `key` with the same associated data; rejects otherwise. */
export function openBytes(
  key: CryptoKey,
  sealed: Uint8Array<ArrayBuffer>,
  additionalData: Uint8Array<ArrayBuffer> = new Uint8Array(),
): Promise<ArrayBuffer> {
  return crypto.subtle.decrypt(
    { name: "AES-GCM", iv: sealed.subarray(0, IV_BYTES), additionalData },
    key,
    sealed.subarray(IV_BYTES),
  );
}
