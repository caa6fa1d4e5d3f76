/**
 * The vectors of recall queries. A key asking the same words again (an agent often does) skips
 * the model. Each key of each account keeps its own shelf of recent query vectors, never shared:
 * a hit's speed would tell one key whether another asked the same words.
 *
 * Nobody's activity moves another's entries. A shelf holds `VECTORS_PER_KEY` vectors and drops
 * only its own least recently used; it goes only when its own key leaves it unused for
 * `SHELF_IDLE_MS`. Shelves are bounded (`SHELVES` in all, `SHELVES_PER_ACCOUNT` per account):
 * when they are all held, a key without one embeds every query, and evicts nobody. What remains
 * observable: a key that finds no free shelf learns that every shelf was held, so filling them
 * takes `SHELVES / SHELVES_PER_ACCOUNT` accounts each asking within `SHELF_IDLE_MS`.
 * Emptied when the embedder changes (a reindex).
 */
import type { Embedder } from "../backends/types.ts";
import { LruMap } from "@svc/util/lru_map";

/** The query vectors one key keeps: its most recent distinct queries. */
export const VECTORS_PER_KEY = 16;
/** The keys that may hold a shelf at once, across accounts. */
export const SHELVES = 256;
/** The shelves one account's keys may hold at once. */
export const SHELVES_PER_ACCOUNT = 8;
/** A shelf its key has not used for this long (milliseconds) is gone: 10 minutes. */
export const SHELF_IDLE_MS = 10 * 60_000;

/** Who asks a query: the account's owner address and the signing key's address. */
export interface QueryAsker {
  owner: string;
  /** The key's address; the owner's own key's is `owner`. */
  key: string;
}

/** One key's query vectors. */
interface Shelf {
  owner: string;
  vectors: LruMap<string, Float32Array>;
  /** Unix milliseconds of the key's last query. */
  usedAt: number;
}

/**
 * Embeds recall queries, keeping each key's recent query vectors apart (see the module
 * documentation).
 *
 * @example
 * ```ts
 * const queryVectors = new QueryVectors(embedder);
 * await queryVectors.vectorOf({ owner, key }, "what do I eat?"); // embedded
 * await queryVectors.vectorOf({ owner, key }, "what do I eat?"); // kept
 * ```
 */
export class QueryVectors {
  readonly #embedder: Embedder;
  readonly #now: () => number;
  /** The shelves by owner and key, least recently used first. */
  readonly #shelves = new Map<string, Shelf>();
  /** How many shelves each owner's keys hold. */
  readonly #held = new Map<string, number>();
  /** The model the kept vectors are of. */
  #model: string;

  /** `now`: Unix milliseconds (default `Date.now`). */
  constructor(embedder: Embedder, now: () => number = Date.now) {
    this.#embedder = embedder;
    this.#now = now;
    this.#model = embedder.model;
  }

  /** The vector of `asker`'s query `text`, embedded unless the same key asked it lately. */
  async vectorOf(asker: QueryAsker, text: string, signal?: AbortSignal): Promise<Float32Array> {
    const embedder = this.#embedder;
    if (embedder.model !== this.#model) {
      this.#shelves.clear();
      this.#held.clear();
      this.#model = embedder.model;
    }
    const shelf = this.#shelfOf(asker);
    const kept = shelf?.vectors.get(text);
    if (kept) return kept;
    const [vector] = await embedder.embed([text], { signal, purpose: "query" });
    // Kept only on the shelf still the key's, of the model still the embedder's.
    if (shelf && this.#shelves.get(shelfId(asker)) === shelf && embedder.model === this.#model) {
      shelf.vectors.set(text, vector);
    }
    return vector;
  }

  /** `asker`'s shelf, now its most recently used; a new one when free; none when all held. */
  #shelfOf(asker: QueryAsker): Shelf | undefined {
    const id = shelfId(asker);
    const now = this.#now();
    let shelf = this.#shelves.get(id);
    if (shelf && idle(shelf, now)) {
      this.#drop(id, shelf);
      shelf = undefined;
    }
    shelf ??= this.#claim(asker.owner, now);
    if (!shelf) return undefined;
    shelf.usedAt = now;
    this.#shelves.delete(id);
    this.#shelves.set(id, shelf);
    return shelf;
  }

  /** A new shelf for a key of `owner` once the idle ones are dropped, unless the limits are reached. */
  #claim(owner: string, now: number): Shelf | undefined {
    for (const [idleId, shelf] of this.#shelves) {
      if (!idle(shelf, now)) break;
      this.#drop(idleId, shelf);
    }
    const held = this.#held.get(owner) ?? 0;
    if (this.#shelves.size >= SHELVES || held >= SHELVES_PER_ACCOUNT) return undefined;
    this.#held.set(owner, held + 1);
    return { owner, vectors: new LruMap(VECTORS_PER_KEY), usedAt: now };
  }

  /** Forgets the shelf `id`. */
  #drop(id: string, shelf: Shelf): void {
    this.#shelves.delete(id);
    const held = (this.#held.get(shelf.owner) ?? 1) - 1;
    if (held > 0) this.#held.set(shelf.owner, held);
    else this.#held.delete(shelf.owner);
  }
}

/** The shelf of `asker`'s key. */
function shelfId({ owner, key }: QueryAsker): string {
  return `${owner}\n${key}`;
}

/** Whether `shelf`'s key left it unused for `SHELF_IDLE_MS` by `now`. */
function idle(shelf: Shelf, now: number): boolean {
  return now - shelf.usedAt >= SHELF_IDLE_MS;
}
