/**
 * LanceDB's named indexes (`VectorIndexSet`), as tables of one folder: the default index,
 * `"index"`, is the table `memories` with its record `svc_index.json` (what every earlier
 * version used); index `name` is the table `memories-<name>` with `svc_index.<name>.json`. The
 * active index is named in `svc_active.json` (JSON `{"name": …}`), written to a temporary file,
 * synced and renamed over the old one: a crash leaves the old name or the new. Without that
 * file the active index is `"index"`.
 *
 * @example
 * ```ts
 * const indexes = await LanceDbIndexSet.open({ dir: "./data/lancedb" });
 * const store = await indexes.open(await indexes.active(), embedder);
 * ```
 */
import * as lancedb from "@lancedb/lancedb";
import {
  backendError,
  type IndexEmbedding,
  type Logger,
  SvcError,
  type VectorIndexSet,
  type VectorStore,
} from "@svc/relayer/kit";
import { readActiveIndex, writeActiveIndex } from "@svc/encrypted-index/active_pointer";
import { LanceDbVectorStore } from "./mod.ts";
import { indexFiles } from "./table.ts";

const POINTER = "svc_active.json";
const DEFAULT = "index";

/** How to open a {@linkcode LanceDbIndexSet}. */
export interface LanceDbIndexSetOptions {
  /** The folder of the tables. */
  dir: string;
  /** Rows from which each index builds its approximate vector index (see `LanceDbOptions`). */
  indexMinRows?: number;
  /** Where background maintenance reports failures. */
  logger?: Logger;
}

/** The LanceDB indexes of a folder; see the module documentation. */
export class LanceDbIndexSet implements VectorIndexSet {
  readonly name = "lancedb";
  #options: LanceDbIndexSetOptions;

  private constructor(options: LanceDbIndexSetOptions) {
    this.#options = options;
  }

  /** The indexes of `options.dir` (created if missing). */
  static async open(options: LanceDbIndexSetOptions): Promise<LanceDbIndexSet> {
    await Deno.mkdir(options.dir, { recursive: true, mode: 0o700 });
    return new LanceDbIndexSet(options);
  }

  active(): Promise<string> {
    return readActiveIndex(this.#options.dir, POINTER, DEFAULT, "LanceDB");
  }

  async built(name: string): Promise<IndexEmbedding | null> {
    try {
      const text = await Deno.readTextFile(`${this.#options.dir}/${indexFiles(name).meta}`);
      const { model, dimensions } = JSON.parse(text) as IndexEmbedding;
      return { model, dimensions };
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  }

  async open(name: string, embedding: IndexEmbedding): Promise<VectorStore> {
    const { dir, indexMinRows, logger } = this.#options;
    return await LanceDbVectorStore.open({ dir, index: name, ...embedding, indexMinRows, logger });
  }

  activate(name: string): Promise<void> {
    return writeActiveIndex(this.#options.dir, POINTER, name);
  }

  async remove(name: string): Promise<void> {
    const { table, meta } = indexFiles(name);
    if (name === await this.active()) {
      throw new SvcError(
        "conflict",
        `Cannot remove the vector index "${name}" of ${this.#options.dir}: it is the active one`,
      );
    }
    try {
      const db = await lancedb.connect(this.#options.dir);
      try {
        if ((await db.tableNames()).includes(table)) await db.dropTable(table);
      } finally {
        db.close();
      }
      await Deno.remove(`${this.#options.dir}/${meta}`).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    } catch (error) {
      throw backendError("LanceDB", `remove the vector index "${name}"`, error);
    }
  }
}
