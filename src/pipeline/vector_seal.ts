/**
 * Sealing of a client-encrypted (manual) memory's vector for its blob metadata, so restore can
 * re-index the memory while no blob store (files, Walrus attributes on chain) holds the vector in
 * clear.
 *
 * The key is AES-256-GCM, derived by HKDF-SHA-256 from the relayer's 32-byte secret under its own
 * label. The plaintext is the vector as the client gave it, as little-endian float64 (so restore
 * indexes exactly the numbers manual remember indexed). A sealed vector is the unpadded base64url
 * of a random 12-byte nonce followed by the ciphertext and tag; its associated data is the
 * memory's owner, namespace and id, so a sealed vector copied to another memory does not open.
 *
 * @example
 * ```ts
 * const seal = await VectorSeal.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
 * const memory = { memoryId: "m1", owner: "0xabc", namespace: "default" };
 * const sealed = await seal.seal(memory, [0.5, -0.25]);
 * console.log(await seal.open(memory, sealed)); // [0.5, -0.25]
 * ```
 */
import { SvcError } from "../errors.ts";
import { deriveAesKey, hkdfMaster, openText, sealToText } from "@svc/util/sealing";
import { type AttributePlace, placeData } from "./attributes.ts";

/** The key's HKDF salt, and the label a sealed vector is bound to its memory with. */
const SALT = "svc-sealed-vector-v1";
const INFO = "blob metadata vector";
const SEALED = /^[A-Za-z0-9_-]+$/;

/** The memory a sealed vector belongs to. */
export type SealedVectorPlace = AttributePlace;

/** Seals and opens the vectors kept in blob metadata. */
export class VectorSeal {
  #key: CryptoKey;

  private constructor(key: CryptoKey) {
    this.#key = key;
  }

  /** The seal keyed by `secret` (the relayer's 32 secret bytes). */
  static async fromSecret(secret: Uint8Array<ArrayBuffer>): Promise<VectorSeal> {
    if (secret.byteLength !== 32) {
      throw new SvcError("internal", "Cannot seal vectors: the secret is not 32 bytes");
    }
    const key = await deriveAesKey(await hkdfMaster(secret), SALT, INFO);
    return new VectorSeal(key);
  }

  /** The vector sealed for the memory at `place`: an opaque base64url string. */
  async seal(place: SealedVectorPlace, vector: readonly number[]): Promise<string> {
    const plaintext = new Uint8Array(vector.length * 8);
    const view = new DataView(plaintext.buffer);
    vector.forEach((x, i) => view.setFloat64(i * 8, x, true));
    return await sealToText(this.#key, plaintext, placeData(SALT, place));
  }

  /**
   * The vector `seal` sealed for the memory at `place`, or `null` when `sealed` does not open:
   * malformed, altered, sealed for another memory, or under another secret.
   */
  async open(place: SealedVectorPlace, sealed: string): Promise<number[] | null> {
    if (!SEALED.test(sealed)) return null;
    const plaintext = await openText(this.#key, sealed, placeData(SALT, place));
    if (plaintext === null || plaintext.byteLength % 8 !== 0) return null;
    const view = new DataView(plaintext);
    return Array.from({ length: plaintext.byteLength / 8 }, (_, i) => view.getFloat64(i * 8, true));
  }
}
