/**
 * Where a blob store files an owner's namespace without naming it: a keyed hash of the two (its
 * "place", HMAC-SHA-256 under a key HKDF derives from the relayer's secret), which `list` looks
 * up, and the two sealed together (AES-256-GCM, the blob id bound in), which a listing of every
 * blob opens. A copy of the store reads neither owners nor namespaces.
 *
 * @example
 * ```ts
 * const places = await BlobPlaces.derive(secret);
 * const place = places.place("0xowner", "health"); // the same bytes for the same pair
 * const sealed = places.seal(blobId, "0xowner", "health");
 * places.open(blobId, sealed); // { owner: "0xowner", namespace: "health" }
 * ```
 */
import { createHmac } from "node:crypto";
import { SvcError } from "../errors.ts";
import { deriveRawKey, hkdfMaster, openNow, sealNow } from "../crypto/sealing.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** The salt of the keys (the PostgreSQL store's first, whose places stay as they were). */
const SALT = encoder.encode("svc-postgres-blobs-v1");

/**
 * The places and sealed names of a store's blobs; see the module documentation. Each call runs
 * at once (node:crypto), so that a store may file a write in the order it was asked.
 */
export class BlobPlaces {
  #naming: Uint8Array<ArrayBuffer>;
  #sealing: Uint8Array<ArrayBuffer>;

  private constructor(naming: Uint8Array<ArrayBuffer>, sealing: Uint8Array<ArrayBuffer>) {
    this.#naming = naming;
    this.#sealing = sealing;
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
    const mac = createHmac("sha256", this.#naming).update(JSON.stringify([owner, namespace]));
    return new Uint8Array(mac.digest());
  }

  /** The owner and namespace of blob `blobId`, sealed together. */
  seal(blobId: string, owner: string, namespace: string): Uint8Array<ArrayBuffer> {
    const plain = encoder.encode(JSON.stringify([owner, namespace]));
    return sealNow(this.#sealing, plain, aadOf(blobId));
  }

  /** What `seal` sealed for `blobId`; throws for another blob's or an altered seal. */
  open(blobId: string, sealed: Uint8Array): { owner: string; namespace: string } {
    const plain = openNow(this.#sealing, sealed, aadOf(blobId));
    const [owner, namespace] = JSON.parse(decoder.decode(plain)) as [string, string];
    return { owner, namespace };
  }
}

function aadOf(blobId: string): Uint8Array {
  return encoder.encode(`svc-blob-name:${blobId}`);
}
