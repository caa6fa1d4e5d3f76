/**
 * How get, erase and update find a memory of an owner by id, in whichever of the owner's
 * namespaces holds it; erase and update also hear of one still being stored.
 */
import type { VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import type { JobQueue } from "../jobs/job_queue.ts";
import type { NamespaceIndex } from "../ranking/lexical_index.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { ReadOptions } from "./reader.ts";

/** How get, erase and update find a memory by id. */
export interface LocateOptions extends ReadOptions {
  /** Shown the memory's namespace once found, before any work; throws to refuse it. */
  allow?: (namespace: string) => void;
}

export interface MemoryLocatorDependencies {
  /** Remember jobs: a memory not found may still be on its way. */
  queue: JobQueue;
  vectors: VectorStore;
  lexicon: LexicalIndex;
  /** Unix milliseconds. */
  now: () => number;
}

/** Finds memories by id: `locate` for reading, `locateStored` for an erase or update. */
export function createMemoryLocator({ queue, vectors, lexicon, now }: MemoryLocatorDependencies) {
  /**
   * Where the owner's memory `id` is, in one pass over the owner's namespaces: `found` when it
   * is visible (or, with `expired`, has expired and awaits the sweep); else `replaced`, the
   * namespace whose index says an update replaced it.
   */
  async function scan(owner: string, id: string, expired = false) {
    let replaced: { namespace: string; index: NamespaceIndex } | undefined;
    for (const { namespace } of await vectors.namespaces(owner)) {
      const index = await lexicon.namespace(owner, namespace);
      const entry = index.entry(id);
      const shown = expired ? index.replacedBy(id) === undefined : !index.hidden(id, now());
      if (entry && shown) return { found: { namespace, index, entry } };
      if (!replaced && index.replacedBy(id) !== undefined) replaced = { namespace, index };
    }
    return { replaced };
  }

  /**
   * A visible memory of the owner, wherever it is: its namespace, index and entry. `allow`
   * is shown the namespace once found, and may refuse it by throwing.
   */
  async function locate(owner: string, id: string, allow?: (namespace: string) => void) {
    const { found } = await scan(owner, id);
    if (found) allow?.(found.namespace);
    return found ?? null;
  }

  /**
   * `locate` for an erase or update (`doing`): a memory not found whose remember job is still
   * on its way is a conflict that says to wait (an erase or update now would find nothing, and
   * it would land after); one whose job ended meanwhile is looked for again. A memory an update
   * replaced is found while that update is on its way (an erase then takes both), and once the
   * update erased it, a conflict names its current version. An erase also finds a memory that
   * expired and awaits the sweep: it is erased now, with its receipt.
   */
  async function locateStored(
    owner: string,
    id: string,
    doing: "erase" | "update",
    allow?: (namespace: string) => void,
  ) {
    const { found, replaced } = await scan(owner, id, doing === "erase");
    if (found) allow?.(found.namespace);
    const stored = found ?? (replaced && replacedOne(replaced, id, doing, allow));
    if (stored) return stored;
    const job = await queue.get(id);
    if (job?.owner !== owner || job.status === "failed") return null;
    if (job.status === "done") return job.memory_id === id ? await locate(owner, id, allow) : null;
    allow?.(job.namespace);
    throw new SvcError(
      "conflict",
      `Cannot ${doing} memory ${id} yet: it is still being stored; try again once it is`,
    );
  }

  /**
   * The memory `id` an update replaced, in `namespace`: itself while the update is on its way;
   * once the update erased it, a conflict naming its current version.
   */
  function replacedOne(
    { namespace, index }: { namespace: string; index: NamespaceIndex },
    id: string,
    doing: string,
    allow?: (namespace: string) => void,
  ) {
    allow?.(namespace);
    const entry = index.entry(id);
    if (entry) return { namespace, index, entry };
    let current = index.replacedBy(id)!;
    for (let next = index.replacedBy(current); next; next = index.replacedBy(next)) current = next;
    throw new SvcError(
      "conflict",
      `Cannot ${doing} memory ${id}: an update replaced it, and its current version is ${current}`,
      { details: { reason: "replaced", current } },
    );
  }

  return { locate, locateStored };
}

export type MemoryLocator = ReturnType<typeof createMemoryLocator>;
