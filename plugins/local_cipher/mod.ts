/**
 * Envelope encryption with AES-256-GCM: a random data key per memory, wrapped by a per-owner
 * key derived with HKDF from a 32-byte master key. The owner is bound into both layers as
 * associated data, so a blob moved to another owner, or altered, fails to decrypt.
 *
 * Format version 2, for a memory encrypted with its id (`encrypt(…, { memoryId })`): the
 * wrapped data key is kept in the key store (`keys.sqlite`, or one given to `open`, such as the
 * PostgreSQL store many relayers share; see `key_store.ts`), apart from the
 * ciphertext, under the owner, the memory id and a random key tag. The ciphertext carries what
 * finds it:
 * `0x02 ‖ id_len (1) ‖ memory_id (UTF-8, 1–255 bytes) ‖ key_tag (8) ‖ data_iv (12) ‖
 * ciphertext (+ 16 tag)`, the header and the owner bound as associated data (the wrapped key,
 * `wrap_iv (12) ‖ wrapped_key (32 + 16 tag)`, binds them too). `erase` deletes the memory's
 * wrapped keys: from then on no copy of its ciphertext decrypts, whoever holds the master key.
 *
 * Format version 1, without a memory id (and as earlier versions wrote every memory), carries
 * the wrapped key itself and cannot be erased:
 * `0x01 ‖ wrap_iv (12) ‖ wrapped_key (32 + 16 tag) ‖ data_iv (12) ‖ ciphertext (+ 16 tag)`.
 *
 * @example
 * ```ts
 * const cipher = await LocalCipher.open({
 *   masterKey: crypto.getRandomValues(new Uint8Array(32)),
 *   keyStorePath: `${dataDir}/keys.sqlite`,
 * });
 * const sealed = await cipher.encrypt(owner, new TextEncoder().encode("I am vegetarian"), {
 *   memoryId,
 * });
 * await cipher.erase(owner, [memoryId]); // `sealed` no longer decrypts: forbidden
 * await cipher.close();
 * ```
 */
import {
  type CallOptions,
  type Cipher,
  type DecryptOptions,
  type EncryptOptions,
  JOB_TEXT_KEY_TAG,
  SvcError,
} from "@svc/relayer/kit";
import { LruMap } from "@svc/util/lru_map";
import {
  concatBytes,
  deriveAesKey,
  hkdfMaster,
  IV_BYTES,
  openNow,
  sealNow,
  TAG_BYTES,
} from "@svc/util/sealing";
import {
  type KeyPlace,
  type KeyStore,
  MAX_MEMORY_ID_BYTES,
  MAX_OWNER_BYTES,
  MemoryKeyStore,
  SqliteKeyStore,
} from "./key_store.ts";

export type {
  CallOptions,
  Cipher,
  DecryptCredentials,
  DecryptOptions,
  EncryptOptions,
  KeyPlace,
  KeyStore,
} from "@svc/relayer/kit";

const V1 = 1;
const V1_HEADER_BYTES = 1 + 12 + 48 + 12;
const V2 = 2;
const KEY_TAG_BYTES = 8;
const WRAPPED_BYTES = IV_BYTES + 32 + TAG_BYTES;
const WRAP_LABEL = new TextEncoder().encode("svc-local-cipher:v2:key\n");

const utf8 = new TextEncoder();

/** The master key, and where the memories' wrapped data keys are kept. */
export interface LocalCipherOptions {
  /** 32 secret bytes; every owner's key is derived from them. */
  masterKey: Uint8Array<ArrayBuffer>;
  /**
   * The key store's SQLite file (the composition passes `<data dir>/keys.sqlite`), opened by
   * `open` and closed by `close`. Without it the memories' keys are held in memory only: what
   * was encrypted with a memory id does not decrypt once the cipher is gone (tests, tools).
   */
  keyStorePath?: string;
  /**
   * The key store itself, instead of `keyStorePath` (e.g. the PostgreSQL one many relayers
   * share, or the relayer's `keys.sqlite` the job queue keeps its texts' keys in too); the
   * cipher closes it when it closes, unless `closesKeyStore` is false. A `SqliteKeyStore` is
   * checked as one opened from its path is.
   */
  keyStore?: KeyStore;
  /** Whether `close` closes `keyStore` (default true); false when its opener closes it. */
  closesKeyStore?: boolean;
}

/**
 * A memory id as a ciphertext carries it (its UTF-8 read back, so that an id with a lone
 * surrogate finds its key), or `null` when it is not 1 to 255 bytes.
 */
function canonicalId(memoryId: unknown): string | null {
  if (typeof memoryId !== "string") return null;
  const bytes = utf8.encode(memoryId);
  if (bytes.length === 0 || bytes.length > MAX_MEMORY_ID_BYTES) return null;
  return new TextDecoder().decode(bytes);
}

/** A version 2 ciphertext's parts, as `decrypt` reads them. */
interface V2Parts {
  /** `0x02 ‖ id_len ‖ memory_id ‖ key_tag`. */
  header: Uint8Array<ArrayBuffer>;
  memoryId: string;
  keyTag: string;
  /** `data_iv ‖ ciphertext (+ 16 tag)`. */
  sealed: Uint8Array<ArrayBuffer>;
}

function parseV2(ciphertext: Uint8Array<ArrayBuffer>): V2Parts | null {
  const idLength = ciphertext[1] ?? 0;
  const headerBytes = 2 + idLength + KEY_TAG_BYTES;
  if (idLength === 0 || ciphertext.byteLength < headerBytes + IV_BYTES + TAG_BYTES) {
    return null;
  }
  const header = ciphertext.subarray(0, headerBytes);
  return {
    header,
    memoryId: new TextDecoder().decode(header.subarray(2, 2 + idLength)),
    keyTag: header.subarray(2 + idLength).toHex(),
    sealed: ciphertext.subarray(headerBytes),
  };
}

/**
 * The plaintext of an envelope: the data key opened from `wrapped` under `ownerKey`, then
 * `sealed` under the data key; 403 when either does not open.
 */
function openEnvelope(
  ownerKey: CryptoKey,
  wrapped: Uint8Array,
  wrapAad: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
): Uint8Array<ArrayBuffer> {
  try {
    const rawDataKey = openNow(ownerKey, wrapped, wrapAad);
    try {
      return openNow(rawDataKey, sealed, aad);
    } finally {
      rawDataKey.fill(0);
    }
  } catch (cause) {
    throw new SvcError(
      "forbidden",
      "Cannot decrypt: the ciphertext was altered or belongs to another owner",
      { cause },
    );
  }
}

/**
 * `plaintext` sealed under a fresh data key (`sealed`, bound to `aad`), and the data key sealed
 * under `ownerKey` (`wrapped`, bound to `wrapAad`).
 */
function sealEnvelope(
  ownerKey: CryptoKey,
  plaintext: Uint8Array,
  wrapAad: Uint8Array,
  aad: Uint8Array,
): { wrapped: Uint8Array<ArrayBuffer>; sealed: Uint8Array<ArrayBuffer> } {
  const rawDataKey = crypto.getRandomValues(new Uint8Array(32));
  const wrapped = sealNow(ownerKey, rawDataKey, wrapAad);
  const sealed = sealNow(rawDataKey, plaintext, aad);
  rawDataKey.fill(0);
  return { wrapped, sealed };
}

/** A random key tag, never the job queue's (`JOB_TEXT_KEY_TAG`). */
function newKeyTag(): Uint8Array<ArrayBuffer> {
  while (true) {
    const tag = crypto.getRandomValues(new Uint8Array(KEY_TAG_BYTES));
    if (tag.toHex() !== JOB_TEXT_KEY_TAG) return tag;
  }
}

/** AES-256-GCM envelope encryption under a master key; see the module documentation. */
export class LocalCipher implements Cipher, AsyncDisposable {
  readonly name = "local-envelope-aes-256-gcm";
  readonly holdsKeys = true;
  #master: CryptoKey;
  #keys: KeyStore;
  /** Whether `close` closes `#keys`. */
  #ownsKeys: boolean;
  #ownerKeys = new LruMap<string, Promise<CryptoKey>>(10_000);
  /** The version 2 encryptions under way, by `[owner, memoryId]` as JSON. */
  #encrypting = new Map<string, Set<Promise<unknown>>>();

  private constructor(master: CryptoKey, keys: KeyStore, ownsKeys: boolean) {
    this.#master = master;
    this.#keys = keys;
    this.#ownsKeys = ownsKeys;
  }

  /** A cipher over a 32-byte master key, with its key store opened. */
  static async open(options: LocalCipherOptions): Promise<LocalCipher> {
    if (options.masterKey.byteLength !== 32) {
      throw new TypeError("The master key must be 32 bytes");
    }
    const master = await hkdfMaster(options.masterKey);
    if (options.keyStore && options.keyStorePath !== undefined) {
      throw new TypeError("Give the local cipher a key store or its path, not both");
    }
    if (options.keyStorePath === undefined) {
      const keys = options.keyStore ?? new MemoryKeyStore();
      const owned = options.closesKeyStore ?? true;
      const cipher = new LocalCipher(master, keys, owned);
      if (keys instanceof SqliteKeyStore) await cipher.#check(keys, "a given key store", owned);
      return cipher;
    }
    const keys = await SqliteKeyStore.open(options.keyStorePath);
    const cipher = new LocalCipher(master, keys, true);
    await cipher.#check(keys, `the key store ${options.keyStorePath}`, true);
    return cipher;
  }

  /**
   * Refuses `keys` (named `name`) when the master key does not unwrap its keys; closes it then
   * when `owned`.
   */
  async #check(keys: SqliteKeyStore, name: string, owned: boolean): Promise<void> {
    let unwraps: boolean;
    try {
      unwraps = await this.#unwraps(keys);
    } catch (error) {
      if (owned) await keys.close();
      throw error;
    }
    if (unwraps) return;
    if (owned) await keys.close();
    throw new SvcError(
      "conflict",
      `Cannot open ${name}: its memories' keys were wrapped ` +
        "under another master key. Start with that key (SVC_MASTER_KEY, or the key file " +
        "of the data directory it came from); with this one nothing in it can be read.",
    );
  }

  /** Whether the master key unwraps the first whole key in `keys` (true when there is none). */
  async #unwraps(keys: SqliteKeyStore): Promise<boolean> {
    for await (const { place: { owner, memoryId, keyTag }, wrapped } of keys.entries()) {
      // A damaged entry is the one memory's loss (`decrypt` finds no key): look further. A job's
      // text key is the job queue's, wrapped otherwise.
      if (wrapped.byteLength !== WRAPPED_BYTES || keyTag === JOB_TEXT_KEY_TAG) continue;
      const id = utf8.encode(memoryId);
      const header = concatBytes(new Uint8Array([V2, id.length]), id, Uint8Array.fromHex(keyTag));
      const ownerKey = await this.#ownerKey(owner);
      try {
        openNow(ownerKey, wrapped, concatBytes(WRAP_LABEL, header, utf8.encode(owner))).fill(0);
        return true;
      } catch {
        return false;
      }
    }
    return true;
  }

  #ownerKey(owner: string): Promise<CryptoKey> {
    return this.#ownerKeys.getOrSet(
      owner,
      () => deriveAesKey(this.#master, "svc-local-cipher-v1", `owner:${owner}`),
    );
  }

  async encrypt(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
    options?: EncryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    if (options?.memoryId === undefined) return await this.#encryptV1(owner, plaintext);
    const memoryId = canonicalId(options.memoryId);
    if (memoryId === null) {
      throw new SvcError(
        "bad_request",
        `Cannot encrypt: a memory id must be 1 to ${MAX_MEMORY_ID_BYTES} bytes`,
      );
    }
    const id = utf8.encode(memoryId);
    const ownerBytes = utf8.encode(owner);
    if (ownerBytes.length > MAX_OWNER_BYTES) {
      throw new SvcError(
        "bad_request",
        `Cannot encrypt: the owner is longer than ${MAX_OWNER_BYTES} bytes`,
      );
    }
    const work = this.#encryptV2(owner, ownerBytes, memoryId, id, plaintext);
    // An erase of the memory that starts before this resolves waits for it, and reaches it.
    const slot = JSON.stringify([owner, memoryId]);
    let running = this.#encrypting.get(slot);
    if (!running) this.#encrypting.set(slot, running = new Set());
    running.add(work);
    const done = () => {
      running.delete(work);
      if (running.size === 0) this.#encrypting.delete(slot);
    };
    work.then(done, done);
    return await work;
  }

  async #encryptV2(
    owner: string,
    ownerBytes: Uint8Array<ArrayBuffer>,
    memoryId: string,
    id: Uint8Array<ArrayBuffer>,
    plaintext: Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    const keyTag = newKeyTag();
    const header = concatBytes(new Uint8Array([V2, id.length]), id, keyTag);
    const { wrapped, sealed } = sealEnvelope(
      await this.#ownerKey(owner),
      plaintext,
      concatBytes(WRAP_LABEL, header, ownerBytes),
      concatBytes(header, ownerBytes),
    );
    // The ciphertext is handed out only once its key is durable.
    await this.#keys.put({ owner, memoryId, keyTag: keyTag.toHex() }, wrapped);
    return concatBytes(header, sealed);
  }

  async #encryptV1(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    const aad = utf8.encode(`svc:v${V1}:${owner}`);
    const { wrapped, sealed } = sealEnvelope(await this.#ownerKey(owner), plaintext, aad, aad);
    return concatBytes(new Uint8Array([V1]), wrapped, sealed);
  }

  /**
   * The plaintext, as `Cipher.decrypt` says. With `memoryId`, a version 2 ciphertext of another
   * memory is refused (`reason: "mismatch"`); a version 1 ciphertext names no memory and is
   * bound to its owner alone, so it decrypts whichever memory is expected.
   */
  async decrypt(
    owner: string,
    ciphertext: Uint8Array<ArrayBuffer>,
    options?: DecryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    if (ciphertext[0] === V1 && ciphertext.byteLength >= V1_HEADER_BYTES + TAG_BYTES) {
      const aad = utf8.encode(`svc:v${V1}:${owner}`);
      const ownerKey = await this.#ownerKey(owner);
      return openEnvelope(ownerKey, ciphertext.subarray(1, 61), aad, ciphertext.subarray(61), aad);
    }
    const parts = ciphertext[0] === V2 ? parseV2(ciphertext) : null;
    if (!parts) {
      throw new SvcError("bad_request", "Cannot decrypt: not a version 1 or 2 svc ciphertext");
    }
    if (options?.memoryId !== undefined && parts.memoryId !== canonicalId(options.memoryId)) {
      throw new SvcError("forbidden", "Cannot decrypt: the ciphertext is another memory's", {
        details: { reason: "mismatch" },
      });
    }
    const ownerBytes = utf8.encode(owner);
    const place: KeyPlace = { owner, memoryId: parts.memoryId, keyTag: parts.keyTag };
    const stored = ownerBytes.length > MAX_OWNER_BYTES ? null : await this.#keys.get(place);
    if (!stored || stored.byteLength !== WRAPPED_BYTES) {
      throw new SvcError(
        "forbidden",
        "Cannot decrypt: no key is held for this memory (it was erased, the ciphertext " +
          "belongs to another owner, or the key store was restored from a backup older than it)",
      );
    }
    return openEnvelope(
      await this.#ownerKey(owner),
      stored,
      concatBytes(WRAP_LABEL, parts.header, ownerBytes),
      parts.sealed,
      concatBytes(parts.header, ownerBytes),
    );
  }

  /**
   * Deletes the wrapped keys of these memories of `owner` from the key store (durably, once
   * it resolves), those of encryptions still under way when it is called included. Version 1
   * ciphertexts carry their own key and are out of its reach.
   */
  async erase(owner: string, memoryIds: string[], options?: CallOptions): Promise<void> {
    options?.signal?.throwIfAborted();
    if (utf8.encode(owner).length > MAX_OWNER_BYTES) return;
    const ids = memoryIds.map(canonicalId).filter((id) => id !== null);
    if (ids.length === 0) return;
    await Promise.allSettled(
      ids.flatMap((id) => [...this.#encrypting.get(JSON.stringify([owner, id])) ?? []]),
    );
    await this.#keys.erase(owner, ids);
  }

  /**
   * Waits for the encryptions under way and their key writes, then closes the key store (one
   * given with `closesKeyStore: false` is left open).
   */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#encrypting.values()].flatMap((running) => [...running]));
    if (this.#ownsKeys) await this.#keys.close();
  }

  /** Closes the cipher, as `close` does. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
