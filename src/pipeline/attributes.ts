/**
 * What a memory carries besides its text: tags, a thread, an expiry, the memory it replaces and
 * who remembered it (its provenance). They travel with the text through the job queue
 * (`encodePayload`: the payload is sealed while it waits, as the text alone was) and are
 * indexed with the memory (`MemoryInfo`): tags and the thread as keyed hashes to filter and rank
 * on, and the tags, thread and provenance in clear only sealed (`AttributeSeal`, AES-256-GCM
 * under a key derived from the relayer's secret, bound to the memory), so list, get and recall
 * can show them and an update can keep them.
 *
 * @example
 * ```ts
 * const payload = encodePayload("I keep bees", { tags: ["hobby"], expiresAt: Date.now() + 1e6 });
 * decodePayload(payload); // { text: "I keep bees", attributes: { tags: ["hobby"], … } }
 * ```
 */
import { LruMap } from "@svc/util/lru_map";
import { deriveAesKey, hkdfMaster, openText, sealToText } from "@svc/util/sealing";

/** Who stored a memory: the signing key's address and label at the time, and when. */
export interface Provenance {
  /** The address of the key that signed the request storing the memory. */
  address: string;
  /** The key's label at that time (`"owner"` for the owner's own key; may be empty). */
  label: string;
  /** Unix milliseconds; absent: when the memory was stored (its `createdAt`). */
  at?: number;
}

/** Provenance as the API shows it: a memory's `remembered_by`. */
export interface RememberedBy {
  /** The address of the key that stored the memory. */
  address: string;
  /** The key's label at that time (`"owner"` for the owner's own key; may be empty). */
  label: string;
  /** When it was stored (ISO 8601). */
  at: string;
}

/** `remembered_by` of a memory whose sealed provenance is `by` (`null` when none was kept). */
export function rememberedByOf(by: Required<Provenance> | null): RememberedBy | null {
  return by && { address: by.address, label: by.label, at: new Date(by.at).toISOString() };
}

/** A memory's attributes, as remember and update give them. */
export interface MemoryAttributes {
  /** Tags (at most 16, each 1–64 characters). */
  tags?: string[];
  /**
   * The conversation or session the memory belongs to (1–128 characters): recall ranks a
   * memory together with the memories remembered next to it in the same thread.
   */
  thread?: string;
  /** Unix milliseconds after which the memory is never returned, and is erased. */
  expiresAt?: number;
  /** The id of the memory this one replaces (erased once this one is recallable). */
  replaces?: string;
  /** Unix milliseconds when the first version of a replaced memory was remembered. */
  firstCreatedAt?: number;
  /** Who stored this version (absent: not recorded). */
  rememberedBy?: Provenance;
}

/** Marks a payload that carries attributes (a bare text never starts with it, see below). */
const WITH_ATTRIBUTES = "\u0000";

/** Whether `attributes` give any attribute. */
export function hasAttributes(attributes: MemoryAttributes): boolean {
  return Object.values(attributes).some((value) => value !== undefined);
}

/** A job's payload: the text alone when it has no attributes, else both as JSON. */
export function encodePayload(text: string, attributes: MemoryAttributes = {}): string {
  if (!hasAttributes(attributes) && !text.startsWith(WITH_ATTRIBUTES)) return text;
  return WITH_ATTRIBUTES + JSON.stringify({ text, attributes });
}

/** What `encodePayload` encoded (a payload queued by an earlier version is a bare text). */
export function decodePayload(payload: string): { text: string; attributes: MemoryAttributes } {
  if (!payload.startsWith(WITH_ATTRIBUTES)) return { text: payload, attributes: {} };
  return JSON.parse(payload.slice(WITH_ATTRIBUTES.length));
}

/** The memory sealed attributes belong to. */
export interface AttributePlace {
  memoryId: string;
  owner: string;
  namespace: string;
}

/** What a memory's row keeps sealed: the attributes shown in clear by list, get and recall. */
export interface SealedAttributes {
  tags: string[];
  /** The memory's thread, when it has one. */
  thread?: string;
  /** Who stored the memory, and when (Unix ms); absent in rows sealed before provenance. */
  by?: Required<Provenance>;
}

/** What `AttributeSeal.attributes` opens: the tags, the thread, and the provenance or `null`. */
export interface OpenedAttributes {
  tags: string[];
  thread?: string;
  rememberedBy: Required<Provenance> | null;
}

/**
 * What a value sealed under `label` for the memory at `place` is bound to: each kind of value has
 * its own label, so that none opens as another (a row's attributes as a blob's, for instance).
 */
export function placeData(
  label: string,
  { memoryId, owner, namespace }: AttributePlace,
): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify([label, owner, namespace, memoryId]));
}

const ROW_LABEL = "svc-attributes-v1";
const BLOB_LABEL = "svc-blob-attributes-v1";

/** Sealed attributes kept opened, so that recall and list do not decrypt them each time. */
const OPENED_KEPT = 20_000;

/**
 * Seals and opens the clear attributes kept in a memory's row (`MemoryInfo.sealed`). What it
 * opened is kept in memory (the last 20,000), by sealed value and place: the relayer holds the
 * key that opens them anyway, and recall then decrypts nothing it opened before.
 */
export class AttributeSeal {
  #key: CryptoKey;
  #opened = new LruMap<string, { place: string; attributes: SealedAttributes }>(OPENED_KEPT);

  private constructor(key: CryptoKey) {
    this.#key = key;
  }

  /** The seal keyed by `secret` (the relayer's 32 secret bytes). */
  static async fromSecret(secret: Uint8Array<ArrayBuffer>): Promise<AttributeSeal> {
    return new AttributeSeal(
      await deriveAesKey(await hkdfMaster(secret), "svc-attributes-v1", "memory attributes"),
    );
  }

  /** `attributes` sealed for the memory at `place`: an opaque base64url string. */
  async seal(place: AttributePlace, attributes: SealedAttributes): Promise<string> {
    const plaintext = new TextEncoder().encode(JSON.stringify(attributes));
    return await sealToText(this.#key, plaintext, placeData(ROW_LABEL, place));
  }

  /**
   * The tags, thread and provenance sealed for `place`: none and `null` when `sealed` is
   * absent, does not open, or was sealed before provenance was kept.
   */
  async attributes(place: AttributePlace, sealed: string | undefined): Promise<OpenedAttributes> {
    const opened = sealed ? await this.open(place, sealed) : null;
    return {
      tags: opened?.tags ?? [],
      ...(opened?.thread !== undefined && { thread: opened.thread }),
      rememberedBy: opened?.by ?? null,
    };
  }

  /**
   * A memory's attributes as remember gave them, sealed for its blob's metadata
   * (`BlobMeta.sealedAttributes`), so that restore indexes the memory with them.
   */
  async sealForBlob(place: AttributePlace, attributes: MemoryAttributes): Promise<string> {
    const plaintext = new TextEncoder().encode(JSON.stringify(attributes));
    return await sealToText(this.#key, plaintext, placeData(BLOB_LABEL, place));
  }

  /** What `sealForBlob` sealed for `place`; `null` when it does not open. */
  async openFromBlob(place: AttributePlace, sealed: string): Promise<MemoryAttributes | null> {
    const plaintext = await openText(this.#key, sealed, placeData(BLOB_LABEL, place));
    try {
      return plaintext && JSON.parse(new TextDecoder().decode(plaintext));
    } catch {
      return null;
    }
  }

  /** What `seal` sealed for `place`; `null` when it does not open (altered, moved, re-keyed). */
  async open(place: AttributePlace, sealed: string): Promise<SealedAttributes | null> {
    const where = JSON.stringify([place.owner, place.namespace, place.memoryId]);
    const kept = this.#opened.get(sealed);
    if (kept?.place === where) return copyOf(kept.attributes);
    const plaintext = await openText(this.#key, sealed, placeData(ROW_LABEL, place));
    if (plaintext === null) return null;
    try {
      const attributes: SealedAttributes = JSON.parse(new TextDecoder().decode(plaintext));
      this.#opened.set(sealed, { place: where, attributes });
      return copyOf(attributes);
    } catch {
      return null;
    }
  }
}

function copyOf({ tags, thread, by }: SealedAttributes): SealedAttributes {
  return {
    tags: [...tags],
    ...(thread !== undefined && { thread }),
    ...(by && { by: { ...by } }),
  };
}
