/**
 * The Sui side of the Walrus blob store: the operator's Walrus `Blob` objects and their
 * attributes. Attributes are written with a transaction signed by the operator key, calling the
 * Walrus package's `blob::insert_or_update_metadata_pair` (idempotent, so a retried write is
 * harmless); writes are grouped into one transaction while another is in flight, which also
 * keeps the operator's gas coin to one transaction at a time. Listing pages the operator's
 * owned `Blob` objects and reads each one's `metadata` dynamic field in batches; svc's
 * attributes never change once written, so they are cached by object id (without the vector,
 * which is read again when an entry is returned, to keep the cache small).
 *
 * Deleting a blob deletes every `Blob` object of the operator with its blob id (or those of the
 * memory given), in the same queue of transactions: `system::delete_blob` (which removes the
 * attributes, and tells the storage nodes to drop the blob when no other copy of it is left),
 * then `storage_resource::destroy` on the storage it returns (svc never reuses storage: the
 * publisher buys it). An object Walrus will not delete (expired, or stored permanent) is burnt
 * instead (`blob::burn`), which only removes it from the chain. Deleting needs the `System`
 * object.
 *
 * The package to call and the `Blob` type come from Walrus's `System` object when its id is
 * known, through the official SDK (`WalrusClient.getBlobType`, `systemObject().package_id`):
 * after a package upgrade the functions live at the new package id while the type keeps the
 * original one. Without it, both come from the configured package id.
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import type { Keypair } from "@mysten/sui/cryptography";
import { Transaction } from "@mysten/sui/transactions";
import { bcs } from "@mysten/sui/bcs";
import { deriveDynamicFieldID, normalizeSuiAddress } from "@mysten/sui/utils";
import { WalrusClient } from "@mysten/walrus";
import { SvcError } from "@svc/relayer/kit";
import { freshRead } from "@svc/util/fresh_read";
import { LruMap } from "@svc/util/lru_map";
import { SharedRuns } from "@svc/util/shared_runs";
import { abortable } from "@svc/sui/abortable";
import { parseMetadataField } from "./attributes.ts";
import { objectExists, ownedBlobIds, undeletable } from "./owned_blobs.ts";

/** The `metadata` dynamic field's name: `vector<u8>` of the UTF-8 bytes. */
const METADATA_NAME = bcs.vector(bcs.u8()).serialize(new TextEncoder().encode("metadata"))
  .toBytes();
const ADDRESS_BYTES = 32;
/** Objects read per `sui_multiGetObjects` call (and coins per `suix_getCoins`). */
const PAGE = 50;
/**
 * The most bytes of one answer of the full node read: a page of 50 metadata fields
 * (`fullAttributes`), each at most Sui's largest object (250 KiB) and sent in base64, is at most
 * 17 MB.
 */
export const MAX_PAGE_ANSWER_BYTES = 20 * 2 ** 20;
/** Keeps one transaction below Sui's 128 KiB limit… */
const BATCH_BYTES = 96 * 1024;
/** …and far below its 1,024 commands. */
const BATCH_WRITES = 50;
/** Most blob objects whose attributes are cached (least recently used dropped first). */
const MAX_CACHED = 50_000;
/** What a deletion adds to a transaction, for batching (two calls, two inputs). */
const DELETE_SIZE = 256;

/** One of the operator's blob objects with its attributes (`null`: none written yet). */
export interface OwnedBlob {
  objectId: string;
  blobId: string;
  attributes: Record<string, string> | null;
  /** False when the vector attributes were left out (read them with `fullAttributes`). */
  complete: boolean;
}

interface CachedAttributes {
  attributes: Record<string, string>;
  complete: boolean;
}

/** The attributes without the (large) vector ones, sealed or clear, for the cache. */
function withoutVector(attributes: Record<string, string>): CachedAttributes {
  const kept = Object.entries(attributes).filter(([key]) => !/^(sealed_)?vector(_\d+)?$/.test(key));
  return {
    attributes: Object.fromEntries(kept),
    complete: kept.length === Object.keys(attributes).length,
  };
}

/** One change of a queued transaction: attributes to write, or a blob object to delete. */
type Change =
  | { kind: "attributes"; objectId: string; attributes: [string, string][] }
  | { kind: "delete"; objectId: string; burn: boolean };

interface PendingWrite {
  change: Change;
  size: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** What {@link BlobObjects} works with. */
export interface BlobObjectsOptions {
  client: SuiJsonRpcClient;
  signer: Keypair;
  /** Walrus's `System` object: the package and `Blob` type are read from it. */
  systemObjectId?: string;
  /** The Walrus package, used for both when there is no `systemObjectId`. */
  walrusPackageId?: string;
}

interface WalrusTypes {
  /** Where `blob::insert_or_update_metadata_pair` is called. */
  callPackage: string;
  blobType: string;
}

/** The operator's Walrus `Blob` objects and their attributes; see the module documentation. */
export class BlobObjects {
  readonly address: string;
  #options: BlobObjectsOptions;
  /** Attributes of blob objects, by object id. */
  #attributes = new LruMap<string, CachedAttributes>(MAX_CACHED);
  #queue: PendingWrite[] = [];
  #pumping = false;
  #types: Promise<WalrusTypes> | null = null;
  /**
   * Every `Blob` object of the operator and its blob id, read after the call: callers arriving
   * while a scan is under way share the next one.
   */
  #scan = freshRead(() =>
    this.walrusTypes().then(({ blobType }) =>
      ownedBlobIds(this.#options.client, this.address, blobType)
    )
  );
  /** Deletions of blob objects under way, so that one object is never deleted twice at once. */
  #deleting = new SharedRuns<string, void>();

  /** Objects of `options.systemObjectId`'s Walrus, or else `options.walrusPackageId`'s. */
  constructor(options: BlobObjectsOptions) {
    this.#options = options;
    this.address = options.signer.toSuiAddress();
  }

  /** The package to call and the `Blob` type (read once from the `System` object, if any). */
  walrusTypes(): Promise<WalrusTypes> {
    const { client, systemObjectId, walrusPackageId } = this.#options;
    if (!systemObjectId) {
      const pkg = normalizeSuiAddress(walrusPackageId!);
      return Promise.resolve({ callPackage: pkg, blobType: `${pkg}::blob::Blob` });
    }
    this.#types ??= (async () => {
      // Another object would fail the SDK's reading of it in words about its bytes, as if the
      // node were down: its type says what is wrong first.
      const { data } = await client.getObject({ id: systemObjectId, options: { showType: true } });
      if (!data?.type?.endsWith("::system::System")) {
        const found = data?.type
          ? `${systemObjectId} is a ${data.type}`
          : `no object has the id ${systemObjectId}`;
        throw new SvcError(
          "backend_unavailable",
          `Cannot use the Walrus system object: ${found}, not Walrus's System: check ` +
            "SVC_WALRUS_SYSTEM_OBJECT_ID",
          // An unusable answer: each attempt counts, and the job fails with this message.
          { details: { reason: "not_walrus_system" } },
        );
      }
      // Only the System object is read; the staking pool id is never used here.
      const walrus = new WalrusClient({
        suiClient: client,
        packageConfig: { systemObjectId, stakingPoolId: systemObjectId },
      });
      const [blobType, system] = await Promise.all([walrus.getBlobType(), walrus.systemObject()]);
      return { callPackage: normalizeSuiAddress(system.package_id), blobType };
    })();
    this.#types.catch(() => this.#types = null);
    return this.#types;
  }

  /** Writes attributes on one of the operator's blob objects (batched with other writes). */
  async writeAttributes(objectId: string, attributes: [string, string][]): Promise<void> {
    const size = attributes.reduce((sum, [k, v]) => sum + k.length + v.length + 16, 64);
    await this.#enqueue({ kind: "attributes", objectId, attributes }, size);
    this.#attributes.set(objectId, withoutVector(Object.fromEntries(attributes)));
  }

  /**
   * Deletes every `Blob` object of the operator holding `blobId`, batched with other writes;
   * with `memoryId`, only those whose attributes name that memory or no memory (a store cut
   * short before its attributes). Needs the `System` object id. Resolves once they are gone
   * (objects gone meanwhile, by another delete, are not an error) with how many objects of the
   * operator still hold the blob.
   */
  async deleteBlob(blobId: string, memoryId?: string, signal?: AbortSignal): Promise<number> {
    if (!this.#options.systemObjectId) throw new Error("no Walrus System object id");
    const owned = await abortable(this.#scan(), signal);
    signal?.throwIfAborted();
    const holding = owned.filter((o) => o.blobId === blobId).map((o) => o.objectId);
    let objectIds = holding;
    if (memoryId !== undefined) {
      const read = await this.#readAttributes(holding, signal);
      objectIds = holding.filter((id) => {
        const owner = read.get(id)?.attributes.memory_id;
        return owner === undefined || owner === memoryId;
      });
    }
    await Promise.all(objectIds.map((id) => this.#deleting.run(id, () => this.#deleteObject(id))));
    return holding.length - objectIds.length;
  }

  async #deleteObject(objectId: string): Promise<void> {
    try {
      await this.#enqueue({ kind: "delete", objectId, burn: false }, DELETE_SIZE);
    } catch (error) {
      if (undeletable(error)) {
        await this.#enqueue({ kind: "delete", objectId, burn: true }, DELETE_SIZE);
      } else if (await objectExists(this.#options.client, objectId)) throw error;
    }
    this.#attributes.delete(objectId);
  }

  #enqueue(change: Change, size: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ change, size, resolve, reject });
      this.#pump();
    });
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queue.length > 0) {
        const batch: PendingWrite[] = [this.#queue.shift()!];
        let bytes = batch[0].size;
        while (
          this.#queue.length > 0 && batch.length < BATCH_WRITES &&
          bytes + this.#queue[0].size <= BATCH_BYTES
        ) {
          bytes += this.#queue[0].size;
          batch.push(this.#queue.shift()!);
        }
        try {
          await this.#execute(batch);
          for (const write of batch) write.resolve();
        } catch (error) {
          if (batch.length === 1) batch[0].reject(error);
          // One bad write must not fail the others: retry each alone.
          else this.#queue.unshift(...batch.map((w) => ({ ...w, size: BATCH_BYTES })));
        }
      }
    } finally {
      this.#pumping = false;
    }
  }

  async #execute(batch: PendingWrite[]): Promise<void> {
    const { client, signer, systemObjectId } = this.#options;
    const { callPackage } = await this.walrusTypes();
    const tx = new Transaction();
    tx.setSender(this.address);
    tx.setGasPayment([await this.#gasCoin()]);
    for (const { change } of batch) {
      const blob = tx.object(change.objectId);
      if (change.kind === "attributes") {
        for (const [key, value] of change.attributes) {
          tx.moveCall({
            target: `${callPackage}::blob::insert_or_update_metadata_pair`,
            arguments: [blob, tx.pure.string(key), tx.pure.string(value)],
          });
        }
      } else if (change.burn) {
        tx.moveCall({ target: `${callPackage}::blob::burn`, arguments: [blob] });
      } else {
        const storage = tx.moveCall({
          target: `${callPackage}::system::delete_blob`,
          arguments: [tx.object(systemObjectId!), blob],
        });
        tx.moveCall({ target: `${callPackage}::storage_resource::destroy`, arguments: [storage] });
      }
    }
    const result = await client.signAndExecuteTransaction({
      transaction: tx,
      signer,
      options: { showEffects: true },
    });
    const status = result.effects?.status;
    if (status?.status !== "success") {
      throw new Error(`the blob transaction ${result.digest} failed: ${status?.error}`);
    }
  }

  /**
   * One coin to pay with, the richest: left to itself the SDK would merge all of the operator's
   * coins into one, taking away coins another user of the key (the sponsor) may hold.
   */
  async #gasCoin() {
    const { data } = await this.#options.client.getCoins({ owner: this.address, limit: PAGE });
    const coin = data.reduce<(typeof data)[number] | undefined>(
      (best, c) => (!best || BigInt(c.balance) > BigInt(best.balance) ? c : best),
      undefined,
    );
    if (!coin) throw new Error("the operator has no SUI to pay for gas");
    return { objectId: coin.coinObjectId, version: coin.version, digest: coin.digest };
  }

  /** Every certified `Blob` object the operator owns, with its attributes, in the node's order. */
  async list(signal?: AbortSignal): Promise<OwnedBlob[]> {
    const { blobType } = await this.walrusTypes();
    const owned = await ownedBlobIds(this.#options.client, this.address, blobType, signal);
    const blobs = owned.filter((blob) => blob.certified);
    const read = await this.#readAttributes(blobs.map((b) => b.objectId), signal);
    return blobs.map(({ objectId, blobId }) => {
      const found = read.get(objectId);
      return {
        objectId,
        blobId,
        attributes: found?.attributes ?? null,
        complete: found?.complete ?? true,
      };
    });
  }

  /** Attributes from the cache, or read from the chain (then complete). */
  async #readAttributes(
    objectIds: string[],
    signal?: AbortSignal,
  ): Promise<Map<string, CachedAttributes>> {
    const found = new Map<string, CachedAttributes>();
    const missing: string[] = [];
    for (const objectId of objectIds) {
      const cached = this.#attributes.get(objectId);
      if (cached) found.set(objectId, cached);
      else missing.push(objectId);
    }
    for (const [id, attributes] of await this.fullAttributes(missing, signal)) {
      this.#attributes.set(id, withoutVector(attributes));
      found.set(id, { attributes, complete: true });
    }
    return found;
  }

  /**
   * The full attributes of blob objects, read from the chain (vectors included) 50 per call;
   * objects without any are left out.
   */
  async fullAttributes(
    objectIds: string[],
    signal?: AbortSignal,
  ): Promise<Map<string, Record<string, string>>> {
    const found = new Map<string, Record<string, string>>();
    for (let at = 0; at < objectIds.length; at += PAGE) {
      const chunk = objectIds.slice(at, at + PAGE);
      const { objects } = await this.#options.client.core.getObjects({
        objectIds: chunk.map((id) => deriveDynamicFieldID(id, "vector<u8>", METADATA_NAME)),
        include: { content: true },
        signal,
      });
      objects.forEach((field, i) => {
        if (field instanceof Error) {
          if ((field as { code?: string }).code === "notExists") return;
          throw field;
        }
        if (!field.content) return;
        // A `Field<vector<u8>, Metadata>`: id ‖ name ‖ value.
        const value = field.content.slice(ADDRESS_BYTES + METADATA_NAME.length);
        found.set(chunk[i], parseMetadataField(value));
      });
    }
    return found;
  }
}
