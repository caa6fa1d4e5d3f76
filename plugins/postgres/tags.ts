/**
 * Keyed hashes the plugin files rows under instead of what they name (an update's memory, a
 * text's place): HMAC-SHA-256 under keys HKDF derives from the relayers' shared secret.
 */
import { deriveHmacKey, hkdfMaster } from "@svc/util/sealing";

const SALT = "svc-postgres-lifecycle-v1";
const encoder = new TextEncoder();

/** The HMAC-SHA-256 key HKDF derives from `secret` for `info` (salt: the lifecycle store's). */
export async function deriveTagKey(
  secret: Uint8Array<ArrayBuffer>,
  info: string,
): Promise<CryptoKey> {
  return await deriveHmacKey(await hkdfMaster(secret), SALT, info);
}

/** The keyed hash of `value` under `key`: 16 bytes. */
export async function tagOf(key: CryptoKey, value: string): Promise<Uint8Array<ArrayBuffer>> {
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(value));
  return new Uint8Array(mac, 0, 16).slice();
}
