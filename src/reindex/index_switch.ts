/**
 * The relayer's view of its vector index while the embedder changes: an `Embedder` and a
 * `VectorStore` that stand for the active index and its embedder, and move to a new index and
 * embedder in one step, once the new index is complete (`complete`).
 *
 * A recall embeds its query, then searches, sometimes more than once; the switch may come
 * between. So each vector `embedder` makes is remembered (weakly) with the index generation
 * whose embedder made it, and every search goes to that generation's index: a recall that began
 * before the switch ends on the old index, one that began after runs on the new one, and none
 * mixes the two. The old index stays open for a grace period after the switch; a search that
 * comes later still with one of its vectors is refused as `backend_unavailable` (try again)
 * rather than answered from the other index. A vector no embedder of the switch made (a client's
 * vector, for manual memories) goes to the active index.
 *
 * While a new index is being built (`build`), every write lands in both: a remembered memory's
 * text (remembered with its vector) is embedded again by the new embedder for the new index, a
 * client's vector is copied there when it has the new index's dimensions, and erases delete from
 * both. A write to the new index that fails is logged and left to the reindex's last pass, which
 * makes the new index hold exactly the memories of the old before switching; the writes are
 * held back meanwhile (`WriteGate`). A memory embedded by the old embedder and written after the
 * switch is embedded again by the new one.
 *
 * @example
 * ```ts
 * const indexes = new IndexSwitch({ name: "index", embedder: lexical, store: oldStore });
 * createRelayer({ ...backends, embedder: indexes.embedder, vectors: indexes.vectors });
 * indexes.build({ name: "index-2", embedder: glove, store: newStore });
 * ```
 */
import type {
  CallOptions,
  Embedder,
  IndexEmbedding,
  IndexPartition,
  NamespaceCount,
  Reranker,
  TermsRow,
  VectorHit,
  VectorRow,
  VectorStore,
} from "../backends/types.ts";
import { sleep } from "@svc/util/sleep";
import { SvcError } from "../errors.ts";
import { type Logger, silentLogger } from "../log.ts";
import { WriteGate } from "./write_gate.ts";

/** An index and the embedder its vectors come from. */
export interface IndexGeneration {
  /** The index's name in its `VectorIndexSet`. */
  readonly name: string;
  /** The embedder its vectors come from. */
  readonly embedder: Embedder;
  /** The re-ranker that serves with this index's embedder, if any. */
  readonly reranker?: Reranker;
  /** The index, opened. */
  readonly store: VectorStore;
  /** Closes an embedder opened for this index alone, with the index (`retire`, `close`). */
  readonly closeEmbedder?: () => Promise<void>;
}

interface Generation extends IndexGeneration {
  /** Calls running on its store. */
  calls: number;
  /** Set once it is retired: new calls are refused. */
  closing: boolean;
  /** Resolves the wait for its calls to end. */
  idle?: () => void;
}

/** An embedder that only knows what an index records of it: it cannot embed (offline reindex). */
export function recordedEmbedder(embedding: IndexEmbedding): Embedder {
  return {
    name: "recorded",
    ...embedding,
    embed: () =>
      Promise.reject(
        new SvcError(
          "internal",
          `Cannot embed with "${embedding.model}": only its index is open, not the embedder`,
        ),
      ),
  };
}

function replaced(): SvcError {
  return new SvcError(
    "backend_unavailable",
    "Cannot search the vector index: it was replaced by an index of another embedder while " +
      "this call ran; try again",
  );
}

/** Sees the active index through a change of embedder; see the module documentation. */
export class IndexSwitch {
  #active: Generation;
  #target: Generation | undefined;
  #retired = new Set<Generation>();
  /** The generation whose embedder made a vector, and the text it came from. */
  #made = new WeakMap<object, Generation>();
  #texts = new WeakMap<object, string>();
  #gate = new WriteGate();
  #replaced: (() => void)[] = [];
  #changed: ((owner: string, namespace: string) => void)[] = [];
  #logger: Logger;
  /** Embeds with the active index's embedder. */
  readonly embedder: Embedder;
  /** The active index, searched by generation (see the module documentation). */
  readonly vectors: VectorStore;

  /** A switch serving from `active`, the index built with its embedder. */
  constructor(active: IndexGeneration, options: { logger?: Logger } = {}) {
    this.#active = { ...active, calls: 0, closing: false };
    this.#logger = options.logger ?? silentLogger;
    const current = () => this.#active;
    this.embedder = {
      get name() {
        return current().embedder.name;
      },
      get model() {
        return current().embedder.model;
      },
      get dimensions() {
        return current().embedder.dimensions;
      },
      embed: (texts, options) => this.#embed(texts, options),
    };
    this.vectors = this.#store();
    this.#follow(active.store);
  }

  /** Passes on what a store tells of other writers' changes, while it is the active one. */
  #follow(store: VectorStore): void {
    store.onChanged?.((owner, namespace) => {
      if (store === this.#active.store) this.#tell(this.#changed, owner, namespace);
    });
    store.onReplaced?.(() => {
      if (store === this.#active.store) this.#tell(this.#replaced);
    });
  }

  /** The index serving now. */
  get active(): IndexGeneration {
    return this.#active;
  }

  /** The index being built, if any. */
  get target(): IndexGeneration | undefined {
    return this.#target;
  }

  /** Starts writing to `target` too; it becomes active with `complete`. */
  build(target: IndexGeneration): void {
    if (this.#target) {
      throw new SvcError("conflict", "Cannot build a second index: one is being built already");
    }
    this.#target = { ...target, calls: 0, closing: false };
    this.#follow(target.store);
  }

  /**
   * Writes reindexed rows to the index being built, only those of memories the active index
   * still holds (so a memory erased meanwhile is not brought back); resolves to their number.
   */
  copy(rows: VectorRow[], options?: CallOptions): Promise<number> {
    return this.#gate.shared(async () => {
      const target = this.#target;
      if (!target) throw new SvcError("internal", "Cannot copy rows: no index is being built");
      const present = await this.#active.store.has(rows.map((row) => row.id), options);
      const kept = rows.filter((row) => present.has(row.id));
      if (kept.length > 0) await target.store.upsert(kept, options);
      return kept.length;
    });
  }

  /**
   * Makes the index being built active: with every write held back, runs `finalPass` (which
   * makes the new index hold what the old one does) and `activate` (which persists the change),
   * then switches. Resolves to the index that was active, still open: `retire` closes it.
   */
  complete(
    finalPass: (source: IndexGeneration, target: IndexGeneration) => Promise<void>,
    activate: () => Promise<void>,
  ): Promise<IndexGeneration> {
    return this.#gate.exclusive(async () => {
      const source = this.#active, target = this.#target;
      if (!target) throw new SvcError("internal", "Cannot switch: no index is being built");
      await finalPass(source, target);
      await activate();
      this.#active = target;
      this.#target = undefined;
      this.#retired.add(source);
      this.#tell(this.#replaced);
      return source;
    });
  }

  /**
   * Closes an index `complete` replaced: after `graceMs` (cut short by `signal`), once the calls
   * running on it end. Later searches with its vectors are refused (try again).
   */
  async retire(
    generation: IndexGeneration,
    { graceMs = 0, signal }: { graceMs?: number; signal?: AbortSignal } = {},
  ): Promise<void> {
    const retired = generation as Generation;
    if (!this.#retired.has(retired)) return;
    if (graceMs > 0) await sleep(graceMs, signal);
    retired.closing = true;
    if (retired.calls > 0) await new Promise<void>((resolve) => retired.idle = resolve);
    // Closed meanwhile with the switch?
    if (!this.#retired.delete(retired)) return;
    await closeGeneration(retired);
    // Again: what was read from the old index by calls that began before the switch.
    this.#tell(this.#replaced);
  }

  /** Calls each of `listeners` with `args`; one that throws is logged, and the rest still hear. */
  #tell<A extends unknown[]>(listeners: ((...args: A) => void)[], ...args: A): void {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (error) {
        this.#logger.error("a listener of the index switch failed", { error });
      }
    }
  }

  /** Closes every index it holds open. */
  async close(): Promise<void> {
    const all = [this.#active, this.#target, ...this.#retired].filter((g) => g !== undefined);
    this.#retired.clear();
    for (const generation of all) {
      generation.closing = true;
      await closeGeneration(generation);
    }
  }

  async #embed(texts: string[], options?: CallOptions): Promise<Float32Array[]> {
    const generation = this.#active;
    // Counted as a call: its embedder is closed with it once retired, not under a running call.
    const vectors = await counted(generation, () => generation.embedder.embed(texts, options));
    vectors.forEach((vector, i) => {
      this.#made.set(vector, generation);
      this.#texts.set(vector, texts[i]);
    });
    return vectors;
  }

  /** Runs `task` on a generation's store, refused once it is retired. */
  #use<T>(generation: Generation, task: (store: VectorStore) => Promise<T>): Promise<T> {
    if (generation.closing) return Promise.reject(replaced());
    return counted(generation, () => task(generation.store));
  }

  /**
   * `rows` as `generation`'s index takes them: vectors of another embedder replaced by the
   * embedding of their text. Strict (the active index): a row that cannot be is refused, a
   * client's vector passes as given. Otherwise (the index being built) such rows, and client
   * vectors of another size, are left out.
   */
  async #rowsFor(
    generation: Generation,
    rows: VectorRow[],
    strict: boolean,
    options?: CallOptions,
  ): Promise<VectorRow[]> {
    const kept: (VectorRow | undefined)[] = [];
    const again: { at: number; text: string }[] = [];
    for (const [at, row] of rows.entries()) {
      const made = this.#made.get(row.vector);
      if (made === generation) kept[at] = row;
      else if (made === undefined) {
        if (strict || row.vector.length === generation.store.dimensions) kept[at] = row;
      } else {
        const text = this.#texts.get(row.vector);
        if (text !== undefined) again.push({ at, text });
        else if (strict) {
          throw new SvcError(
            "backend_unavailable",
            "Cannot index the memory: the vector index changed while it was embedded; try again",
          );
        }
      }
    }
    if (again.length > 0) {
      const vectors = await generation.embedder.embed(again.map((a) => a.text), options);
      again.forEach(({ at }, i) => kept[at] = { ...rows[at], vector: vectors[i] });
    }
    return kept.filter((row) => row !== undefined);
  }

  #store(): VectorStore {
    const active = () => this.#active;
    return {
      get name() {
        return active().store.name;
      },
      get dimensions() {
        return active().store.dimensions;
      },
      upsert: (rows, options) => this.#upsert(rows, options),
      delete: (ids, options) => this.#delete(ids, options),
      search: (owner, namespace, vector, k, options): Promise<VectorHit[]> => {
        const generation = this.#made.get(vector) ?? active();
        return this.#use(generation, (s) => s.search(owner, namespace, vector, k, options));
      },
      has: (ids, options): Promise<Set<string>> => this.#use(active(), (s) => s.has(ids, options)),
      count: (filter, options): Promise<number> =>
        this.#use(active(), (s) => s.count(filter, options)),
      terms: (owner, namespace, options): Promise<TermsRow[]> =>
        this.#use(active(), (s) => s.terms(owner, namespace, options)),
      rowIds: (owner, namespace, options): Promise<string[]> =>
        this.#use(
          active(),
          async (s) =>
            s.rowIds
              ? await s.rowIds(owner, namespace, options)
              : (await s.terms(owner, namespace, options)).map((row) => row.id),
        ),
      namespaces: (owner, options): Promise<NamespaceCount[]> =>
        this.#use(active(), (s) => s.namespaces(owner, options)),
      partitions: (options): Promise<IndexPartition[]> =>
        this.#use(active(), (s) => {
          if (!s.partitions) {
            throw new SvcError("internal", `Cannot list the namespaces of the ${s.name} index`);
          }
          return s.partitions(options);
        }),
      onReplaced: (listener) => void this.#replaced.push(listener),
      onChanged: (listener) => void this.#changed.push(listener),
      revalidate: (owner, namespace, options): Promise<void> =>
        this.#use(active(), async (s) => await s.revalidate?.(owner, namespace, options)),
      close: () => this.close(),
    };
  }

  #upsert(rows: VectorRow[], options?: CallOptions): Promise<void> {
    return this.#gate.shared(async () => {
      const active = this.#active, target = this.#target;
      const own = await this.#rowsFor(active, rows, true, options);
      await this.#use(active, (s) => s.upsert(own, options));
      if (!target) return;
      try {
        const theirs = await this.#rowsFor(target, rows, false, options);
        if (theirs.length > 0) await target.store.upsert(theirs, options);
      } catch (error) {
        options?.signal?.throwIfAborted();
        this.#logger.warn(
          "a memory was not written to the index being built; the reindex adds it",
          { index: target.name, error },
        );
      }
    });
  }

  #delete(ids: string[], options?: CallOptions): Promise<void> {
    return this.#gate.shared(async () => {
      const active = this.#active, target = this.#target;
      await this.#use(active, (s) => s.delete(ids, options));
      if (!target) return;
      await target.store.delete(ids, options).catch((error) => {
        this.#logger.warn("a memory was not erased from the index being built; the reindex does", {
          index: target.name,
          error,
        });
      });
    });
  }
}

/** Runs `task` as one of the calls running on `generation`, which `retire` waits for. */
async function counted<T>(generation: Generation, task: () => Promise<T>): Promise<T> {
  generation.calls++;
  try {
    return await task();
  } finally {
    if (--generation.calls === 0) generation.idle?.();
  }
}

/** Closes a generation's index, then the embedder opened for it alone, even if the index fails. */
async function closeGeneration(generation: IndexGeneration): Promise<void> {
  try {
    await generation.store.close();
  } finally {
    await generation.closeEmbedder?.();
  }
}
