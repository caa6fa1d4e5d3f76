/**
 * A namespace decrypted into memory: its rows column by column, the unit vectors one after
 * another in a `VectorColumn`, searched exactly (the rows its 7-bit codes shortlist scored
 * exactly, the best `k` kept in a heap). It also knows which stored block holds each row, so a
 * write can rewrite just the blocks it touches.
 */
import type { TermsRow, VectorHit } from "@svc/relayer/kit";
import { type BlockColumns, type BlockRow, parseInfo, rowBytes } from "./block.ts";
import { VectorColumn } from "./vector_column.ts";

/** A stored block as the namespace knows it. */
export interface BlockInfo {
  /** Its rows in the namespace (rows replaced or deleted since it was written are not). */
  count: number;
  /** Its plaintext size, about. */
  plainBytes: number;
  /** Its sealed size, exactly (the storage needs it to delete the block). */
  sealedBytes: number;
}

/** Scales `vector` to unit length (all zeros stays zeros). */
export function unit(vector: ArrayLike<number>): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i] * scale;
  return out;
}

export class Resident {
  readonly dimensions: number;
  /** The storage version of the namespace these rows are; `null` before it is stored. */
  version: string | null = null;
  /** The namespace's name, sealed, as its header keeps it. */
  sealedName: Uint8Array<ArrayBuffer> | null = null;
  /**
   * Whether every block it holds has all its rows: `false` once a torn read (of a storage whose
   * listing is not one snapshot) gave an id twice, and the later block's row replaced the
   * earlier's. A load then reads every block rather than only those it does not hold.
   */
  whole = true;
  /**
   * While a write is planned against it (and applied to it once committed): a load then brings
   * a copy up to date rather than it.
   */
  planned = false;
  /** When (`performance.now()`) `version` was last known to be the stored one (0: never). */
  checkedAt = 0;
  readonly blocks = new Map<string, BlockInfo>();
  #ids: string[] = [];
  #blobIds: string[] = [];
  #terms: string[] = [];
  /** Each row's `MemoryInfo` as JSON ("" for none), parsed only when `terms` is asked for. */
  #infos: string[] = [];
  #blockOf: string[] = [];
  #created: Float64Array;
  #vectors: VectorColumn;
  #row = new Map<string, number>();
  #stringBytes = 0;

  constructor(dimensions: number, capacity = 16) {
    this.dimensions = dimensions;
    this.#created = new Float64Array(Math.max(capacity, 16));
    this.#vectors = new VectorColumn(dimensions, Math.max(capacity, 16));
  }

  get count(): number {
    return this.#ids.length;
  }

  /** About the bytes the namespace holds in memory. */
  get memoryBytes(): number {
    return this.#vectors.byteLength + this.#created.byteLength + this.count * 128 +
      this.#stringBytes * 2;
  }

  has(id: string): boolean {
    return this.#row.has(id);
  }

  /** When its newest row was written (Unix milliseconds; 0 without rows). */
  get newest(): number {
    let newest = 0;
    for (let row = 0; row < this.count; row++) newest = Math.max(newest, this.#created[row]);
    return newest;
  }

  /** The block holding `id`. */
  blockOf(id: string): string | undefined {
    const row = this.#row.get(id);
    return row === undefined ? undefined : this.#blockOf[row];
  }

  #grow(needed: number): void {
    if (needed <= this.#created.length) return;
    const capacity = Math.max(needed, Math.ceil(this.#created.length * 1.5));
    const created = new Float64Array(capacity);
    created.set(this.#created);
    this.#created = created;
    this.#vectors.grow(capacity);
  }

  /** A namespace of its own holding the same rows and blocks (at no version). */
  copy(): Resident {
    const copy = new Resident(this.dimensions, 0);
    copy.#ids = this.#ids.slice();
    copy.#blobIds = this.#blobIds.slice();
    copy.#terms = this.#terms.slice();
    copy.#infos = this.#infos.slice();
    copy.#blockOf = this.#blockOf.slice();
    copy.#created = this.#created.slice();
    copy.#vectors = this.#vectors.copy();
    copy.#row = new Map(this.#row);
    copy.#stringBytes = this.#stringBytes;
    copy.whole = this.whole;
    for (const [id, block] of this.blocks) copy.blocks.set(id, { ...block });
    return copy;
  }

  /** Adds the rows of a stored block. */
  addBlock(blockId: string, sealedBytes: number, columns: BlockColumns): void {
    const { count } = columns;
    this.blocks.set(blockId, { count, plainBytes: columns.plainBytes, sealedBytes });
    // Only after a torn read can an id already be here; the block read last wins.
    for (const id of columns.ids) {
      if (this.#row.has(id)) {
        this.remove(id);
        this.whole = false;
      }
    }
    const start = this.#ids.length;
    this.#grow(start + count);
    this.#vectors.set(start, columns.vectors);
    this.#created.set(columns.createdAt, start);
    for (let i = 0; i < count; i++) {
      const id = columns.ids[i];
      const info = columns.infos?.[i] ?? "";
      this.#ids.push(id);
      this.#blobIds.push(columns.blobIds[i]);
      this.#terms.push(columns.terms[i]);
      this.#infos.push(info);
      this.#blockOf.push(blockId);
      this.#row.set(id, start + i);
      this.#stringBytes += id.length + columns.blobIds[i].length + columns.terms[i].length +
        info.length;
    }
  }

  /** Removes a row (the last row takes its place). */
  remove(id: string): void {
    const row = this.#row.get(id);
    if (row === undefined) return;
    this.#row.delete(id);
    const [blobId, terms, info] = [this.#blobIds[row], this.#terms[row], this.#infos[row]];
    const block = this.blocks.get(this.#blockOf[row]);
    if (block) {
      block.count--;
      block.plainBytes -= rowBytes(this.dimensions, id, blobId, terms, info);
    }
    this.#stringBytes -= id.length + blobId.length + terms.length + info.length;
    const columns = [this.#ids, this.#blobIds, this.#terms, this.#infos, this.#blockOf];
    const last = this.#ids.length - 1;
    if (row !== last) {
      for (const column of columns) column[row] = column[last];
      this.#created[row] = this.#created[last];
      this.#vectors.move(last, row);
      this.#row.set(this.#ids[row], row);
    }
    for (const column of columns) column.pop();
  }

  /** The ids of the rows the blocks `blockIds` hold. */
  idsIn(blockIds: Set<string>): string[] {
    const out: string[] = [];
    if (blockIds.size === 0) return out;
    for (let row = 0; row < this.#ids.length; row++) {
      if (blockIds.has(this.#blockOf[row])) out.push(this.#ids[row]);
    }
    return out;
  }

  /** Forgets blocks and their rows. */
  dropBlocks(blockIds: Set<string>): void {
    for (const id of this.idsIn(blockIds)) this.remove(id);
    for (const id of blockIds) this.blocks.delete(id);
  }

  /** A row as blocks hold it (its vector copied). */
  row(id: string): BlockRow | undefined {
    const row = this.#row.get(id);
    if (row === undefined) return undefined;
    return {
      id,
      blobId: this.#blobIds[row],
      createdAt: this.#created[row],
      terms: this.#terms[row],
      info: this.#infos[row],
      vector: this.#vectors.row(row),
    };
  }

  /** The rows' ids. */
  ids(): string[] {
    return this.#ids.slice();
  }

  /**
   * Every row without its vector, or those among `ids`; each call makes new objects, so callers
   * may keep them.
   */
  terms(ids?: string[]): TermsRow[] {
    const rows = ids
      ? [...new Set(ids)].flatMap((id) => this.#row.get(id) ?? [])
      : this.#ids.map((_, row) => row);
    return rows.map((row) => {
      const id = this.#ids[row];
      const out: TermsRow = {
        id,
        terms: this.#terms[row] ? this.#terms[row].split(" ") : [],
        blobId: this.#blobIds[row],
        createdAt: this.#created[row],
      };
      const info = parseInfo(this.#infos[row]);
      if (info) out.info = info;
      return out;
    });
  }

  /** The `k` rows nearest `query` (of unit length), nearest first; among `only` when given. */
  search(query: Float32Array, k: number, only?: string[]): VectorHit[] {
    const vectors = this.#vectors;
    let rows: number[];
    if (only) {
      rows = [];
      for (const id of new Set(only)) {
        const row = this.#row.get(id);
        if (row !== undefined) rows.push(row);
      }
    } else {
      rows = vectors.shortlist(query, this.count, k);
    }
    const heap = new TopK(Math.max(0, Math.min(k, rows.length)), this.#ids);
    if (heap.size === 0) return [];
    vectors.dotsOf(query, rows).forEach((dot, j) => heap.offer(dot, rows[j]));
    return heap.sorted().map(({ score, row }) => ({
      id: this.#ids[row],
      blobId: this.#blobIds[row],
      distance: 1 - score,
      createdAt: this.#created[row],
    }));
  }
}

/**
 * The `size` best scores offered, in a min-heap. Equal scores are told apart by the rows' ids
 * (the smaller id is the better), never by where a row happens to sit: rows move when blocks
 * are merged or a namespace is loaded again, and a search must not change with them.
 */
class TopK {
  readonly size: number;
  #scores: Float64Array;
  #rows: Int32Array;
  #ids: string[];
  #length = 0;

  constructor(size: number, ids: string[]) {
    this.size = size;
    this.#scores = new Float64Array(size);
    this.#rows = new Int32Array(size);
    this.#ids = ids;
  }

  /** Whether the entry at heap place `at` ranks below (`score`, `row`). */
  #below(at: number, score: number, row: number): boolean {
    const held = this.#scores[at];
    return held < score || (held === score && this.#ids[this.#rows[at]] > this.#ids[row]);
  }

  offer(score: number, row: number): void {
    const scores = this.#scores, rows = this.#rows;
    if (this.#length < this.size) {
      let at = this.#length++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (this.#below(parent, score, row)) break;
        scores[at] = scores[parent];
        rows[at] = rows[parent];
        at = parent;
      }
      scores[at] = score;
      rows[at] = row;
      return;
    }
    if (!this.#below(0, score, row)) return;
    let at = 0;
    const n = this.#length;
    while (true) {
      const left = 2 * at + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.#below(right, scores[left], rows[left]) ? right : left;
      if (!this.#below(child, score, row)) break;
      scores[at] = scores[child];
      rows[at] = rows[child];
      at = child;
    }
    scores[at] = score;
    rows[at] = row;
  }

  /** Best first; equal scores by id. */
  sorted(): { score: number; row: number }[] {
    const out = [];
    for (let i = 0; i < this.#length; i++) out.push({ score: this.#scores[i], row: this.#rows[i] });
    const ids = this.#ids;
    return out.sort((a, b) => b.score - a.score || (ids[a.row] < ids[b.row] ? -1 : 1));
  }
}
