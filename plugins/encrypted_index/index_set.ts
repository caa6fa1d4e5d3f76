/**
 * The encrypted index's named indexes (`VectorIndexSet`): index `name` is the Deno KV database
 * `<dir>/<name>.kv` (with its `-wal` and `-shm` files), so the default, `"index"`, is the
 * `index.kv` every earlier version used. The active index is named in `<dir>/index.active`
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
  checkIndexName,
  type IndexEmbedding,
  type Logger,
  SvcError,
  type VectorIndexSet,
  type VectorStore,
} from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { readActiveIndex, writeActiveIndex } from "./active_pointer.ts";
import { KvBlockStorage } from "./kv_storage.ts";
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

  #path(name: string): string {
    return `${this.#options.dir}/${checkIndexName(name)}.kv`;
  }

  active(): Promise<string> {
    return readActiveIndex(this.#options.dir, POINTER, DEFAULT, "the encrypted vector index");
  }

  async built(name: string): Promise<IndexEmbedding | null> {
    const path = this.#path(name);
    if (!await pathExists(path)) return null;
    const storage = await KvBlockStorage.open(path);
    try {
      const meta = await storage.meta();
      return meta && { model: meta.model, dimensions: meta.dimensions };
    } finally {
      storage.close();
    }
  }

  async open(name: string, embedding: IndexEmbedding): Promise<VectorStore> {
    const { secret, memoryMb, soleWriter, logger } = this.#options;
    return await EncryptedVectorStore.open({
      path: this.#path(name),
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
    const path = this.#path(name);
    if (name === await this.active()) {
      throw new SvcError(
        "conflict",
        `Cannot remove the vector index ${path}: it is the active one`,
      );
    }
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      await Deno.remove(file).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    }
  }
}
