/**
 * The one Ed25519 verifier (WebCrypto) of svc: signed requests, local-ledger transactions and
 * the dashboard's wallet signatures all check signatures here.
 *
 * @example
 * ```ts
 * const ok = await verifyEd25519(publicKeyHex, signatureHex, "svc-dashboard:namespaces:1700000000");
 * ```
 */

const PUBLIC_KEY_BYTES = 32;
const SIGNATURE_BYTES = 64;
const HEX = /^[0-9a-fA-F]*$/;
const encoder = new TextEncoder();

/** Hex (either case) or bytes of exactly `length` bytes, else `null`. */
function exactBytes(value: string | Uint8Array<ArrayBuffer>, length: number) {
  if (typeof value !== "string") return value.byteLength === length ? value : null;
  if (value.length !== length * 2 || !HEX.test(value)) return null;
  return Uint8Array.fromHex(value);
}

/**
 * Whether `signature` is a valid Ed25519 signature of `message` by `publicKey`.
 *
 * `publicKey` (32 bytes) and `signature` (64 bytes) are given as bytes or hex; `message` as
 * bytes or as text, signed as its UTF-8 bytes. Anything malformed (wrong length, not hex, a
 * key WebCrypto refuses) is simply not a valid signature: the answer is `false`, never an
 * exception.
 */
export async function verifyEd25519(
  publicKey: string | Uint8Array<ArrayBuffer>,
  signature: string | Uint8Array<ArrayBuffer>,
  message: string | Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  const keyBytes = exactBytes(publicKey, PUBLIC_KEY_BYTES);
  const signatureBytes = exactBytes(signature, SIGNATURE_BYTES);
  if (!keyBytes || !signatureBytes) return false;
  const data = typeof message === "string" ? encoder.encode(message) : message;
  try {
    const key = await crypto.subtle.importKey("raw", keyBytes, "Ed25519", false, ["verify"]);
    return await crypto.subtle.verify("Ed25519", key, signatureBytes, data);
  } catch {
    return false;
  }
}
