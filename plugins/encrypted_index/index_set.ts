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
  type Logger,
  SvcError,
  type VectorIndexSet,
  type VectorStore,
} from "@svc/relayer/kit";
import { readActiveIndex, writeActiveIndex } from "./active_pointer.ts";
import { hasIndexFile, indexPath, openIndexFile, removeIndexFiles } from "./index_file.ts";
import { EncryptedVectorStore } from "./mod.ts";

const POINTER = "index.active";
const DEFAULT = "index";

/** How to open an {@linkcode EncryptedIndexSet}. */
export interface EncryptedIndexSetOptions {
  /** The folder of the index files (the data directory). */
  dir: string;
  /** The relayer's 32-byte secret, from which every key of every index is derived. */
  secret: Uint8Array<ArrayBuffer>;
  /** Memory for each open index's decrypted namespaces, in MiB (default 512). */
  memoryMb?: number;
  /** Nothing but this process writes the indexes (see `EncryptedIndexOptions.soleWriter`). */
  soleWriter?: boolean;
  /** Where the stores warn (default: JSON lines on stderr). */
  logger?: Logger;
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
    const { dir, secret, memoryMb, soleWriter, logger } = this.#options;
    return await EncryptedVectorStore.open({
      storage: await openIndexFile(dir, name),
      where: indexPath(dir, name),
      secret,
      model: embedding.model,
      dimensions: embedding.dimensions,
      memoryMb,
      soleWriter,
      logger,
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
