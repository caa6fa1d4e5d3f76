/**
 * The in-memory `Cipher`: real AES-256-GCM under random keys made on first use and kept only in
 * this object: one per owner, and one per memory for what is encrypted with a memory id (which
 * `erase` forgets, so that no copy of such a ciphertext decrypts again). The owner (and the
 * memory id) is bound into every ciphertext as associated data, so a ciphertext decrypted for
 * another owner, or altered, is refused with `forbidden`, as the local cipher refuses it; one
 * decrypted with another memory's id, with `forbidden` and `reason: "mismatch"`.
 *
 * Formats: `0x01 ‖ iv (12) ‖ ciphertext (+ 16 tag)` without a memory id;
 * `0x02 ‖ id_len (1) ‖ memory_id (UTF-8, 1–255 bytes) ‖ iv (12) ‖ ciphertext (+ 16 tag)` with one.
 *
 * @example
 * ```ts
 * import { MemoryCipher } from "./memory_cipher.ts";
 *
 * const cipher = new MemoryCipher();
 * const sealed = await cipher.encrypt("0xa11ce", new TextEncoder().encode("I am vegetarian"));
 * await cipher.decrypt("0xa11ce", sealed); // the bytes of "I am vegetarian"
 * await cipher.decrypt("0xb0b", sealed); // throws SvcError("forbidden", …)
 * const erasable = await cipher.encrypt("0xa11ce", new TextEncoder().encode("I run"), {
 *   memoryId: "m1",
 * });
 * await cipher.erase("0xa11ce", ["m1"]);
 * await cipher.decrypt("0xa11ce", erasable); // throws SvcError("forbidden", …)
 * ```
 * @module
 */
import { SvcError } from "../errors.ts";
import type { CallOptions, Cipher, DecryptOptions, EncryptOptions } from "../backends/types.ts";

const V1 = 1;
const V2 = 2;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MAX_MEMORY_ID_BYTES = 255;

const utf8 = new TextEncoder();

function newKey(): Promise<CryptoKey> {
  return crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]);
}

/** AES-256-GCM per owner and per memory, keys held in memory; see the module documentation. */
export class MemoryCipher implements Cipher {
  readonly name = "memory";
  readonly holdsKeys = true;
  #keys = new Map<string, Promise<CryptoKey>>();
  /** owner → memory id → the memory's key. */
  #memoryKeys = new Map<string, Map<string, Promise<CryptoKey>>>();

  async encrypt(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
    options?: EncryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    const memoryId = options?.memoryId;
    let header: Uint8Array<ArrayBuffer>;
    let key: Promise<CryptoKey> | undefined;
    if (memoryId === undefined) {
      header = new Uint8Array([V1]);
      key = this.#keys.get(owner);
      if (!key) this.#keys.set(owner, key = newKey());
    } else {
      const id = utf8.encode(typeof memoryId === "string" ? memoryId : "");
      if (id.length === 0 || id.length > MAX_MEMORY_ID_BYTES) {
        throw new SvcError(
          "bad_request",
          `Cannot encrypt: a memory id must be 1 to ${MAX_MEMORY_ID_BYTES} bytes`,
        );
      }
      header = new Uint8Array(2 + id.length);
      header.set([V2, id.length]);
      header.set(id, 2);
      let memories = this.#memoryKeys.get(owner);
      if (!memories) this.#memoryKeys.set(owner, memories = new Map());
      const canonical = new TextDecoder().decode(id); // as decrypt reads it from the header
      key = memories.get(canonical);
      if (!key) memories.set(canonical, key = newKey());
    }
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const body = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: associatedData(owner, header) },
        await key,
        plaintext,
      ),
    );
    const out = new Uint8Array(header.byteLength + IV_BYTES + body.byteLength);
    out.set(header);
    out.set(iv, header.byteLength);
    out.set(body, header.byteLength + IV_BYTES);
    return out;
  }

  async decrypt(
    owner: string,
    ciphertext: Uint8Array<ArrayBuffer>,
    options?: DecryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    const headerBytes = ciphertext[0] === V1
      ? 1
      : ciphertext[0] === V2 && ciphertext.byteLength > 1 && ciphertext[1] > 0
      ? 2 + ciphertext[1]
      : 0;
    if (headerBytes === 0 || ciphertext.byteLength < headerBytes + IV_BYTES + TAG_BYTES) {
      throw new SvcError("bad_request", "Cannot decrypt: not an in-memory cipher's ciphertext");
    }
    const header = ciphertext.subarray(0, headerBytes);
    const memoryId = options?.memoryId;
    if (headerBytes > 1 && memoryId !== undefined && !boundTo(header, memoryId)) {
      throw new SvcError("forbidden", "Cannot decrypt: the ciphertext is another memory's", {
        details: { reason: "mismatch" },
      });
    }
    const key = headerBytes === 1
      ? this.#keys.get(owner)
      : this.#memoryKeys.get(owner)?.get(new TextDecoder().decode(header.subarray(2)));
    if (!key && headerBytes > 1) {
      throw new SvcError(
        "forbidden",
        "Cannot decrypt: no key is held for this memory (it was erased, the ciphertext " +
          "belongs to another owner, or the key store was restored from a backup older than it)",
      );
    }
    try {
      if (!key) throw new Error("no key for this owner");
      return new Uint8Array(
        await crypto.subtle.decrypt(
          {
            name: "AES-GCM",
            iv: ciphertext.subarray(headerBytes, headerBytes + IV_BYTES),
            additionalData: associatedData(owner, header),
          },
          await key,
          ciphertext.subarray(headerBytes + IV_BYTES),
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

  /** Forgets the keys of these memories of `owner`; unknown ids are ignored. */
  erase(owner: string, memoryIds: string[], options?: CallOptions): Promise<void> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const memories = this.#memoryKeys.get(owner);
    for (const memoryId of memoryIds) {
      memories?.delete(new TextDecoder().decode(utf8.encode(String(memoryId))));
    }
    return Promise.resolve();
  }
}

/** Whether a version 2 header names `memoryId` (as `encrypt` writes it). */
function boundTo(header: Uint8Array, memoryId: string): boolean {
  const id = new TextDecoder().decode(header.subarray(2));
  return id === new TextDecoder().decode(utf8.encode(memoryId));
}

/**
 * What every ciphertext binds besides its key: the owner and the header (so the memory id).
 * A version 1 ciphertext binds the owner alone, as before version 2 existed.
 */
function associatedData(owner: string, header: Uint8Array): Uint8Array<ArrayBuffer> {
  const label = utf8.encode(`svc-memory-cipher:v1:${owner}`);
  if (header[0] === V1) return label;
  const out = new Uint8Array(header.byteLength + label.byteLength);
  out.set(header);
  out.set(label, header.byteLength);
  return out;
}
