/**
 * A `BlobStore` on Walrus. Blobs are stored through a Walrus publisher's HTTP API
 * (`PUT /v1/blobs?epochs=N&deletable=true&send_object_to=<operator>`), which registers and
 * certifies them and sends the resulting Walrus `Blob` object to the operator's Sui address.
 * The plugin then writes svc's metadata (`app_id`, `owner`, `namespace`, `memory_id`,
 * `created_at`, `vector`) as the object's Walrus attributes in a Sui transaction signed by the
 * operator key, so restore can find an owner's blobs from the chain alone.
 *
 * Reads go to the aggregators (`GET /v1/blobs/<blobId>`) in order with a short race (the next
 * one starts when the current one fails or is slow; the first answer wins) behind a local,
 * digest-checked cache of the bytes, which also receives every stored blob. `forget` drops a
 * blob's cached copy (the reader calls it for bytes that do not decrypt as the memory asked for).
 *
 * Blobs are stored as deletable (Walrus's default) so that every store gives the operator its
 * own `Blob` object to carry the attributes, and so that they can be deleted. Storing the same
 * bytes twice gives the same blob id; `list` reports a blob id once, with the metadata written
 * first.
 *
 * `delete` drops the blob from the cache and deletes the operator's `Blob` objects holding it
 * (with a memory id, only that memory's; it needs `systemObjectId`, see `blob_objects.ts`), so
 * `list` leaves it out. What a caching aggregator or a reader copied before is out of reach, as
 * Walrus documents.
 *
 * @example
 * ```ts
 * const store = await WalrusBlobStore.open({
 *   publisherUrl: "https://publisher.example",
 *   aggregatorUrls: ["https://aggregator.example"],
 *   cacheDir: "./data/walrus_cache",
 *   rpcUrl: "https://fullnode.testnet.sui.io",
 *   systemObjectId: TESTNET_WALRUS_PACKAGE_CONFIG.systemObjectId,
 *   operatorKey: "suiprivkey1…",
 * });
 * const blobId = await store.put(ciphertext, { owner, namespace, memoryId, createdAt });
 * ```
 */
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { blobIdFromInt, blobIdToInt } from "@mysten/walrus";
import {
  backendError,
  type BlobEntry,
  type BlobMeta,
  type BlobStore,
  type CallOptions,
  SvcError,
} from "@svc/relayer/kit";
import { suiKeypair } from "@svc/sui/keys";
import { suiClient } from "@svc/sui/rpc_client";
import { sha256Hex } from "@svc/util/keys";
import { boundedFetch } from "@svc/util/bounded_fetch";
import { LruMap } from "@svc/util/lru_map";
import { readFromAggregators } from "./aggregators.ts";
import { attributesToMeta, metaToAttributes } from "./attributes.ts";
import { BlobCache } from "./blob_cache.ts";
import { BlobObjects, MAX_PAGE_ANSWER_BYTES } from "./blob_objects.ts";

export type { BlobEntry, BlobMeta, BlobStore, CallOptions, ListedBlobMeta } from "@svc/relayer/kit";

/** Options of {@link WalrusBlobStore}. */
export interface WalrusBlobStoreOptions {
  /** The Walrus publisher (`SVC_WALRUS_PUBLISHER_URL`). */
  publisherUrl: string;
  /** Aggregators, tried in order (`SVC_WALRUS_AGGREGATOR_URLS`, comma-separated). */
  aggregatorUrls: string[];
  /** Epochs each blob is stored for (`SVC_WALRUS_EPOCHS`, default 5). */
  epochs?: number;
  /** Local cache of blob bytes (`$SVC_DATA_DIR/walrus_cache`). */
  cacheDir: string;
  /** Tags svc's blobs among the operator's other Walrus blobs (default `"svc"`). */
  appId?: string;
  /** Sui full node JSON-RPC (`SVC_SUI_RPC_URL`). */
  rpcUrl: string;
  /** Deadline of each request to the Sui full node, ms (default 10 000). */
  rpcTimeoutMs?: number;
  /**
   * Walrus's shared `System` object (`SVC_WALRUS_SYSTEM_OBJECT_ID`; mainnet and testnet ids are
   * `MAINNET_WALRUS_PACKAGE_CONFIG` / `TESTNET_WALRUS_PACKAGE_CONFIG` in `@mysten/walrus`).
   * Preferred: the current package and the `Blob` type are read from it, which stays right
   * after package upgrades.
   */
  systemObjectId?: string;
  /**
   * The Walrus package (`SVC_WALRUS_PACKAGE_ID`), used for calls and for the `Blob` type when
   * there is no `systemObjectId`: right only for a package that was never upgraded (an
   * upgraded package keeps its types at the original id).
   */
  walrusPackageId?: string;
  /**
   * The operator's Sui key: owns the blob objects and pays for the attribute transactions,
   * Ed25519, `suiprivkey1…` or 64 lowercase hex characters of the seed (`SVC_WALRUS_OWNER_KEY`). Each
   * transaction pays with one coin (the richest) and leaves the others alone, but a key of its
   * own avoids sharing gas coins with the sponsor at all.
   */
  operatorKey: string;
  /** Bearer token for an authenticated publisher (`SVC_WALRUS_PUBLISHER_TOKEN`). */
  publisherToken?: string;
  /** Start the next aggregator when one has not answered after this long (default 250 ms). */
  hedgeMs?: number;
  /** Give up on one aggregator after this long (default 10 s). */
  aggregatorTimeoutMs?: number;
  /** Give up on the publisher after this long (default 60 s). */
  publisherTimeoutMs?: number;
  /** The largest blob accepted or read (default 10 MiB). */
  maxBlobBytes?: number;
}

const BLOB_ID = /^[A-Za-z0-9_-]{43}$/;
const PLUGIN = "Walrus";
/** Deleted blob ids remembered, so that a read racing the delete does not cache the bytes. */
const MAX_ERASED = 10_000;
/** The largest publisher answer read (a `BlobStoreResult` is a few hundred bytes). */
const MAX_ANSWER_BYTES = 1024 * 1024;
/**
 * How the publisher is asked: a redirect is not followed, as it would carry the blob elsewhere;
 * it reads as an answer of 502, as does one past `MAX_ANSWER_BYTES`.
 */
const publisherFetch = boundedFetch(fetch, MAX_ANSWER_BYTES);

/** True for a canonical Walrus blob id (43 base64url characters of a u256). */
function isBlobId(blobId: string): boolean {
  if (!BLOB_ID.test(blobId)) return false;
  try {
    return blobIdFromInt(blobIdToInt(blobId)) === blobId;
  } catch {
    return false;
  }
}

/** The defaults of the options. */
const DEFAULTS = {
  epochs: 5,
  appId: "svc",
  hedgeMs: 250,
  aggregatorTimeoutMs: 10_000,
  publisherTimeoutMs: 60_000,
  maxBlobBytes: 10 * 1024 * 1024,
};
type ResolvedOptions = WalrusBlobStoreOptions & typeof DEFAULTS;

interface Stored {
  blobId: string;
  /** The new `Blob` object, when the publisher created one. */
  objectId: string | null;
}

/** The Walrus `BlobStore`; see the module documentation. */
export class WalrusBlobStore implements BlobStore {
  readonly name = "walrus";
  /** The operator's Sui address (`send_object_to`). */
  readonly address: string;
  readonly #options: ResolvedOptions;
  readonly #cache: BlobCache;
  readonly #objects: BlobObjects;
  /** Stored blobs whose attributes are not written yet, by SHA-256 of the bytes. */
  readonly #unlabelled = new LruMap<string, Stored>(1000);
  /** Blob ids deleted here (most recent {@link MAX_ERASED}): a read of one is not cached. */
  readonly #erased = new LruMap<string, true>(MAX_ERASED);

  private constructor(options: ResolvedOptions, objects: BlobObjects) {
    this.#options = options;
    this.#cache = new BlobCache(options.cacheDir);
    this.#objects = objects;
    this.address = objects.address;
  }

  /** Checks the options and creates the cache directory (nothing is asked of the networks). */
  static async open(options: WalrusBlobStoreOptions): Promise<WalrusBlobStore> {
    const epochs = options.epochs ?? DEFAULTS.epochs;
    if (!Number.isInteger(epochs) || epochs < 1) {
      throw new SvcError("bad_request", "Cannot open the Walrus blob store: epochs must be ≥ 1");
    }
    if (options.aggregatorUrls.length === 0) {
      throw new SvcError("bad_request", "Cannot open the Walrus blob store: no aggregator URLs");
    }
    if (!options.systemObjectId && !options.walrusPackageId) {
      throw new SvcError(
        "bad_request",
        "Cannot open the Walrus blob store: a Walrus system object id or package id is required",
      );
    }
    const client = suiClient("the Walrus blob store", {
      rpcUrl: options.rpcUrl,
      timeoutMs: options.rpcTimeoutMs,
      maxAnswerBytes: MAX_PAGE_ANSWER_BYTES,
    });
    const objects = new BlobObjects({
      client,
      signer: suiKeypair(options.operatorKey),
      systemObjectId: options.systemObjectId && normalizeSuiAddress(options.systemObjectId),
      walrusPackageId: options.walrusPackageId && normalizeSuiAddress(options.walrusPackageId),
    });
    await Deno.mkdir(options.cacheDir, { recursive: true, mode: 0o700 });
    return new WalrusBlobStore({ ...DEFAULTS, ...options, epochs }, objects);
  }

  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options: CallOptions = {},
  ): Promise<string> {
    options.signal?.throwIfAborted();
    let attributes: [string, string][];
    try {
      attributes = metaToAttributes(meta, this.#options.appId);
    } catch (error) {
      throw new SvcError("bad_request", `Cannot store the blob: ${(error as Error).message}`);
    }
    if (bytes.length > this.#options.maxBlobBytes) {
      throw new SvcError("payload_too_large", "Cannot store the blob: it is larger than allowed");
    }
    // A blob stored whose attributes could not be written is not stored again on retry.
    const digest = await sha256Hex(bytes);
    const stored = this.#unlabelled.get(digest) ?? await this.#publish(bytes, options.signal);
    this.#erased.delete(stored.blobId);
    await this.#cache.write(stored.blobId, bytes);
    if (stored.objectId !== null) {
      try {
        await this.#objects.writeAttributes(stored.objectId, attributes);
      } catch (error) {
        this.#unlabelled.set(digest, stored);
        throw backendError(`${PLUGIN} (Sui full node)`, "write the blob metadata", error);
      }
    }
    this.#unlabelled.delete(digest);
    return stored.blobId;
  }

  async #publish(bytes: Uint8Array<ArrayBuffer>, signal?: AbortSignal): Promise<Stored> {
    const url = new URL(`${this.#options.publisherUrl.replace(/\/+$/, "")}/v1/blobs`);
    url.searchParams.set("epochs", String(this.#options.epochs));
    url.searchParams.set("deletable", "true");
    url.searchParams.set("send_object_to", this.address);
    const headers: Record<string, string> = { "content-type": "application/octet-stream" };
    if (this.#options.publisherToken) {
      headers.authorization = `Bearer ${this.#options.publisherToken}`;
    }
    const deadline = AbortSignal.timeout(this.#options.publisherTimeoutMs);
    const abort = signal ? AbortSignal.any([signal, deadline]) : deadline;
    const action = "store the blob";
    let response: Response;
    let body: unknown;
    try {
      response = await publisherFetch(url, { method: "PUT", headers, body: bytes, signal: abort });
      if (response.status === 413) {
        throw new SvcError(
          "payload_too_large",
          "Cannot store the blob: the Walrus publisher refuses blobs this large",
        );
      }
      if (!response.ok) {
        const text = (await response.text()).slice(0, 300) || response.statusText;
        throw new Error(`the publisher answered HTTP ${response.status}: ${text}`);
      }
      body = await response.json();
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw backendError(`the ${PLUGIN} publisher`, action, error);
    }
    const result = parseStoreResult(body);
    if (!result) {
      throw backendError(`the ${PLUGIN} publisher`, action, new Error("unexpected answer"));
    }
    return result;
  }

  async get(blobId: string, options: CallOptions = {}): Promise<Uint8Array<ArrayBuffer> | null> {
    options.signal?.throwIfAborted();
    if (!isBlobId(blobId)) return null;
    const cached = await this.#cache.read(blobId).catch(() => null);
    if (cached) return cached;
    const read = await readFromAggregators(this.#options.aggregatorUrls, blobId, {
      hedgeMs: this.#options.hedgeMs,
      timeoutMs: this.#options.aggregatorTimeoutMs,
      maxBytes: this.#options.maxBlobBytes,
      signal: options.signal,
    });
    if (read.kind === "not_found") return null;
    if (options.signal?.aborted) throw options.signal.reason;
    if (read.kind === "unavailable") {
      throw backendError(`every ${PLUGIN} aggregator`, "read the blob", read.causes[0]);
    }
    if (!this.#erased.has(blobId)) await this.#cache.write(blobId, read.bytes);
    return read.bytes;
  }

  /** Removes the blob's cached copy (bytes that did not decrypt): the next `get` asks again. */
  async forget(blobId: string, options: CallOptions = {}): Promise<void> {
    options.signal?.throwIfAborted();
    if (isBlobId(blobId)) await this.#cache.remove(blobId).catch(() => {});
  }

  async delete(
    blobId: string,
    options: CallOptions & { memoryId?: string } = {},
  ): Promise<void> {
    options.signal?.throwIfAborted();
    if (!isBlobId(blobId)) return;
    if (!this.#options.systemObjectId) {
      throw new SvcError(
        "not_implemented",
        "Cannot delete the blob: deleting Walrus blobs needs Walrus's System object id " +
          "(SVC_WALRUS_SYSTEM_OBJECT_ID)",
      );
    }
    this.#erased.set(blobId, true);
    for (const [digest, stored] of this.#unlabelled) {
      if (stored.blobId === blobId) this.#unlabelled.delete(digest);
    }
    try {
      await this.#cache.remove(blobId);
    } catch (error) {
      throw backendError(`the ${PLUGIN} blob cache`, "delete the blob", error);
    }
    const { memoryId, signal } = options;
    const kept = await onChain(
      "delete the blob",
      signal,
      () => this.#objects.deleteBlob(blobId, memoryId, signal),
    );
    // Another memory's copy holds it still: its reads may be cached again.
    if (kept > 0) this.#erased.delete(blobId);
    // Else again: a read that began before the delete may have cached the bytes meanwhile.
    else await this.#cache.remove(blobId).catch(() => {});
  }

  async list(
    owner: string,
    namespace: string,
    options: CallOptions & { limit?: number } = {},
  ): Promise<BlobEntry[]> {
    options.signal?.throwIfAborted();
    const { signal } = options;
    const owned = await onChain("list the blobs", signal, () => this.#objects.list(signal));
    // One entry per blob id: the metadata written first wins, as with the other stores.
    const byBlob = new Map<string, BlobEntry & { objectId: string; complete: boolean }>();
    for (const object of owned) {
      const meta = object.attributes && attributesToMeta(object.attributes, this.#options.appId);
      if (!meta || meta.owner !== owner || meta.namespace !== namespace) continue;
      const known = byBlob.get(object.blobId);
      if (!known || meta.createdAt < known.meta.createdAt) {
        byBlob.set(object.blobId, { ...object, meta });
      }
    }
    const chosen = [...byBlob.values()]
      .sort((a, b) => b.meta.createdAt - a.meta.createdAt || (a.blobId < b.blobId ? 1 : -1))
      .slice(0, options.limit ?? byBlob.size);
    // Vectors are not cached: read them for the entries returned.
    const partial = chosen.filter((e) => !e.complete).map((e) => e.objectId);
    const full = partial.length > 0
      ? await onChain("list the blobs", signal, () => this.#objects.fullAttributes(partial, signal))
      : new Map<string, Record<string, string>>();
    return chosen.map(({ blobId, meta, objectId }) => {
      const attributes = full.get(objectId);
      return {
        blobId,
        meta: (attributes && attributesToMeta(attributes, this.#options.appId)) ?? meta,
      };
    });
  }
}

/** `task` on the Sui full node: the caller's abort passes through, any other failure is a 503. */
async function onChain<T>(
  action: string,
  signal: AbortSignal | undefined,
  task: () => Promise<T>,
): Promise<T> {
  try {
    return await task();
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw backendError(`${PLUGIN} (Sui full node)`, action, error);
  }
}

/** The blob id and new object of a publisher's `BlobStoreResult`, or `null` if malformed. */
function parseStoreResult(body: unknown): Stored | null {
  const result = body as {
    newlyCreated?: { blobObject?: { id?: unknown; blobId?: unknown } };
    alreadyCertified?: { blobId?: unknown; object?: unknown };
  } | null;
  const created = result?.newlyCreated?.blobObject;
  if (created && typeof created.blobId === "string" && typeof created.id === "string") {
    return isBlobId(created.blobId) ? { blobId: created.blobId, objectId: created.id } : null;
  }
  const certified = result?.alreadyCertified;
  if (certified && typeof certified.blobId === "string" && isBlobId(certified.blobId)) {
    // Already on Walrus: a deletable copy the operator owns comes back as `object`; a copy
    // certified earlier (by this store, whose object holds the metadata) as an event.
    return {
      blobId: certified.blobId,
      objectId: typeof certified.object === "string" ? certified.object : null,
    };
  }
  return null;
}
