/**
 * The keys of the encrypted index, all derived by HKDF-SHA-256 from the relayer's 32-byte secret:
 *
 * - a naming key (HMAC-SHA-256) that turns an owner, and an owner's namespace, into the opaque
 *   names the storage files them under, so no address or namespace name is written in clear;
 * - per namespace, a ChaCha20-Poly1305 key sealing its blocks of rows, and an AES-256-GCM key
 *   sealing its name (and the blocks of indexes of format 2 and before).
 *
 * A sealed name is a random 12-byte IV followed by the AES-GCM ciphertext and tag. A sealed
 * block is `BLOCK_MAGIC`, a random 12-byte nonce, the ChaCha20-Poly1305 ciphertext and tag; a
 * block without the magic, or whose tag fails under ChaCha20-Poly1305 (an AES-GCM IV may begin
 * with the magic), is opened as AES-GCM, as format 2 sealed every block. The associated data
 * binds a value to its place (a block to its namespace and block id).
 */
import { SvcError } from "@svc/relayer/kit";
import {
  chachaOpen,
  chachaSeal,
  concatBytes,
  deriveAesKey,
  deriveHmacKey,
  deriveRawKey,
  hkdfMaster,
  openBytes,
  sealBytes,
} from "@svc/util/sealing";

const SALT = new TextEncoder().encode("svc-encrypted-index-v1");
/** What a block sealed with ChaCha20-Poly1305 begins with ("SVB3"). */
export const BLOCK_MAGIC = new Uint8Array([0x53, 0x56, 0x42, 0x33]);
/** Names and keys kept for this many namespaces before the caches start over. */
const CACHE_LIMIT = 10_000;

/** Where a namespace is filed: keyed hashes of its owner, and of the owner and namespace. */
export interface NamespaceRef {
  /** The owner's keyed hash (22 base64url characters). */
  owner: string;
  /** The namespace's keyed hash, owner included (22 base64url characters). */
  ns: string;
}

const encoder = new TextEncoder();

/** `map`'s value for `key`, made on first use; the map starts over past `CACHE_LIMIT` entries. */
function cached<V>(map: Map<string, V>, key: string, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    if (map.size >= CACHE_LIMIT) map.clear();
    map.set(key, value = make());
  }
  return value;
}

function base64url(bytes: ArrayBuffer): string {
  return new Uint8Array(bytes).toBase64({ alphabet: "base64url", omitPadding: true });
}

/** Derives and caches the index's keys. */
export class IndexKeys {
  #master: CryptoKey;
  #naming: CryptoKey;
  #refs = new Map<string, Promise<NamespaceRef>>();
  #aesKeys = new Map<string, Promise<CryptoKey>>();
  #blockKeys = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

  private constructor(master: CryptoKey, naming: CryptoKey) {
    this.#master = master;
    this.#naming = naming;
  }

  /** The keys derived from `secret` (32 bytes). */
  static async derive(secret: Uint8Array<ArrayBuffer>): Promise<IndexKeys> {
    if (secret.byteLength !== 32) {
      throw new SvcError("internal", "Cannot open the vector index: the secret is not 32 bytes");
    }
    const master = await hkdfMaster(secret);
    const naming = await deriveHmacKey(master, SALT, "naming");
    return new IndexKeys(master, naming);
  }

  async #hash(text: string): Promise<string> {
    const mac = await crypto.subtle.sign("HMAC", this.#naming, encoder.encode(text));
    return base64url(mac).slice(0, 22);
  }

  /** A value that tells whether the index was written under this secret. */
  keyCheck(): Promise<string> {
    return this.#hash("key-check");
  }

  /** The owner's keyed hash. */
  owner(owner: string): Promise<string> {
    return this.#hash(JSON.stringify(["owner", owner]));
  }

  /** Where the owner's namespace is filed. */
  ref(owner: string, namespace: string): Promise<NamespaceRef> {
    return cached(this.#refs, JSON.stringify([owner, namespace]), () =>
      Promise.all([
        this.owner(owner),
        this.#hash(JSON.stringify(["namespace", owner, namespace])),
      ]).then(([ownerHash, ns]) => ({ owner: ownerHash, ns })));
  }

  /** The namespace's AES-GCM key (its name; blocks of format 2). */
  #aesKey(ref: NamespaceRef): Promise<CryptoKey> {
    return cached(this.#aesKeys, ref.ns, () => deriveAesKey(this.#master, SALT, `block ${ref.ns}`));
  }

  /** The namespace's ChaCha20-Poly1305 key (its blocks). */
  #blockKey(ref: NamespaceRef): Promise<Uint8Array<ArrayBuffer>> {
    return cached(
      this.#blockKeys,
      ref.ns,
      () => deriveRawKey(this.#master, SALT, `chacha ${ref.ns}`),
    );
  }

  /** Encrypts `plaintext` under the namespace's AES-GCM key, bound to `place` (its name). */
  async seal(
    ref: NamespaceRef,
    place: string,
    plaintext: Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    return sealBytes(await this.#aesKey(ref), plaintext, encoder.encode(place));
  }

  /** Decrypts what `seal` made for the same namespace and place; throws when it was altered. */
  async open(
    ref: NamespaceRef,
    place: string,
    sealed: Uint8Array<ArrayBuffer>,
  ): Promise<ArrayBuffer> {
    try {
      return await openBytes(await this.#aesKey(ref), sealed, encoder.encode(place));
    } catch (cause) {
      throw new SvcError(
        "internal",
        "Cannot read the vector index: a block does not decrypt (damaged or altered)",
        { cause },
      );
    }
  }

  /** Encrypts block `id` of the namespace (its plaintext) with ChaCha20-Poly1305. */
  async sealBlock(
    ref: NamespaceRef,
    id: string,
    plaintext: Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    const sealed = chachaSeal(await this.#blockKey(ref), plaintext, encoder.encode(`block ${id}`));
    return concatBytes(BLOCK_MAGIC, sealed);
  }

  /**
   * Decrypts block `id` of the namespace, as `sealBlock` or format 2 (`seal`, AES-GCM) sealed
   * it; throws when it was altered.
   */
  async openBlock(
    ref: NamespaceRef,
    id: string,
    sealed: Uint8Array<ArrayBuffer>,
  ): Promise<ArrayBuffer> {
    const place = `block ${id}`;
    if (BLOCK_MAGIC.every((byte, i) => sealed[i] === byte)) {
      try {
        const body = sealed.subarray(BLOCK_MAGIC.length);
        return chachaOpen(await this.#blockKey(ref), body, encoder.encode(place)).buffer;
      } catch {
        // An AES-GCM block whose IV begins with the magic (one in 2³²), or an altered one.
      }
    }
    return await this.open(ref, place, sealed);
  }
}
