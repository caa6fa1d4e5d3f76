/**
 * The reads of an owner's memories, from the namespaces' catalogs (see `lexical_index.ts`), each
 * shown as `memory_view.ts` says: the namespaces with their counts, a page of a namespace, what
 * an export holds, and one memory by id.
 */
import type { NamespaceCount, VectorStore } from "../backends/types.ts";
import type { AttributeSeal } from "../pipeline/attributes.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import { readWithin, utf8Length } from "../text_limits.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";
import type { LocateOptions, MemoryLocator } from "./memory_locator.ts";
import type { MemoryReader, ReadOptions } from "./reader.ts";
import {
  afterOf,
  catalogFilter,
  cursorAfter,
  type Memory,
  type MemoryFilter,
  type MemoryPage,
  memoryViewer,
} from "./memory_view.ts";

/** A namespace's count, and when its newest visible memory was stored. */
export interface NamespaceActivity extends NamespaceCount {
  /** Unix milliseconds; 0 when no memory of it is visible any more. */
  updatedAt: number;
}

/** Expired memories awaiting the sweep that `namespaces` leaves out of its counts, at most. */
const EXPIRED_UNCOUNTED = 1_000;
/** Namespaces read at once for their newest memory where the store does not tell it. */
const ACTIVITY_READS = 8;

export interface MemoryCatalogDependencies {
  vectors: VectorStore;
  lexicon: LexicalIndex;
  hasher: TermHasher;
  attributeSeal: AttributeSeal;
  reader: MemoryReader;
  /** The expiry schedule: what expired and awaits the sweep is not counted. */
  records: LifecycleRecordStore;
  /** Finds a memory by id for `get`. */
  locate: MemoryLocator["locate"];
  /** Unix milliseconds. */
  now: () => number;
}

/** Lists and gets an owner's memories (see the module documentation). */
export function createMemoryCatalog(deps: MemoryCatalogDependencies) {
  const { vectors, lexicon, hasher, records, locate, now } = deps;
  const memoryOf = memoryViewer(deps.attributeSeal, deps.reader);

  /**
   * The owner's namespaces holding memories, with their counts, sorted by name; the memories
   * expired and not yet swept are not counted.
   */
  async function namespaces(
    owner: string,
    options: ReadOptions & { newest?: boolean } = {},
  ): Promise<NamespaceCount[]> {
    const counts = await vectors.namespaces(owner, {
      signal: options.signal,
      newest: options.newest,
    });
    const dueAll = await records.due(now(), EXPIRED_UNCOUNTED);
    const due = dueAll.filter((e) => e.owner === owner);
    const expired = new Map<string, number>();
    for (const [namespace, expiries] of Map.groupBy(due, (e) => e.namespace)) {
      const index = await lexicon.namespace(owner, namespace);
      expired.set(namespace, expiries.filter((e) => index.entry(e.memoryId)).length);
    }
    // The store's newest time may be an expired memory's: it is kept only where none awaits the
    // sweep, as far as the expiries read tell (past their bound, nowhere).
    const sure = dueAll.length < EXPIRED_UNCOUNTED;
    return counts
      .map(({ namespace, count, newest }) => {
        const gone = expired.get(namespace) ?? 0;
        const kept = sure && !gone && newest !== undefined;
        return { namespace, count: count - gone, ...(kept && { newest }) };
      })
      .filter(({ count }) => count > 0);
  }

  return {
    namespaces,

    /**
     * `namespaces`, each with when its newest visible memory was stored (Unix milliseconds; 0
     * when none is visible any more), sorted by name.
     */
    async namespaceActivity(
      owner: string,
      options: ReadOptions = {},
    ): Promise<NamespaceActivity[]> {
      const counts = await namespaces(owner, { ...options, newest: true });
      const activity: NamespaceActivity[] = [];
      // The store's newest time, else the newest visible memory's, a few namespaces at a time.
      for (let at = 0; at < counts.length; at += ACTIVITY_READS) {
        activity.push(
          ...await Promise.all(
            counts.slice(at, at + ACTIVITY_READS).map(
              async ({ namespace, count, newest }) => {
                newest ??= (await lexicon.namespace(owner, namespace)).list({}, now(), 1)[0]
                  ?.createdAt;
                return { namespace, count, updatedAt: newest ?? 0 };
              },
            ),
          ),
        );
      }
      return activity;
    },

    /**
     * A page of a namespace's memories, newest first; it ends early where its texts pass
     * `MAX_ANSWER_TEXT_BYTES`.
     */
    async list(
      owner: string,
      namespace: string,
      page: { limit: number; cursor?: string; filter: MemoryFilter },
      options: ReadOptions = {},
    ): Promise<MemoryPage> {
      const after = page.cursor === undefined ? undefined : afterOf(page.cursor);
      const index = await lexicon.namespace(owner, namespace);
      const filter = await catalogFilter(hasher, owner, page.filter);
      const entries = index.list(filter, now(), page.limit + 1, after);
      const memories = await readWithin(
        entries.slice(0, page.limit),
        (entry) => memoryOf(owner, namespace, entry, options),
        ({ text }) => utf8Length(text ?? ""),
      );
      const more = entries.length > memories.length;
      return { memories, next_cursor: more ? cursorAfter(memories.at(-1)!.id) : null };
    },

    /** The ids of a namespace's visible memories, oldest first: what an export holds. */
    async ids(owner: string, namespace: string): Promise<string[]> {
      const index = await lexicon.namespace(owner, namespace);
      return index.entries().flatMap(({ id }) => index.hidden(id, now()) ? [] : [id]);
    },

    /** The memories of `ids` still visible in the namespace, in the order given. */
    async memories(owner: string, namespace: string, ids: string[], options: ReadOptions = {}) {
      const index = await lexicon.namespace(owner, namespace);
      const entries = ids.flatMap((id) => index.hidden(id, now()) ? [] : [index.entry(id)!]);
      return await Promise.all(entries.map((entry) => memoryOf(owner, namespace, entry, options)));
    },

    /** A memory of the owner, or `null` when it has none of this id. */
    async get(owner: string, id: string, options: LocateOptions = {}): Promise<Memory | null> {
      const found = await locate(owner, id, options.allow);
      return found && await memoryOf(owner, found.namespace, found.entry, options);
    },
  };
}
