/**
 * The content-addressed id every blob store gives a blob: the unpadded base64url of the SHA-256
 * of its bytes, so that ids carry over between stores.
 *
 * @example
 * ```ts
 * blobIdOf(new TextEncoder().encode("x")); // "LXEWQrcmsEQBYnyp-6wy9chTD7GQPMTbAiWHF5IaSIE"
 * ```
 */
import { createHash } from "node:crypto";

/** The content-addressed id of `bytes`: the unpadded base64url of their SHA-256. */
export function blobIdOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url");
}
