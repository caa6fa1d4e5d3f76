/**
 * The metadata svc keeps on each Walrus `Blob` object, as Walrus blob attributes (the `metadata`
 * dynamic field of the object, a `VecMap<String, String>`), and the BCS layouts of the Walrus
 * Move types read from Sui.
 *
 * Attributes: `app_id`, `owner`, `namespace`, `memory_id`, `created_at` (decimal Unix ms),
 * `sealed_attributes` for a memory that has attributes (tags, thread, …; opaque base64url) and,
 * for client-encrypted memories, `sealed_vector`: the vector as the relayer sealed it (opaque
 * base64url; attributes are public, so neither is ever written in clear). A Sui pure argument
 * holds at most 16 KiB, so a long value continues in `sealed_vector_1`, `sealed_vector_2`, …
 * (each value at most {@link MAX_VALUE_BYTES} bytes).
 *
 * Legacy, read only: blobs written by versions up to 0.1.0 carry the vector in clear as `vector`
 * (`f64le:` + base64 of the little-endian float64 values, continued in `vector_1`, …); it is read
 * as `legacyVector`, so restore still re-indexes them, and never written.
 */
import { bcs } from "@mysten/sui/bcs";
import { blobIdFromInt } from "@mysten/walrus";
import type { BlobMeta, ListedBlobMeta } from "@svc/relayer/kit";

/** The largest attribute value written (under Sui's 16 KiB limit on a pure argument). */
const MAX_VALUE_BYTES = 15_000;
/** The largest sealed vector accepted (keeps the metadata field far below 250 KiB). */
const MAX_VECTOR_CHARS = 8 * MAX_VALUE_BYTES;
/** A sealed value: opaque base64url. */
const SEALED = /^[A-Za-z0-9_-]+$/;
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
}

/** Parses a `Blob` object's BCS contents. */
export function parseBlobObject(contents: Uint8Array): BlobObjectInfo {
  const blob = WalrusBlob.parse(contents);
  return {
    blobId: blobIdFromInt(BigInt(blob.blob_id)),
    certified: blob.certified_epoch !== null && blob.certified_epoch !== undefined,
  };
}

/** A value split over `key`, `key_1`, `key_2`, … joined again; `undefined` when absent. */
function joinChunks(attributes: Record<string, string>, key: string): string | undefined {
  let text = attributes[key];
  if (text === undefined) return undefined;
  for (let part = 1; attributes[`${key}_${part}`] !== undefined; part++) {
    text += attributes[`${key}_${part}`];
  }
  return text;
}

/** Reads a legacy clear `vector` value. */
function decodeLegacyVector(text: string): number[] | null {
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
    if (new TextEncoder().encode(value).length > MAX_VALUE_BYTES) {
      throw new RangeError(`${key} is too long`);
    }
  }
  const attributes = meta.sealedAttributes;
  if (attributes !== undefined) {
    if (!SEALED.test(attributes) || attributes.length > MAX_VALUE_BYTES) {
      throw new RangeError("sealedAttributes must be base64url, at most one value long");
    }
    out.push(["sealed_attributes", attributes]);
  }
  const text = meta.sealedVector;
  if (text !== undefined) {
    if (!SEALED.test(text)) throw new RangeError("sealedVector must be base64url");
    if (text.length > MAX_VECTOR_CHARS) throw new RangeError("sealedVector is too long");
    for (let at = 0, part = 0; at < text.length; at += MAX_VALUE_BYTES, part++) {
      const key = part === 0 ? "sealed_vector" : `sealed_vector_${part}`;
      out.push([key, text.slice(at, at + MAX_VALUE_BYTES)]);
    }
  }
  return out;
}

/** The metadata in a blob's attributes, or `null` when they are not svc's (or not `appId`'s). */
export function attributesToMeta(
  attributes: Record<string, string>,
  appId: string,
): ListedBlobMeta | null {
  const { app_id, owner, namespace, memory_id, created_at } = attributes;
  if (app_id !== appId || !owner || namespace === undefined || !memory_id) return null;
  if (!/^(0|[1-9][0-9]{0,15})$/.test(created_at ?? "")) return null;
  const meta: ListedBlobMeta = {
    owner,
    namespace,
    memoryId: memory_id,
    createdAt: Number(created_at),
  };
  const sealed = joinChunks(attributes, "sealed_vector");
  if (sealed !== undefined) meta.sealedVector = sealed;
  const { sealed_attributes } = attributes;
  if (sealed_attributes !== undefined) meta.sealedAttributes = sealed_attributes;
  const legacy = joinChunks(attributes, "vector");
  if (legacy !== undefined) {
    const vector = decodeLegacyVector(legacy);
    if (vector === null) return null;
    meta.legacyVector = vector;
  }
  return meta;
}

/** Decodes the BCS of the `metadata` dynamic field's value into a plain record. */
export function parseMetadataField(value: Uint8Array): Record<string, string> {
  const parsed = WalrusMetadata.parse(value);
  return Object.fromEntries(parsed.metadata.contents.map(({ key, value }) => [key, value]));
}
