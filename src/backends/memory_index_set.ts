/**
 * The in-memory twin of `VectorIndexSet`: named `MemoryVectorStore`s, one active, nothing
 * persisted (the set lives as long as the object).
 */
import { SvcError } from "../errors.ts";
import { checkIndexName, DEFAULT_INDEX } from "./index_names.ts";
import { MemoryVectorStore } from "./memory.ts";
import type { IndexEmbedding, VectorIndexSet, VectorStore } from "./types.ts";

/** Indexes in memory; see the module documentation. */
export class MemoryVectorIndexSet implements VectorIndexSet {
  readonly name = "memory";
  #active = DEFAULT_INDEX;
  #indexes = new Map<string, { embedding: IndexEmbedding; store: MemoryVectorStore }>();

  active(): Promise<string> {
    return Promise.resolve(this.#active);
  }

  built(name: string): Promise<IndexEmbedding | null> {
    const index = this.#indexes.get(checkIndexName(name));
    return Promise.resolve(index ? { ...index.embedding } : null);
  }

  open(name: string, embedding: IndexEmbedding): Promise<VectorStore> {
    checkIndexName(name);
    let index = this.#indexes.get(name);
    if (!index) {
      index = { embedding: { ...embedding }, store: new MemoryVectorStore(embedding.dimensions) };
      this.#indexes.set(name, index);
    }
    const { model, dimensions } = index.embedding;
    if (model !== embedding.model || dimensions !== embedding.dimensions) {
      return Promise.reject(
        new SvcError(
          "conflict",
          `Cannot open the vector index "${name}": it was built with embedder "${model}" ` +
            `(${dimensions} dimensions), not "${embedding.model}" (${embedding.dimensions})`,
        ),
      );
    }
    return Promise.resolve(index.store);
  }

  activate(name: string): Promise<void> {
    this.#active = checkIndexName(name);
    return Promise.resolve();
  }

  remove(name: string): Promise<void> {
    if (checkIndexName(name) === this.#active) {
      return Promise.reject(
        new SvcError("conflict", `Cannot remove the vector index "${name}": it is the active one`),
      );
    }
    this.#indexes.delete(name);
    return Promise.resolve();
  }
}
