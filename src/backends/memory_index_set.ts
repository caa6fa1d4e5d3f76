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
    return Promise.try(() => {
      const index = this.#indexes.get(checkIndexName(name));
      return index ? { ...index.embedding } : null;
    });
  }

  open(name: string, embedding: IndexEmbedding): Promise<VectorStore> {
    return Promise.try(() => {
      let index = this.#indexes.get(checkIndexName(name));
      if (!index) {
        const store = new MemoryVectorStore(embedding.dimensions);
        index = { embedding: { ...embedding }, store };
        this.#indexes.set(name, index);
      }
      const { model, dimensions } = index.embedding;
      if (model !== embedding.model || dimensions !== embedding.dimensions) {
        throw new SvcError(
          "conflict",
          `Cannot open the vector index "${name}": it was built with embedder "${model}" ` +
            `(${dimensions} dimensions), not "${embedding.model}" (${embedding.dimensions})`,
        );
      }
      return index.store;
    });
  }

  activate(name: string): Promise<void> {
    return Promise.try(() => {
      this.#active = checkIndexName(name);
    });
  }

  remove(name: string): Promise<void> {
    return Promise.try(() => {
      if (checkIndexName(name) === this.#active) {
        throw new SvcError(
          "conflict",
          `Cannot remove the vector index "${name}": it is the active one`,
        );
      }
      this.#indexes.delete(name);
    });
  }
}
