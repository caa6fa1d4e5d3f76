/**
 * The LanceDB vector index (embedded, in a local directory). One table, `memories`; writes go
 * through one batching writer, because concurrent upserts of the same new key can duplicate
 * rows. The directory records the embedder's model and dimensions, and opening it with
 * another embedder is refused. Past `indexMinRows` rows an HNSW (scalar-quantized) cosine
 * index is built; it answers searches only once the table holds more than `exactMaxRows` rows
 * (re-ranking its candidates on the full vectors, so distances are exact): until then every
 * search is exact, so results never depend on whether the index was built or compacted yet.
 * Equal distances are ordered by id.
 * A row's `MemoryInfo` is kept as JSON in the nullable `info` column (keyed hashes and sealed
 * values only); a table made before it gains the column, empty, when opened.
 *
 * @example
 * ```ts
 * const store = await LanceDbVectorStore.open({ dir: "./data/lancedb", model, dimensions });
 * ```
 */
import * as lancedb from "@lancedb/lancedb";
import {
  backendError,
  type CallOptions,
  createLogger,
  type IndexPartition,
  type Logger,
  type MemoryInfo,
  type NamespaceCount,
  type TermsRow,
  type VectorHit,
  type VectorRow,
  type VectorStore,
} from "@svc/relayer/kit";
import { openTable } from "./table.ts";

/** Candidates per result that the HNSW search re-ranks on the full vectors. */
const REFINE_FACTOR = 4;
const VECTOR_INDEX = "vector_idx";
const MAX_INDEX_SEGMENTS = 4;
/** Extra results a search asks for, so that equal distances at its end are ordered by id. */
const TIE_MARGIN = 8;

/** How to open a {@linkcode LanceDbVectorStore}. */
export interface LanceDbOptions {
  /** The index's folder. */
  dir: string;
  /**
   * Which index of the folder (default `"index"`, table `memories`); another name is the table
   * `memories-<name>`, beside it (see `LanceDbIndexSet`).
   */
  index?: string;
  /** The embedder's model id; an index built by another is refused. */
  model: string;
  /** The embedder's vector size; an index of another size is refused. */
  dimensions: number;
  /** Rows from which the approximate (HNSW) vector index is built (default 2,000). */
  indexMinRows?: number;
  /**
   * Rows up to which every search is exact, whether the index is built or not (default
   * 100,000); past them the index answers, approximately, and an answer may change when the
   * index is rebuilt.
   */
  exactMaxRows?: number;
  /**
   * How long a version of the table is kept once replaced, before a compaction deletes its files
   * (erased rows among them); default 60 s, long enough for a search begun on it to end.
   */
  keepVersionsMs?: number;
  /** Where background maintenance reports failures (default: JSON lines on stderr). */
  logger?: Logger;
}

/** A row as the table stores it. */
type StoredRow = {
  id: string;
  owner_id: string;
  ns: string;
  blob_id: string;
  created_at: number;
  terms: string | null;
  info: string | null;
  vector: number[];
};

/** A write waiting for the single writer: rows to upsert, or the ids of rows to delete. */
type Pending = ({ records: StoredRow[] } | { ids: string[] }) & {
  resolve: () => void;
  reject: (error: unknown) => void;
};

function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

function inList(ids: string[]): string {
  return `id IN (${ids.map(quote).join(", ")})`;
}

/** The rows of each owner's namespace, counted and sorted by owner, then namespace. */
function partitionsOf(rows: { owner_id: string; ns: string }[]): IndexPartition[] {
  const counts = new Map<string, IndexPartition>();
  for (const { owner_id: owner, ns: namespace } of rows) {
    const key = JSON.stringify([owner, namespace]);
    const partition = counts.get(key) ?? { owner, namespace, count: 0 };
    partition.count++;
    counts.set(key, partition);
  }
  const order = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
  return [...counts.values()].sort((a, b) =>
    order(a.owner, b.owner) || order(a.namespace, b.namespace)
  );
}

/** The `info` of a row whose column holds `text` (a new object), for spreading into the row. */
function infoOf(text: string | null | undefined): { info?: MemoryInfo } {
  return text ? { info: JSON.parse(text) as MemoryInfo } : {};
}

/** The LanceDB vector index of a local folder; see the module documentation. */
export class LanceDbVectorStore implements VectorStore {
  readonly name = "lancedb";
  readonly dimensions: number;
  #db: lancedb.Connection;
  #table: lancedb.Table;
  #pending: Pending[] = [];
  #writing: Promise<void> | null = null;
  #indexMinRows: number;
  #exactMaxRows: number;
  /** The table's rows, as counted after the last write. */
  #rows = 0;
  #commitsSinceOptimize = 0;
  #rowsSinceOptimize = 0;
  #idIndexed = false;
  #keepVersionsMs: number;
  #logger: Logger;

  private constructor(
    db: lancedb.Connection,
    table: lancedb.Table,
    rows: number,
    options: LanceDbOptions,
  ) {
    this.#db = db;
    this.#table = table;
    this.#rows = rows;
    this.dimensions = options.dimensions;
    this.#indexMinRows = options.indexMinRows ?? 2_000;
    this.#exactMaxRows = options.exactMaxRows ?? 100_000;
    this.#keepVersionsMs = options.keepVersionsMs ?? 60_000;
    this.#logger = options.logger ?? createLogger("warn");
  }

  /** Opens the index's table (made if missing), refusing one built by another embedder. */
  static async open(options: LanceDbOptions): Promise<LanceDbVectorStore> {
    const { db, table } = await openTable(options);
    try {
      return new LanceDbVectorStore(db, table, await table.countRows(), options);
    } catch (error) {
      table.close();
      db.close();
      throw backendError("LanceDB", "open the vector index", error);
    }
  }

  upsert(rows: VectorRow[], options?: CallOptions): Promise<void> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    if (rows.length === 0) return Promise.resolve();
    // Copied now, so a caller changing its rows afterwards does not change what is written.
    const records = rows.map((row): StoredRow => ({
      id: row.id,
      owner_id: row.owner,
      ns: row.namespace,
      blob_id: row.blobId,
      created_at: row.createdAt,
      terms: row.terms?.join(" ") ?? null,
      info: row.info ? JSON.stringify(row.info) : null,
      vector: Array.from(row.vector),
    }));
    const done = new Promise<void>((resolve, reject) => {
      this.#pending.push({ records, resolve, reject });
    });
    this.#writing ??= this.#drain();
    return done;
  }

  /**
   * The single writer, so that no write or delete races another or a compaction: commits the
   * upserts queued so far as one merge-insert, or the deletes as one delete, in turn.
   */
  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const next = this.#pending[0];
      // The run of upserts, or of deletes, up to the first of the other kind.
      const end = this.#pending.findIndex((p) => "ids" in p !== "ids" in next);
      const batch = this.#pending.splice(0, end < 0 ? this.#pending.length : end);
      const byId = new Map<string, StoredRow>();
      for (const p of batch) if ("records" in p) { for (const r of p.records) byId.set(r.id, r); }
      try {
        if ("ids" in next) {
          await this.#table.delete(inList(batch.flatMap((p) => "ids" in p ? p.ids : [])));
        } else {
          await this.#table.mergeInsert("id").whenMatchedUpdateAll().whenNotMatchedInsertAll()
            .execute([...byId.values()]);
        }
        this.#rows = await this.#table.countRows().catch(() => this.#rows);
        for (const p of batch) p.resolve();
      } catch (error) {
        const doing = "ids" in next ? "delete from the vector index" : "index the memory";
        const wrapped = backendError("LanceDB", doing, error);
        for (const p of batch) p.reject(wrapped);
      }
      // Many small commits leave many fragments; many rows leave the vector index behind.
      this.#commitsSinceOptimize++;
      this.#rowsSinceOptimize += byId.size;
      if (this.#commitsSinceOptimize >= 100 || this.#rowsSinceOptimize >= 2_000) {
        this.#commitsSinceOptimize = 0;
        this.#rowsSinceOptimize = 0;
        await this.#optimize();
      }
    }
    this.#writing = null;
  }

  /**
   * Compacts the many small fragments single writes leave, deletes the files of versions
   * replaced over `keepVersionsMs` ago, and folds new rows into the vector index. Each fold
   * adds an index segment that every search visits, so once there are more than
   * `MAX_INDEX_SEGMENTS` the index is rebuilt as one.
   */
  async #optimize(): Promise<void> {
    const warn = (msg: string) => (error: unknown) => this.#logger.warn(msg, { error });
    const cleanupOlderThan = await this.#replacedBefore().catch(() => new Date(0));
    await this.#table.optimize({ cleanupOlderThan }).catch(warn("index compaction failed"));
    if (!this.#idIndexed) {
      this.#idIndexed = true;
      await this.#table.createIndex("id", { config: lancedb.Index.btree() }).catch(() => {
        this.#idIndexed = false;
      });
    }
    const segments = (await this.#table.indexStats(VECTOR_INDEX))?.numIndices ?? 0;
    const wanted = segments === 0
      ? (await this.#table.countRows()) >= this.#indexMinRows
      : segments > MAX_INDEX_SEGMENTS;
    if (!wanted) return;
    await this.#table.createIndex("vector", {
      name: VECTOR_INDEX,
      config: lancedb.Index.hnswSq({ distanceType: "cosine" }),
      replace: true,
    }).catch(warn("vector index build failed"));
  }

  /**
   * The time the newest version made `keepVersionsMs` ago or earlier was made: LanceDB deletes
   * the versions made before it (its time is theirs, not their replacement's), and each of those
   * was replaced by then. The epoch, deleting nothing, when no version is that old.
   */
  async #replacedBefore(): Promise<Date> {
    const cutoff = Date.now() - this.#keepVersionsMs;
    let newest = 0;
    for (const { timestamp } of await this.#table.listVersions()) {
      const made = timestamp.getTime();
      if (made <= cutoff && made > newest) newest = made;
    }
    return new Date(newest);
  }

  async search(
    owner: string,
    namespace: string,
    vector: Float32Array | number[],
    k: number,
    options: CallOptions & { ids?: string[] } = {},
  ): Promise<VectorHit[]> {
    options.signal?.throwIfAborted();
    if (options.ids?.length === 0) return [];
    try {
      let query = this.#table.vectorSearch(Array.from(vector))
        .distanceType("cosine")
        .where(
          `owner_id = ${quote(owner)} AND ns = ${quote(namespace)}` +
            (options.ids ? ` AND ${inList(options.ids)}` : ""),
        )
        .refineFactor(REFINE_FACTOR);
      // A few named rows, or a table small enough: exact distances, no index.
      if (options.ids || this.#rows <= this.#exactMaxRows) query = query.bypassVectorIndex();
      const rows = await query
        .select(["id", "blob_id", "created_at", "_distance"])
        .limit(k + TIE_MARGIN)
        .toArray();
      const hits: VectorHit[] = rows.map((row) => ({
        id: row.id,
        blobId: row.blob_id,
        distance: row._distance,
        createdAt: row.created_at,
      }));
      return hits.sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1)).slice(0, k);
    } catch (error) {
      throw backendError("LanceDB", "search the vector index", error);
    }
  }

  async has(ids: string[], options?: CallOptions): Promise<Set<string>> {
    options?.signal?.throwIfAborted();
    if (ids.length === 0) return new Set();
    try {
      const rows = await this.#table.query().where(inList(ids)).select(["id"]).toArray();
      return new Set(rows.map((row) => row.id as string));
    } catch (error) {
      throw backendError("LanceDB", "read the vector index", error);
    }
  }

  delete(ids: string[], options?: CallOptions): Promise<void> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    if (ids.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve, reject) => {
      this.#pending.push({ ids: [...ids], resolve, reject });
    });
    this.#writing ??= this.#drain();
    return done;
  }

  async count(
    filter: { owner?: string; namespace?: string } = {},
    options?: CallOptions,
  ): Promise<number> {
    options?.signal?.throwIfAborted();
    const parts: string[] = [];
    if (filter.owner !== undefined) parts.push(`owner_id = ${quote(filter.owner)}`);
    if (filter.namespace !== undefined) parts.push(`ns = ${quote(filter.namespace)}`);
    try {
      return await this.#table.countRows(parts.length ? parts.join(" AND ") : undefined);
    } catch (error) {
      throw backendError("LanceDB", "count the vector index", error);
    }
  }

  async terms(
    owner: string,
    namespace: string,
    options?: CallOptions & { ids?: string[] },
  ): Promise<TermsRow[]> {
    options?.signal?.throwIfAborted();
    const only = options?.ids && new Set(options.ids);
    try {
      const rows = await this.#table.query()
        .where(`owner_id = ${quote(owner)} AND ns = ${quote(namespace)}`)
        .select(["id", "terms", "blob_id", "created_at", "info"])
        .toArray();
      return rows.filter((row) => !only || only.has(row.id)).map((row) => ({
        id: row.id,
        terms: row.terms ? row.terms.split(" ") : [],
        blobId: row.blob_id,
        createdAt: Number(row.created_at),
        ...infoOf(row.info),
      }));
    } catch (error) {
      throw backendError("LanceDB", "read the stored terms", error);
    }
  }

  async namespaces(owner: string, options?: CallOptions): Promise<NamespaceCount[]> {
    options?.signal?.throwIfAborted();
    try {
      const rows = await this.#table.query().where(`owner_id = ${quote(owner)}`)
        .select(["owner_id", "ns"]).toArray();
      return partitionsOf(rows).map(({ namespace, count }) => ({ namespace, count }));
    } catch (error) {
      throw backendError("LanceDB", "list namespaces", error);
    }
  }

  async partitions(options?: CallOptions): Promise<IndexPartition[]> {
    options?.signal?.throwIfAborted();
    try {
      const rows = await this.#table.query().select(["owner_id", "ns"]).toArray();
      return partitionsOf(rows);
    } catch (error) {
      throw backendError("LanceDB", "list the index's namespaces", error);
    }
  }

  /** Every row of the index, in batches (to move the index into another store). */
  async *rows(options?: CallOptions): AsyncGenerator<VectorRow[]> {
    await this.idle();
    try {
      const columns = ["id", "owner_id", "ns", "blob_id", "created_at", "terms", "info", "vector"];
      for await (const batch of this.#table.query().select(columns)) {
        options?.signal?.throwIfAborted();
        const rows: VectorRow[] = [];
        for (const row of batch) {
          const terms = row.terms as string | null;
          rows.push({
            id: row.id,
            owner: row.owner_id,
            namespace: row.ns,
            blobId: row.blob_id,
            createdAt: row.created_at,
            vector: Float32Array.from(row.vector.toArray() as Float32Array),
            ...(terms !== null ? { terms: terms ? terms.split(" ") : [] } : {}),
            ...infoOf(row.info),
          });
        }
        yield rows;
      }
    } catch (error) {
      if (options?.signal?.aborted) throw options.signal.reason;
      throw backendError("LanceDB", "read the vector index", error);
    }
  }

  /** Resolves once queued writes, compaction and index builds are done. */
  async idle(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async close(): Promise<void> {
    while (this.#writing) await this.#writing;
    this.#table.close();
    this.#db.close();
  }
}

export { LanceDbIndexSet, type LanceDbIndexSetOptions } from "./index_set.ts";
export { indexFiles } from "./table.ts";
export type {
  CallOptions,
  IndexEmbedding,
  IndexPartition,
  LogFields,
  Logger,
  MemoryInfo,
  NamespaceCount,
  TermsRow,
  VectorHit,
  VectorIndexSet,
  VectorRow,
  VectorStore,
} from "@svc/relayer/kit";
