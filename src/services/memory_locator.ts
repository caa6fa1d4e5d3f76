/**
 * How get, erase and update find a memory of an owner by id, in whichever of the owner's
 * namespaces holds it; erase and update also hear of one still being stored.
 */
import type { VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import type { JobQueue } from "../jobs/job_queue.ts";
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
   * A visible memory of the owner, wherever it is: its namespace, index and entry. `allow`
   * is shown the namespace once found, and may refuse it by throwing.
   */
  async function locate(owner: string, id: string, allow?: (namespace: string) => void) {
    for (const { namespace } of await vectors.namespaces(owner)) {
      const index = await lexicon.namespace(owner, namespace);
      const entry = index.entry(id);
      if (entry && !index.hidden(id, now())) {
        allow?.(namespace);
        return { namespace, index, entry };
      }
    }
    return null;
  }

  /**
   * `locate` for an erase or update (`doing`): a memory not found whose remember job is still
   * on its way is a conflict that says to wait (an erase or update now would find nothing, and
   * it would land after); one whose job ended meanwhile is looked for again. A memory an update
   * replaced is found while that update is on its way (an erase then takes both), and once the
   * update erased it, a conflict names its current version.
   */
  async function locateStored(
    owner: string,
    id: string,
    doing: string,
    allow?: (namespace: string) => void,
  ) {
    const found = await locate(owner, id, allow) ?? await replaced(owner, id, doing, allow);
    if (found) return found;
    const job = await queue.get(id);
    if (job?.owner !== owner || job.status === "failed") return null;
    if (job.status === "done") return job.memory_id === id ? await locate(owner, id, allow) : null;
    allow?.(job.namespace);
    throw new SvcError(
      "conflict",
      `Cannot ${doing} memory ${id} yet: it is still being stored; try again once it is`,
    );
  }

  /** The memory `id` as an update replaced it (see `locateStored`); `null` when none did. */
  async function replaced(
    owner: string,
    id: string,
    doing: string,
    allow?: (namespace: string) => void,
  ) {
    for (const { namespace } of await vectors.namespaces(owner)) {
      const index = await lexicon.namespace(owner, namespace);
      let current = index.replacedBy(id);
      if (current === undefined) continue;
      allow?.(namespace);
      const entry = index.entry(id);
      if (entry) return { namespace, index, entry };
      for (let next = index.replacedBy(current); next; next = index.replacedBy(next)) {
        current = next;
      }
      throw new SvcError(
        "conflict",
        `Cannot ${doing} memory ${id}: an update replaced it, and its current version is ${current}`,
        { details: { reason: "replaced", current } },
      );
    }
    return null;
  }

  return { locate, locateStored };
}

export type MemoryLocator = ReturnType<typeof createMemoryLocator>;
