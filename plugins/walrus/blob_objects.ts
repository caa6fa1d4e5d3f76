/**
 * The Sui side of the Walrus blob store: the operator's Walrus `Blob` objects and their
 * attributes. Attributes are written with a transaction signed by the operator key, calling the
 * Walrus package's `blob::insert_or_update_metadata_pair` (idempotent, so a retried write is
 * harmless); writes are grouped into one transaction while another is in flight, which also
 * keeps the operator's gas coin to one transaction at a time. Listing pages the operator's
 * owned `Blob` objects and reads each one's `metadata` dynamic field in batches; attributes
 * never change once written, so they are cached by object id.
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import type { Keypair } from "@mysten/sui/cryptography";
import { Transaction } from "@mysten/sui/transactions";
import { bcs } from "@mysten/sui/bcs";
import { deriveDynamicFieldID } from "@mysten/sui/utils";
import { parseBlobObject, parseMetadataField } from "./attributes.ts";

/** The `metadata` dynamic field's name: `vector<u8>` of the UTF-8 bytes. */
const METADATA_NAME = bcs.vector(bcs.u8()).serialize(new TextEncoder().encode("metadata"))
  .toBytes();
const ADDRESS_BYTES = 32;
/** Objects read per `sui_multiGetObjects` / `suix_getOwnedObjects` call. */
const PAGE = 50;
/** Keeps one transaction below Sui's 128 KiB limit. */
const BATCH_BYTES = 96 * 1024;

/** One of the operator's blob objects with its attributes (`null`: none written yet). */
export interface OwnedBlob {
  objectId: string;
  blobId: string;
  attributes: Record<string, string> | null;
}

interface PendingWrite {
  objectId: string;
  attributes: [string, string][];
  size: number;
  resolve(): void;
  reject(error: unknown): void;
}

type OwnedPage = Awaited<ReturnType<SuiJsonRpcClient["core"]["listOwnedObjects"]>>;

export interface BlobObjectsOptions {
  client: SuiJsonRpcClient;
  signer: Keypair;
  /** Package whose `blob` module functions are called. */
  walrusPackageId: string;
  /** The `Blob` struct type (its package is the original Walrus package). */
  blobType: string;
}

export class BlobObjects {
  readonly address: string;
  #options: BlobObjectsOptions;
  #attributes = new Map<string, Record<string, string>>();
  #queue: PendingWrite[] = [];
  #pumping = false;

  constructor(options: BlobObjectsOptions) {
    this.#options = options;
    this.address = options.signer.toSuiAddress();
  }

  /** Writes attributes on one of the operator's blob objects (batched with other writes). */
  writeAttributes(objectId: string, attributes: [string, string][]): Promise<void> {
    const size = attributes.reduce((sum, [k, v]) => sum + k.length + v.length + 16, 64);
    return new Promise((resolve, reject) => {
      this.#queue.push({
        objectId,
        attributes,
        size,
        resolve: () => {
          this.#attributes.set(objectId, Object.fromEntries(attributes));
          resolve();
        },
        reject,
      });
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
        while (this.#queue.length > 0 && bytes + this.#queue[0].size <= BATCH_BYTES) {
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
    const { client, signer, walrusPackageId } = this.#options;
    const tx = new Transaction();
    tx.setSender(this.address);
    for (const write of batch) {
      const blob = tx.object(write.objectId);
      for (const [key, value] of write.attributes) {
        tx.moveCall({
          target: `${walrusPackageId}::blob::insert_or_update_metadata_pair`,
          arguments: [blob, tx.pure.string(key), tx.pure.string(value)],
        });
      }
    }
    const result = await client.signAndExecuteTransaction({
      transaction: tx,
      signer,
      options: { showEffects: true },
    });
    const status = result.effects?.status;
    if (status?.status !== "success") {
      throw new Error(`the metadata transaction ${result.digest} failed: ${status?.error}`);
    }
  }

  /** Every `Blob` object the operator owns, with its attributes, in the node's order. */
  async list(signal?: AbortSignal): Promise<OwnedBlob[]> {
    const { client, blobType } = this.#options;
    const out: OwnedBlob[] = [];
    let cursor: string | null = null;
    do {
      const page: OwnedPage = await client.core.listOwnedObjects({
        owner: this.address,
        type: blobType,
        cursor,
        limit: PAGE,
        include: { content: true },
        signal,
      });
      const blobs = page.objects.flatMap((object) => {
        if (!object.content) return [];
        const info = parseBlobObject(object.content);
        return info.certified ? [{ objectId: object.objectId, blobId: info.blobId }] : [];
      });
      const attributes = await this.#readAttributes(blobs.map((b) => b.objectId), signal);
      for (const blob of blobs) {
        out.push({ ...blob, attributes: attributes.get(blob.objectId) ?? null });
      }
      cursor = page.hasNextPage ? page.cursor : null;
    } while (cursor);
    return out;
  }

  /** Attributes of blob objects, from the cache or their `metadata` fields (one call per 50). */
  async #readAttributes(
    objectIds: string[],
    signal?: AbortSignal,
  ): Promise<Map<string, Record<string, string>>> {
    const found = new Map<string, Record<string, string>>();
    const missing: { objectId: string; fieldId: string }[] = [];
    for (const objectId of objectIds) {
      const cached = this.#attributes.get(objectId);
      if (cached) found.set(objectId, cached);
      else {missing.push({
          objectId,
          fieldId: deriveDynamicFieldID(objectId, "vector<u8>", METADATA_NAME),
        });}
    }
    for (let at = 0; at < missing.length; at += PAGE) {
      const chunk = missing.slice(at, at + PAGE);
      const { objects } = await this.#options.client.core.getObjects({
        objectIds: chunk.map((m) => m.fieldId),
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
        const attributes = parseMetadataField(value);
        this.#attributes.set(chunk[i].objectId, attributes);
        found.set(chunk[i].objectId, attributes);
      });
    }
    return found;
  }
}
