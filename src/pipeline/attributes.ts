/**
 * What a memory carries besides its text: tags, a thread, an expiry and the memory it replaces. They
 * travel with the text through the job queue (`encodePayload`: the payload is sealed while it
 * waits, as the text alone was) and are indexed with the memory (`MemoryInfo`): tags and the
 * thread as keyed hashes to filter and rank on, and in clear only sealed (`AttributeSeal`,
 * AES-256-GCM under a key derived from the relayer's secret, bound to the memory), so list can
 * show them and an update can keep them.
 *
 * @example
 * ```ts
 * const payload = encodePayload("I keep bees", { tags: ["hobby"], expiresAt: Date.now() + 1e6 });
 * decodePayload(payload); // { text: "I keep bees", attributes: { tags: ["hobby"], … } }
 * ```
 */
import { deriveAesKey, hkdfMaster, openBytes, sealBytes } from "../crypto/sealing.ts";

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
}

/** Marks a payload that carries attributes (a bare text never starts with it, see below). */
const WITH_ATTRIBUTES = "\u0000";

/** A job's payload: the text alone when it has no attributes, else both as JSON. */
export function encodePayload(text: string, attributes: MemoryAttributes = {}): string {
  const bare = Object.values(attributes).every((value) => value === undefined);
  if (bare && !text.startsWith(WITH_ATTRIBUTES)) return text;
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

/** What a memory's row keeps sealed: the attributes shown in clear by list and get. */
export interface SealedAttributes {
  tags: string[];
  /** The memory's thread, when it has one. */
  thread?: string;
}

function associatedData({ memoryId, owner, namespace }: AttributePlace) {
  return new TextEncoder().encode(
    JSON.stringify(["svc-attributes-v1", owner, namespace, memoryId]),
  );
}

/** Seals and opens the clear attributes kept in a memory's row (`MemoryInfo.sealed`). */
export class AttributeSeal {
  #key: CryptoKey;

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
    const sealed = await sealBytes(this.#key, plaintext, associatedData(place));
    return sealed.toBase64({ alphabet: "base64url", omitPadding: true });
  }

  /** The tags sealed for `place` (none when `sealed` is absent or does not open). */
  async tags(place: AttributePlace, sealed: string | undefined): Promise<string[]> {
    return sealed ? (await this.open(place, sealed))?.tags ?? [] : [];
  }

  /** What `seal` sealed for `place`; `null` when it does not open (altered, moved, re-keyed). */
  async open(place: AttributePlace, sealed: string): Promise<SealedAttributes | null> {
    try {
      const bytes = Uint8Array.fromBase64(sealed, { alphabet: "base64url" });
      const plaintext = await openBytes(this.#key, bytes, associatedData(place));
      return JSON.parse(new TextDecoder().decode(plaintext));
    } catch {
      return null;
    }
  }
}
