/**
 * Where a blob store files an owner's namespace without naming it: a keyed hash of the two (its
 * "place", HMAC-SHA-256 under a key HKDF derives from the relayer's secret), which `list` looks
 * up, and the two sealed together (AES-256-GCM, the place bound in), which a listing of every
 * blob opens. A copy of the store reads neither owners nor namespaces.
 *
 * @example
 * ```ts
 * const places = await BlobPlaces.derive(secret);
 * const place = places.place("0xowner", "health"); // the same bytes for the same pair
 * const sealed = places.seal("0xowner", "health");
 * places.open(place, sealed); // { owner: "0xowner", namespace: "health" }
 * BlobPlaces.idOf(new TextEncoder().encode("x")); // "LXEWQrcmsEQBYnyp-6wy9chTD7GQPMTbAiWHF5IaSIE"
 * ```
 */
import { createHash, createHmac } from "node:crypto";
import { SvcError } from "../errors.ts";
import { LruMap } from "@svc/util/lru_map";
import { deriveRawKey, hkdfMaster, openNow, sealNow } from "@svc/util/sealing";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The salt of the keys (the PostgreSQL store's first, whose places stay as they were). */
const SALT = encoder.encode("svc-postgres-blobs-v1");

/** Owners' namespaces whose place and seal are kept, the least recently used going first. */
const KNOWN = 10_000;

/**
 * The places and sealed names of a store's blobs; see the module documentation. Each call runs
 * at once (node:crypto), so that a store may file a write in the order it was asked; a
 * namespace's place and seal are made once and kept.
 */
export class BlobPlaces {
  #naming: Uint8Array<ArrayBuffer>;
  #sealing: Uint8Array<ArrayBuffer>;
  #known = new LruMap<string, { place: Uint8Array<ArrayBuffer>; sealed: Uint8Array<ArrayBuffer> }>(
    KNOWN,
  );

  private constructor(naming: Uint8Array<ArrayBuffer>, sealing: Uint8Array<ArrayBuffer>) {
    this.#naming = naming;
    this.#sealing = sealing;
  }

  /**
   * The content-addressed id every blob store gives a blob: the unpadded base64url of the SHA-256
   * of its bytes, so that ids carry over between stores.
   */
  static idOf(bytes: Uint8Array): string {
    return createHash("sha256").update(bytes).digest("base64url");
  }

  /**
   * The error of a put whose bytes a store already holds for another memory: a content-addressed
   * blob belongs to one memory, so that erasing a memory never takes another's blob with it.
   */
  static heldForAnotherMemory(): SvcError {
    return new SvcError(
      "conflict",
      "Cannot store the blob: the same bytes are already stored for another memory (encrypt " +
        "them again, with a fresh nonce, to store them twice)",
    );
  }

  /** The places of the relayer's 32-byte `secret`. */
  static async derive(secret: Uint8Array<ArrayBuffer>): Promise<BlobPlaces> {
    if (secret.byteLength !== 32) {
      throw new SvcError("internal", "Cannot open the blob store: the secret is not 32 bytes");
    }
    const master = await hkdfMaster(secret);
    return new BlobPlaces(
      await deriveRawKey(master, SALT, "blobs:place"),
      await deriveRawKey(master, SALT, "blobs:name"),
    );
  }

  /** The keyed hash an owner's namespace is filed under. */
  place(owner: string, namespace: string): Uint8Array<ArrayBuffer> {
    return this.#of(owner, namespace).place;
  }

  /** The owner and namespace sealed together, bound to their place. */
  seal(owner: string, namespace: string): Uint8Array<ArrayBuffer> {
    return this.#of(owner, namespace).sealed;
  }

  /** What `seal` sealed for `place`; throws for another place's or an altered seal. */
  open(place: Uint8Array, sealed: Uint8Array): { owner: string; namespace: string } {
    const opened = decoder.decode(openNow(this.#sealing, sealed, place));
    const [owner, namespace]: [string, string] = JSON.parse(opened);
    return { owner, namespace };
  }

  #of(owner: string, namespace: string) {
    const name = JSON.stringify([owner, namespace]);
    return this.#known.getOrSet(name, () => {
      const place = new Uint8Array(createHmac("sha256", this.#naming).update(name).digest());
      return { place, sealed: sealNow(this.#sealing, encoder.encode(name), place) };
    });
  }
}
