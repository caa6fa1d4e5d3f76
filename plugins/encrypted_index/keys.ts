/**
 * The keys of the encrypted index, all derived by HKDF-SHA-256 from the relayer's 32-byte secret:
 *
 * - a naming key (HMAC-SHA-256) that turns an owner, and an owner's namespace, into the opaque
 *   names the storage files them under, so no address or namespace name is written in clear;
 * - one AES-256-GCM key per namespace, sealing its blocks of rows and its sealed name.
 *
 * A sealed value is a random 12-byte IV followed by the AES-GCM ciphertext and tag; the
 * associated data binds it to its place (a block to its namespace and block id).
 */
import { deriveAesKey, hkdfMaster, openBytes, sealBytes, SvcError } from "../../src/kit.ts";

const SALT = new TextEncoder().encode("svc-encrypted-index-v1");
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

function base64url(bytes: ArrayBuffer): string {
  return new Uint8Array(bytes).toBase64({ alphabet: "base64url", omitPadding: true });
}

/** Derives and caches the index's keys. */
export class IndexKeys {
  #master: CryptoKey;
  #naming: CryptoKey;
  #refs = new Map<string, Promise<NamespaceRef>>();
  #blockKeys = new Map<string, Promise<CryptoKey>>();

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
    const naming = await crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: SALT, info: encoder.encode("naming") },
      master,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign"],
    );
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
    const cacheKey = JSON.stringify([owner, namespace]);
    let ref = this.#refs.get(cacheKey);
    if (!ref) {
      if (this.#refs.size >= CACHE_LIMIT) this.#refs.clear();
      ref = Promise.all([
        this.owner(owner),
        this.#hash(JSON.stringify(["namespace", owner, namespace])),
      ]).then(([ownerHash, ns]) => ({ owner: ownerHash, ns }));
      this.#refs.set(cacheKey, ref);
    }
    return ref;
  }

  /** The namespace's AES-GCM key. */
  #blockKey(ref: NamespaceRef): Promise<CryptoKey> {
    let key = this.#blockKeys.get(ref.ns);
    if (!key) {
      if (this.#blockKeys.size >= CACHE_LIMIT) this.#blockKeys.clear();
      key = deriveAesKey(this.#master, SALT, `block ${ref.ns}`);
      this.#blockKeys.set(ref.ns, key);
    }
    return key;
  }

  /** Encrypts `plaintext` under the namespace's key, bound to `place`. */
  async seal(
    ref: NamespaceRef,
    place: string,
    plaintext: Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    return sealBytes(await this.#blockKey(ref), plaintext, encoder.encode(place));
  }

  /** Decrypts what `seal` made for the same namespace and place; throws when it was altered. */
  async open(
    ref: NamespaceRef,
    place: string,
    sealed: Uint8Array<ArrayBuffer>,
  ): Promise<ArrayBuffer> {
    try {
      return await openBytes(await this.#blockKey(ref), sealed, encoder.encode(place));
    } catch (cause) {
      throw new SvcError(
        "internal",
        "Cannot read the vector index: a block does not decrypt (damaged or altered)",
        { cause },
      );
    }
  }
}
