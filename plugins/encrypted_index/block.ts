/**
 * The plaintext of a block of rows, before it is sealed: a small header, the unit vectors as
 * one run of float32 (so a load copies them straight into the namespace's array), the creation
 * times as float64, the ids, blob ids and terms as JSON, then the rows' infos.
 *
 * ```
 * u32 version | u32 rows | u32 dimensions | u32 JSON bytes
 * f32 vectors[rows × dimensions] | pad to 8 | f64 createdAt[rows]
 * JSON {"i":[…],"b":[…],"t":[…],"n":[…]} | infos (UTF-8, to the end)
 * ```
 *
 * Terms are kept as one string per row, joined by spaces (they are keyed hashes, which hold
 * none). A row's `MemoryInfo` is kept as its JSON text: the texts of the rows one after the
 * other in `infos`, and `"n"` the length of each (in UTF-16 code units, 0 for a row without
 * one). A load decodes `infos` at once and cuts it, so no info is parsed (or unescaped) until
 * it is asked for. A block none of whose rows has an info has neither `"n"` nor `infos`, as
 * version 1 blocks (written before rows had infos), which read as rows without one.
 */
import { type MemoryInfo, SvcError } from "@svc/relayer/kit";

const VERSION = 2;
/** Versions this code reads. */
const READS = new Set([1, 2]);
const HEADER = 16;

/** One row as a block holds it; `vector` is of unit length (or all zeros). */
export interface BlockRow {
  id: string;
  blobId: string;
  createdAt: number;
  vector: Float32Array;
  /** The row's terms joined by spaces; empty when it has none. */
  terms: string;
  /** The row's `MemoryInfo` as JSON; empty when it has none. */
  info: string;
}

/** A decoded block: its rows, column by column. */
export interface BlockColumns {
  count: number;
  /** The size of the block's plaintext. */
  plainBytes: number;
  ids: string[];
  blobIds: string[];
  terms: string[];
  /** Each row's `MemoryInfo` as JSON, "" for none; `null` when no row of the block has one. */
  infos: string[] | null;
  createdAt: Float64Array;
  /** `count × dimensions` numbers. */
  vectors: Float32Array;
}

const encoder = new TextEncoder();

function vectorsEnd(count: number, dimensions: number): number {
  const end = HEADER + count * dimensions * 4;
  return end + (end % 8);
}

/** The bytes of a UTF-8 string, counted without encoding it. */
export function utf8Length(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

/** About what a row adds to a block's plaintext (its strings quoted, its numbers). */
export function rowBytes(
  dimensions: number,
  id: string,
  blobId: string,
  terms: string,
  info: string,
): number {
  return dimensions * 4 + 8 + utf8Length(id) + utf8Length(blobId) + utf8Length(terms) + 12 +
    (info ? utf8Length(info) + 6 : 0);
}

/** A row's `MemoryInfo` as a block keeps it: its JSON, or "" for none. */
export function infoText(info: MemoryInfo | undefined): string {
  return info ? JSON.stringify(info) : "";
}

/** The `MemoryInfo` a block kept as `text`, a new object each time; none for "". */
export function parseInfo(text: string): MemoryInfo | undefined {
  return text ? JSON.parse(text) as MemoryInfo : undefined;
}

/** The plaintext of a block of `rows`. */
export function encodeBlock(rows: BlockRow[], dimensions: number): Uint8Array<ArrayBuffer> {
  const columns: Record<string, string[] | number[]> = {
    i: rows.map((r) => r.id),
    b: rows.map((r) => r.blobId),
    t: rows.map((r) => r.terms),
  };
  const withInfo = rows.some((r) => r.info);
  if (withInfo) columns.n = rows.map((r) => r.info.length);
  const json = encoder.encode(JSON.stringify(columns));
  const infos = withInfo ? encoder.encode(rows.map((r) => r.info).join("")) : new Uint8Array();
  const timesAt = vectorsEnd(rows.length, dimensions);
  const jsonAt = timesAt + rows.length * 8;
  const bytes = new Uint8Array(jsonAt + json.length + infos.length);
  const header = new DataView(bytes.buffer);
  header.setUint32(0, VERSION, true);
  header.setUint32(4, rows.length, true);
  header.setUint32(8, dimensions, true);
  header.setUint32(12, json.length, true);
  const vectors = new Float32Array(bytes.buffer, HEADER, rows.length * dimensions);
  const times = new Float64Array(bytes.buffer, timesAt, rows.length);
  rows.forEach((row, i) => {
    vectors.set(row.vector, i * dimensions);
    times[i] = row.createdAt;
  });
  bytes.set(json, jsonAt);
  bytes.set(infos, jsonAt + json.length);
  return bytes;
}

/** The rows of a block's plaintext, which must hold vectors of `dimensions` numbers. */
export function decodeBlock(plaintext: ArrayBuffer, dimensions: number): BlockColumns {
  const view = new DataView(plaintext);
  const damaged = (why: string) =>
    new SvcError("internal", `Cannot read the vector index: a block is damaged (${why})`);
  if (plaintext.byteLength < HEADER || !READS.has(view.getUint32(0, true))) {
    throw damaged("unknown format");
  }
  const count = view.getUint32(4, true);
  if (view.getUint32(8, true) !== dimensions) throw damaged("vector size differs");
  const timesAt = vectorsEnd(count, dimensions);
  const jsonAt = timesAt + count * 8;
  const infosAt = jsonAt + view.getUint32(12, true);
  if (infosAt > plaintext.byteLength) throw damaged("bad length");
  const decoder = new TextDecoder();
  const parsed = JSON.parse(decoder.decode(new Uint8Array(plaintext, jsonAt, infosAt - jsonAt)));
  const { i: ids, b: blobIds, t: terms } = parsed as Record<string, string[]>;
  const lengths = (parsed as { n?: number[] }).n;
  if (
    ids?.length !== count || blobIds?.length !== count || terms?.length !== count ||
    (lengths !== undefined && lengths.length !== count)
  ) {
    throw damaged("row count differs");
  }
  let infos: string[] | null = null;
  if (lengths) {
    const text = decoder.decode(new Uint8Array(plaintext, infosAt));
    infos = new Array(count);
    let at = 0;
    for (let i = 0; i < count; i++) infos[i] = text.slice(at, at += lengths[i]);
    if (at !== text.length) throw damaged("info lengths differ");
  } else if (infosAt !== plaintext.byteLength) {
    throw damaged("bad length");
  }
  return {
    count,
    plainBytes: plaintext.byteLength,
    ids,
    blobIds,
    terms,
    infos,
    createdAt: new Float64Array(plaintext, timesAt, count),
    vectors: new Float32Array(plaintext, HEADER, count * dimensions),
  };
}
