/**
 * The encrypted index's named indexes (`VectorIndexSet`) in the shared PostgreSQL database: each
 * index is a `PgBlockStorage` scoped by its name, opened as an `EncryptedVectorStore`. The active
 * index is one row (`svc_index_active`; without it, `"index"`), changed in a transaction that
 * also notifies `svc_index` with `active:<name>`, so every relayer hears of the switch at its
 * commit (`onActivated`).
 *
 * @example
 * ```ts
 * const indexes = await PgIndexSet.open({ database, secret, logger });
 * const store = await indexes.open(await indexes.active(), embedder);
 * ```
 */
import {
  checkIndexName,
  type IndexEmbedding,
  type Logger,
  SvcError,
  type VectorIndexSet,
  type VectorStore,
} from "@svc/relayer/kit";
import { EncryptedVectorStore } from "@svc/encrypted-index";
import type { IndexMeta } from "@svc/encrypted-index/storage";
import { INDEX_CHANNEL, PgBlockStorage } from "./block_storage.ts";
import { type Database, pgCall } from "./database.ts";

const DEFAULT = "index";

/** How to open a {@linkcode PgIndexSet}. */
export interface PgIndexSetOptions {
  /** The shared database. */
  database: Database;
  /** The 32-byte secret every relayer holds, from which every key of every index is derived. */
  secret: Uint8Array<ArrayBuffer>;
  /** Memory for each open index's decrypted namespaces, in MiB (default 512). */
  memoryMb?: number;
  /**
   * How long a search trusts a namespace held in memory without reading its stored version,
   * in case a notification was lost, in milliseconds (default 1000).
   */
  revalidateMs?: number;
  /** Where the stores warn. */
  logger?: Logger;
}

/** The encrypted indexes of a PostgreSQL database; see the module documentation. */
export class PgIndexSet implements VectorIndexSet {
  readonly name = "encrypted";
  #options: PgIndexSetOptions;
  #activated: ((name: string) => void)[] = [];
  #unlisten: (() => Promise<void>) | undefined;

  private constructor(options: PgIndexSetOptions) {
    this.#options = options;
  }

  /** The indexes of `options.database`, listening for another relayer's switch. */
  static async open(options: PgIndexSetOptions): Promise<PgIndexSet> {
    const set = new PgIndexSet(options);
    const listening = options.database.listen(INDEX_CHANNEL, (payload) => {
      const [kind, name, more] = payload.split(":");
      if (kind === "active" && name && more === undefined) set.#heard(name);
    });
    set.#unlisten = await pgCall("listen for the active index's changes", () => listening);
    return set;
  }

  #heard(name: string): void {
    for (const listener of this.#activated) {
      try {
        listener(name);
      } catch (error) {
        this.#options.logger?.error("a listener of the active index failed", { error });
      }
    }
  }

  /** Calls `listener` with the new active index whenever a relayer (this one too) switches. */
  onActivated(listener: (name: string) => void): void {
    this.#activated.push(listener);
  }

  active(): Promise<string> {
    return pgCall("read the active index's name", async () => {
      const [row] = await this.#options.database.sql<{ name: string }[]>`
        select name from svc_index_active`;
      return row ? checkIndexName(row.name) : DEFAULT;
    });
  }

  built(name: string): Promise<IndexEmbedding | null> {
    checkIndexName(name);
    return pgCall("read the index's record", async () => {
      const [row] = await this.#options.database.sql<{ meta: IndexMeta }[]>`
        select meta from svc_index_meta where index_name = ${name}`;
      return row ? { model: row.meta.model, dimensions: row.meta.dimensions } : null;
    });
  }

  async open(name: string, embedding: IndexEmbedding): Promise<VectorStore> {
    checkIndexName(name);
    const { database, secret, memoryMb, revalidateMs, logger } = this.#options;
    const storage = await PgBlockStorage.open(database, name);
    return await EncryptedVectorStore.open({
      storage,
      where: `index "${name}" of the database`,
      secret,
      model: embedding.model,
      dimensions: embedding.dimensions,
      memoryMb,
      revalidateMs,
      logger,
    });
  }

  activate(name: string): Promise<void> {
    checkIndexName(name);
    return pgCall("switch the active index", async () => {
      await this.#options.database.sql.begin(async (tx) => {
        await tx`
          insert into svc_index_active (only_row, name) values (true, ${name})
          on conflict (only_row) do update set name = excluded.name`;
        await tx`select pg_notify(${INDEX_CHANNEL}, ${`active:${name}`})`;
      });
    });
  }

  remove(name: string): Promise<void> {
    checkIndexName(name);
    return pgCall("remove an index", async () => {
      await this.#options.database.sql.begin(async (tx) => {
        // The active row is locked, so no switch to this index lands meanwhile.
        const [row] = await tx<{ name: string }[]>`select name from svc_index_active for update`;
        if ((row?.name ?? DEFAULT) === name) {
          throw new SvcError(
            "conflict",
            `Cannot remove the vector index "${name}" of the database: it is the active one`,
          );
        }
        for (const table of ["blocks", "ids", "headers", "notes", "meta"]) {
          await tx.unsafe(`delete from svc_index_${table} where index_name = $1`, [name]);
        }
      });
    });
  }

  /** Stops listening (the stores it opened are closed by their holders). */
  async close(): Promise<void> {
    this.#activated = [];
    await this.#unlisten?.().catch(() => {});
  }
}
