/**
 * The encrypted index's named indexes (`VectorIndexSet`): index `name` is the SQLite file
 * `<dir>/<name>.sqlite` (with its `-wal` and `-shm` files; see `index_file.ts`), so the default,
 * `"index"`, is `index.sqlite`. The active index is named in `<dir>/index.active`
 * (JSON `{"name": …}`), written to a temporary file, synced and renamed over the old one: a
 * crash leaves the old name or the new, never a mix. Without that file the active index is
 * `"index"`.
 *
 * @example
 * ```ts
 * const indexes = await EncryptedIndexSet.open({ dir: "./data", secret });
 * const store = await indexes.open(await indexes.active(), embedder);
 * ```
 */
import {
  type IndexEmbedding,
  SvcError,
  type VectorIndexSet,
  type VectorStore,
} from "@svc/relayer/kit";
import { readActiveIndex, writeActiveIndex } from "./active_pointer.ts";
import { hasIndexFile, indexPath, openIndexFile, removeIndexFiles } from "./index_file.ts";
import { type EncryptedIndexOptions, EncryptedVectorStore } from "./mod.ts";

const POINTER = "index.active";
const DEFAULT = "index";

/** How to open an {@linkcode EncryptedIndexSet}: each index is opened with these options. */
export interface EncryptedIndexSetOptions
  extends Pick<EncryptedIndexOptions, "secret" | "memoryMb" | "soleWriter" | "logger"> {
  /** The folder of the index files (the data directory). */
  dir: string;
}

/** The encrypted indexes of a folder; see the module documentation. */
export class EncryptedIndexSet implements VectorIndexSet {
  readonly name = "encrypted";
  #options: EncryptedIndexSetOptions;

  private constructor(options: EncryptedIndexSetOptions) {
    this.#options = options;
  }

  /** The indexes of `options.dir` (created if missing). */
  static async open(options: EncryptedIndexSetOptions): Promise<EncryptedIndexSet> {
    await Deno.mkdir(options.dir, { recursive: true, mode: 0o700 });
    return new EncryptedIndexSet(options);
  }

  active(): Promise<string> {
    return readActiveIndex(this.#options.dir, POINTER, DEFAULT, "the encrypted vector index");
  }

  async built(name: string): Promise<IndexEmbedding | null> {
    if (!await hasIndexFile(this.#options.dir, name)) return null;
    const storage = await openIndexFile(this.#options.dir, name);
    try {
      const meta = await storage.meta();
      return meta && { model: meta.model, dimensions: meta.dimensions };
    } finally {
      storage.close();
    }
  }

  async open(name: string, embedding: IndexEmbedding): Promise<VectorStore> {
    const { dir } = this.#options;
    return await EncryptedVectorStore.open({
      ...this.#options,
      storage: await openIndexFile(dir, name),
      where: indexPath(dir, name),
      model: embedding.model,
      dimensions: embedding.dimensions,
    });
  }

  activate(name: string): Promise<void> {
    return writeActiveIndex(this.#options.dir, POINTER, name);
  }

  async remove(name: string): Promise<void> {
    const { dir } = this.#options;
    if (name === await this.active()) {
      throw new SvcError(
        "conflict",
        `Cannot remove the vector index ${indexPath(dir, name)}: it is the active one`,
      );
    }
    await removeIndexFiles(dir, name);
  }
}
