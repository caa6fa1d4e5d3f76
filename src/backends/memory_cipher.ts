/**
 * The in-memory `Cipher`: real AES-256-GCM under a random key per owner, made on the owner's
 * first encryption and kept only in this object. The owner is bound into every ciphertext as
 * associated data, so a ciphertext decrypted for another owner, or altered, is refused with
 * `forbidden`, as the local cipher refuses it.
 *
 * Format: `0x01 ‖ iv (12) ‖ ciphertext (+ 16 tag)`.
 *
 * @example
 * ```ts
 * import { MemoryCipher } from "./memory_cipher.ts";
 *
 * const cipher = new MemoryCipher();
 * const sealed = await cipher.encrypt("0xa11ce", new TextEncoder().encode("I am vegetarian"));
 * await cipher.decrypt("0xa11ce", sealed); // the bytes of "I am vegetarian"
 * await cipher.decrypt("0xb0b", sealed); // throws SvcError("forbidden", …)
 * ```
 * @module
 */
import { SvcError } from "../errors.ts";
import type { CallOptions, Cipher } from "./types.ts";

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** AES-256-GCM per owner, keys held in memory; see the module documentation. */
export class MemoryCipher implements Cipher {
  // TODO(issue 20): replaced by the real erase.
  erase(_owner: string, _memoryIds: string[], _options?: unknown): Promise<void> {
    return Promise.reject(new SvcError("internal", "erase is not built yet"));
  }
  readonly name = "memory";
  readonly holdsKeys = true;
  #keys = new Map<string, Promise<CryptoKey>>();

  async encrypt(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
    options?: CallOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    let key = this.#keys.get(owner);
    if (!key) {
      key = crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
        "encrypt",
        "decrypt",
      ]);
      this.#keys.set(owner, key);
    }
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const body = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: associatedData(owner) },
        await key,
        plaintext,
      ),
    );
    const out = new Uint8Array(1 + IV_BYTES + body.byteLength);
    out[0] = VERSION;
    out.set(iv, 1);
    out.set(body, 1 + IV_BYTES);
    return out;
  }

  async decrypt(
    owner: string,
    ciphertext: Uint8Array<ArrayBuffer>,
    options?: CallOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    if (ciphertext.byteLength < 1 + IV_BYTES + TAG_BYTES || ciphertext[0] !== VERSION) {
      throw new SvcError("bad_request", "Cannot decrypt: not a version 1 in-memory ciphertext");
    }
    const key = this.#keys.get(owner);
    try {
      if (!key) throw new Error("no key for this owner");
      return new Uint8Array(
        await crypto.subtle.decrypt(
          {
            name: "AES-GCM",
            iv: ciphertext.subarray(1, 1 + IV_BYTES),
            additionalData: associatedData(owner),
          },
          await key,
          ciphertext.subarray(1 + IV_BYTES),
        ),
      );
    } catch (cause) {
      throw new SvcError(
        "forbidden",
        "Cannot decrypt: the ciphertext was altered or belongs to another owner",
        { cause },
      );
    }
  }
}

function associatedData(owner: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`svc-memory-cipher:v${VERSION}:${owner}`);
}
