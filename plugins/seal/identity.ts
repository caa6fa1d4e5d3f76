/**
 * The Seal identities of svc memories: the owner's 32 address bytes followed by 16 bytes. For a
 * memory (encrypted with its id) those 16 bytes stand for the memory id, so that erasing the
 * memory can name the identity on chain; otherwise they are a random nonce.
 *
 * @example
 * ```ts
 * const suffix = await memorySuffix("0191f4a2-7c3e-7a10-8b2d-3f4e5a6b7c8d"); // its 16 bytes
 * const id = identityHex(ownerAddress, suffix); // 96 hex digits, as in the EncryptedObject
 * ```
 */
import { sha256Hex } from "@svc/util/keys";
import { mismatch } from "./errors.ts";

/** Bytes after the owner's address in an identity. */
export const SUFFIX_BYTES = 16;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The 16 bytes that stand for a memory id in its identity: a UUID's own bytes (svc's memory ids
 * are UUIDs, so the erase event on chain names the memory), and for any other id the first 16
 * bytes of SHA-256 over `svc-seal-memory:<id>`.
 */
export async function memorySuffix(memoryId: string): Promise<Uint8Array<ArrayBuffer>> {
  if (UUID.test(memoryId)) return Uint8Array.fromHex(memoryId.replaceAll("-", "").toLowerCase());
  const digest = await sha256Hex(`svc-seal-memory:${memoryId}`);
  return Uint8Array.fromHex(digest.slice(0, 2 * SUFFIX_BYTES));
}

/** The identity as lowercase hex without `0x` (as `EncryptedObject.id` holds it). */
export function identityHex(ownerAddress: string, suffix: Uint8Array): string {
  return ownerAddress.slice(2).toLowerCase() + suffix.toHex();
}

/**
 * Refuses an identity (hex, as `EncryptedObject.id` holds it) that is not the owner's, or (with
 * `memoryId`) not that memory's: `forbidden` with `reason: "mismatch"`. With `memoryId`, a
 * ciphertext encrypted without one (a random nonce) is refused too: nothing tells it apart.
 */
export async function checkIdentity(
  id: string,
  ownerAddress: string,
  memoryId?: string,
): Promise<void> {
  if (!id.startsWith(ownerAddress.slice(2)) || id.length !== 2 * (32 + SUFFIX_BYTES)) {
    throw mismatch("owner");
  }
  if (memoryId !== undefined && id !== identityHex(ownerAddress, await memorySuffix(memoryId))) {
    throw mismatch("memory");
  }
}
