/**
 * Keyed hashes the core's stores file entries under instead of what they name (an owner, a
 * memory, a text's place): the first 16 bytes of HMAC-SHA-256 under a key HKDF derives from the
 * relayer's secret, as hex. The derivation is the one the PostgreSQL plugin's tables use, so
 * their rows move into the `StateStore` as they are.
 *
 * @example
 * ```ts
 * const owners = await tagKey(secret, "erased owners");
 * const key = ["erased", await tagOf(owners, owner), memoryId];
 * ```
 * @module
 */
import { deriveHmacKey, hkdfMaster } from "@svc/util/sealing";

const encoder = new TextEncoder();

/** The HMAC key HKDF derives from the relayer's `secret` for `info`. */
export async function tagKey(secret: Uint8Array<ArrayBuffer>, info: string): Promise<CryptoKey> {
  return await deriveHmacKey(await hkdfMaster(secret), "svc-postgres-lifecycle-v1", info);
}

/** The tag of `value` under `key`: 16 bytes of its keyed hash, as hex. */
export async function tagOf(key: CryptoKey, value: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(value));
  return new Uint8Array(mac, 0, 16).toHex();
}
