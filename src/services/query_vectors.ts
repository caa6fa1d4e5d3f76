/**
 * The vectors of recall queries. An account asking the same words again (an agent often does)
 * skips the model. Kept per account, never shared: a hit's speed would tell one account whether
 * another asked the same words. Emptied when the embedder changes (a reindex).
 */
import type { Embedder } from "../backends/types.ts";
import { LruMap } from "@svc/util/lru_map";

/** Recall query vectors kept, across accounts (each account's apart). */
const QUERY_VECTORS_KEPT = 1_000;

/** Embeds recall queries, keeping each account's recent query vectors. */
export class QueryVectors {
  readonly #embedder: Embedder;
  readonly #kept = new LruMap<string, Float32Array>(QUERY_VECTORS_KEPT);
  /** The model the kept vectors are of. */
  #model: string;

  constructor(embedder: Embedder) {
    this.#embedder = embedder;
    this.#model = embedder.model;
  }

  /** The vector of `owner`'s query `text`, embedded unless the account asked it lately. */
  async vectorOf(owner: string, text: string, signal?: AbortSignal): Promise<Float32Array> {
    const embedder = this.#embedder;
    if (embedder.model !== this.#model) {
      this.#kept.clear();
      this.#model = embedder.model;
    }
    const key = `${owner}\n${text}`;
    const kept = this.#kept.get(key);
    if (kept) return kept;
    const [vector] = await embedder.embed([text], { signal, purpose: "query" });
    if (embedder.model === this.#model) this.#kept.set(key, vector);
    return vector;
  }
}
