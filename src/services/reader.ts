/**
 * Reads memories back: a blob fetched and decrypted for its owner, kept in a `TextCache` when
 * the cipher holds its own keys, as is the text the worker hands over when it stores a memory
 * (`keep`), so that a memory recalled soon after it is remembered is neither read nor decrypted.
 * Recall, list, get and restore read through one reader, so an erase that forgets a blob's text
 * forgets it for all of them.
 */
import { LruMap } from "@svc/util/lru_map";
import type { BlobStore, Cipher, DecryptCredentials, MemoryInfo } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { TextCache } from "./text_cache.ts";

/** What a read may carry besides the memory. */
export interface ReadOptions {
  /** The caller's key, for ciphers that decrypt with it (Seal). */
  credentials?: DecryptCredentials;
  signal?: AbortSignal;
}

export interface ReaderDependencies {
  cipher: Cipher;
  blobs: BlobStore;
  logger: Logger;
  /** Bytes of texts kept when the cipher holds its own keys (default 64 MiB; 0 keeps none). */
  textCacheBytes?: number;
  /** Told of each text no longer kept (erased, or pushed out), for what others keep of it. */
  dropped?: (text: string) => void;
}

/** Reads memories; see the module documentation. */
export interface MemoryReader {
  /**
   * The memory's text; `null` for a client-encrypted memory (its `info` says so: not read), and
   * `null` (logged) when its blob is missing or does not decrypt as this memory's (erased,
   * altered, another memory's or owner's: the blob store then drops its copy close by, see
   * `BlobStore.forget`). A caller the cipher refuses (403 from a cipher that decrypts with the
   * caller's key, for a memory it does not call erased or another's) or an unavailable backend
   * (5xx) fails the call instead.
   */
  read(
    owner: string,
    memory: { id: string; blobId: string; info?: MemoryInfo },
    options: ReadOptions,
  ): Promise<string | null>;
  /**
   * Keeps `text` as what `owner`'s blob `blobId` decrypts to, as a read would (the worker hands
   * over the text of each memory it stores); nothing when the blob was forgotten meanwhile, or
   * when the cipher does not hold its own keys.
   */
  keep(owner: string, blobId: string, text: string): void;
  /** Forgets what is kept of a blob (its memory was erased). */
  forget(blobId: string): void;
  /** Whether the text of `owner`'s blob `blobId` is kept now (never without the cipher's keys). */
  holds(owner: string, blobId: string): boolean;
}

/** What a reader logs of a memory whose blob is gone. */
export const NO_BLOB = "memory has no blob";

/** Blobs whose trouble a reader remembers having logged (each is logged once). */
const REPORTED_BLOBS = 10_000;

export function createReader(deps: ReaderDependencies): MemoryReader {
  const { cipher, blobs, logger } = deps;
  const cacheBytes = deps.textCacheBytes ?? 64 * 2 ** 20;
  const cache = cipher.holdsKeys && cacheBytes > 0
    ? new TextCache(cacheBytes, deps.dropped)
    : undefined;
  /** Blobs forgotten lately: a read that began before the erase does not keep their text. */
  const forgotten = new Set<string>();
  const reported = new LruMap<string, true>(REPORTED_BLOBS);
  /** Logs what is wrong with a blob, once; not for one erased meanwhile (a read that raced it). */
  const report = (blobId: string, message: string, fields: Record<string, unknown>) => {
    if (reported.get(blobId) || forgotten.has(blobId)) return;
    reported.set(blobId, true);
    logger.warn(message, fields);
  };
  return {
    async read(owner, { id, blobId, info }, { credentials, signal }) {
      if (info?.manual) return null;
      const cached = cache?.get(owner, blobId);
      if (cached !== undefined) return cached;
      let bytes: Uint8Array<ArrayBuffer> | null = null;
      try {
        bytes = await blobs.get(blobId, { signal });
        if (!bytes) {
          report(blobId, NO_BLOB, { memory_id: id, blob_id: blobId });
          return null;
        }
        const plaintext = await cipher.decrypt(owner, bytes, { credentials, signal, memoryId: id });
        const text = new TextDecoder().decode(plaintext);
        if (!forgotten.has(blobId)) cache?.set(owner, blobId, text);
        return text;
      } catch (error) {
        signal?.throwIfAborted();
        if (failsTheCall(cipher, error)) throw error;
        report(blobId, "memory cannot be decrypted", { memory_id: id, error });
        // Bytes that are not this memory's: the next read fetches them again.
        if (bytes && !erased(error) && !forgotten.has(blobId)) await blobs.forget?.(blobId);
        return null;
      }
    },
    holds: (owner, blobId) => cache?.holds(owner, blobId) ?? false,
    keep(owner, blobId, text) {
      if (!forgotten.has(blobId)) cache?.set(owner, blobId, text);
    },
    forget(blobId) {
      cache?.delete(blobId);
      if (forgotten.size >= 10_000) forgotten.clear();
      forgotten.add(blobId);
    },
  };
}

/** Reasons a cipher gives for refusing a memory rather than its caller (see `Cipher.decrypt`). */
const MEMORY_REFUSALS = new Set(["erased", "mismatch"]);

/**
 * Whether a read's failure fails the call, not just the memory: an unavailable backend (5xx), or
 * a cipher that decrypts with the caller's key refusing the caller. A cipher of its own keys
 * refuses only what it cannot read (erased, altered, another's); one of the caller's key refuses
 * the caller unless it says the memory is erased or the ciphertext is another's.
 */
function failsTheCall(cipher: Cipher, error: unknown): boolean {
  if (!(error instanceof SvcError)) return false;
  if (error.status >= 500) return true;
  return error.code === "forbidden" && !cipher.holdsKeys &&
    !MEMORY_REFUSALS.has(String(error.details.reason));
}

/** Whether a cipher refused a memory as erased: its bytes are right, and stay where they are. */
function erased(error: unknown): boolean {
  return error instanceof SvcError && error.details.reason === "erased";
}
