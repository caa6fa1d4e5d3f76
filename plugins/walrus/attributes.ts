/**
 * The metadata svc keeps on each Walrus `Blob` object, as Walrus blob attributes (the `metadata`
 * dynamic field of the object, a `VecMap<String, String>`), and the BCS layouts of the Walrus
 * Move types read from Sui.
 *
 * Attributes: `app_id`, `owner`, `namespace`, `memory_id`, `created_at` (decimal Unix ms) and,
 * for client-encrypted memories, `vector`: `f64le:` + base64 of the little-endian float64
 * values. A Sui pure argument holds at most 16 KiB, so a long vector continues in `vector_1`,
 * `vector_2`, … (each value at most {@link MAX_VALUE_BYTES} bytes).
 */
import { bcs } from "@mysten/sui/bcs";
import { blobIdFromInt } from "@mysten/walrus";
import type { BlobMeta } from "../../src/kit.ts";

/** The largest attribute value written (under Sui's 16 KiB limit on a pure argument). */
export const MAX_VALUE_BYTES = 15_000;
/** The largest encoded vector accepted (keeps the metadata field far below 250 KiB). */
const MAX_VECTOR_CHARS = 8 * MAX_VALUE_BYTES;
const VECTOR_PREFIX = "f64le:";

/** `0x2::vec_map::VecMap<String, String>` inside Walrus's `metadata::Metadata`. */
export const WalrusMetadata = bcs.struct("Metadata", {
  metadata: bcs.struct("VecMap", {
    contents: bcs.vector(bcs.struct("Entry", { key: bcs.string(), value: bcs.string() })),
  }),
});

/** Walrus's `storage_resource::Storage`. */
const Storage = bcs.struct("Storage", {
  id: bcs.Address,
  start_epoch: bcs.u32(),
  end_epoch: bcs.u32(),
  storage_size: bcs.u64(),
});

/** Walrus's `blob::Blob` (the object the publisher sends to `send_object_to`). */
export const WalrusBlob = bcs.struct("Blob", {
  id: bcs.Address,
  registered_epoch: bcs.u32(),
  blob_id: bcs.u256(),
  size: bcs.u64(),
  encoding_type: bcs.u8(),
  certified_epoch: bcs.option(bcs.u32()),
  storage: Storage,
  deletable: bcs.bool(),
});

/** The fields of a `Blob` object svc needs. */
export interface BlobObjectInfo {
  blobId: string;
  certified: boolean;
  endEpoch: number;
}

/** Parses a `Blob` object's BCS contents. */
export function parseBlobObject(contents: Uint8Array): BlobObjectInfo {
  const blob = WalrusBlob.parse(contents);
  return {
    blobId: blobIdFromInt(BigInt(blob.blob_id)),
    certified: blob.certified_epoch !== null && blob.certified_epoch !== undefined,
    endEpoch: blob.storage.end_epoch,
  };
}

function utf8Length(value: string): number {
  return new TextEncoder().encode(value).length;
}

function encodeVector(vector: number[]): string {
  const view = new DataView(new ArrayBuffer(vector.length * 8));
  vector.forEach((x, i) => view.setFloat64(i * 8, x, true));
  return VECTOR_PREFIX + new Uint8Array(view.buffer).toBase64();
}

function decodeVector(text: string): number[] | null {
  if (!text.startsWith(VECTOR_PREFIX)) return null;
  try {
    const bytes = Uint8Array.fromBase64(text.slice(VECTOR_PREFIX.length));
    if (bytes.length % 8 !== 0) return null;
    const view = new DataView(bytes.buffer);
    return Array.from({ length: bytes.length / 8 }, (_, i) => view.getFloat64(i * 8, true));
  } catch {
    return null;
  }
}

/**
 * The attributes of a blob, in write order. Throws a `RangeError` naming the field when a
 * value cannot be stored.
 */
export function metaToAttributes(meta: BlobMeta, appId: string): [string, string][] {
  const out: [string, string][] = [
    ["app_id", appId],
    ["owner", meta.owner],
    ["namespace", meta.namespace],
    ["memory_id", meta.memoryId],
    ["created_at", String(meta.createdAt)],
  ];
  if (!Number.isSafeInteger(meta.createdAt) || meta.createdAt < 0) {
    throw new RangeError("createdAt must be a non-negative integer");
  }
  for (const [key, value] of out) {
    if (utf8Length(value) > MAX_VALUE_BYTES) throw new RangeError(`${key} is too long`);
  }
  if (meta.vector !== undefined) {
    if (!meta.vector.every(Number.isFinite)) throw new RangeError("vector must be finite numbers");
    const text = encodeVector(meta.vector);
    if (text.length > MAX_VECTOR_CHARS) throw new RangeError("vector is too long");
    for (let at = 0, part = 0; at < text.length; at += MAX_VALUE_BYTES, part++) {
      out.push([part === 0 ? "vector" : `vector_${part}`, text.slice(at, at + MAX_VALUE_BYTES)]);
    }
  }
  return out;
}

/** The metadata in a blob's attributes, or `null` when they are not svc's (or not `appId`'s). */
export function attributesToMeta(
  attributes: Record<string, string>,
  appId: string,
): BlobMeta | null {
  const { app_id, owner, namespace, memory_id, created_at } = attributes;
  if (app_id !== appId || !owner || namespace === undefined || !memory_id) return null;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(created_at ?? "")) return null;
  const meta: BlobMeta = {
    owner,
    namespace,
    memoryId: memory_id,
    createdAt: Number(created_at),
  };
  if (attributes.vector !== undefined) {
    let text = attributes.vector;
    for (let part = 1; attributes[`vector_${part}`] !== undefined; part++) {
      text += attributes[`vector_${part}`];
    }
    const vector = decodeVector(text);
    if (vector === null) return null;
    meta.vector = vector;
  }
  return meta;
}

/** Decodes the BCS of the `metadata` dynamic field's value into a plain record. */
export function parseMetadataField(value: Uint8Array): Record<string, string> {
  const parsed = WalrusMetadata.parse(value);
  return Object.fromEntries(parsed.metadata.contents.map(({ key, value }) => [key, value]));
}
