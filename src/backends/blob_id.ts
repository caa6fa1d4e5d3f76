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
import { SvcError } from "../errors.ts";

/** The content-addressed id of `bytes`: the unpadded base64url of their SHA-256. */
export function blobIdOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url");
}

/**
 * The error of a put whose bytes a store already holds for another memory: a content-addressed
 * blob belongs to one memory, so that erasing a memory never takes another's blob with it.
 */
export function heldForAnotherMemory(): SvcError {
  return new SvcError(
    "conflict",
    "Cannot store the blob: the same bytes are already stored for another memory (encrypt " +
      "them again, with a fresh nonce, to store them twice)",
  );
}
