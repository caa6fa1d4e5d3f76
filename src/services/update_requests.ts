/**
 * Updates as owners ask: a new version of a memory, queued as a remember job, that replaces the
 * old one once indexed (`remember/landing.ts` erases it).
 */
import { SvcError } from "../errors.ts";
import type { JobQueue, PublicJob } from "../jobs/job_queue.ts";
import { type AttributeSeal, encodePayload, type Provenance } from "../pipeline/attributes.ts";
import { textHeldBy } from "../pipeline/remember.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { LocateOptions, MemoryLocator } from "./memory_locator.ts";
import { attributesOf } from "./memory_view.ts";

export interface UpdateRequestDependencies {
  /** Takes the new version as a remember job. */
  queue: JobQueue;
  lexicon: LexicalIndex;
  hasher: TermHasher;
  attributeSeal: AttributeSeal;
  /** Finds the memory an update is for. */
  locateStored: MemoryLocator["locateStored"];
  /** Unix milliseconds. */
  now: () => number;
  /** Throws 409 when a namespace is operator-blind. */
  refuseBlind?: (owner: string, namespaces: string[]) => Promise<void>;
}

/** Queues updates of memories (see the module documentation). */
export function createUpdateRequests(deps: UpdateRequestDependencies) {
  const { queue, lexicon, hasher, attributeSeal, locateStored, now } = deps;

  return {
    /**
     * Queues a new version of a memory (its text; its tags, thread and expiry unless given, an
     * expiry of `null` none);
     * it replaces the old one once indexed. `null` when the owner has no memory of this id. The
     * new version's provenance is `rememberedBy`: the key that updated it, not the original's.
     */
    async update(
      owner: string,
      id: string,
      change: { text: string; tags?: string[]; thread?: string; expiresAt?: number | null },
      options: Pick<LocateOptions, "allow"> & { rememberedBy?: Provenance } = {},
    ): Promise<(PublicJob & { supersedes: string }) | null> {
      const found = await locateStored(owner, id, "update", options.allow);
      if (!found) return null;
      const { namespace, entry } = found;
      await deps.refuseBlind?.(owner, [namespace]);
      const old = await attributesOf(attributeSeal, owner, namespace, entry);
      const tags = change.tags ?? old.tags;
      const thread = change.thread ?? old.thread;
      const index = await lexicon.namespace(owner, namespace);
      const holder = index.duplicateOf(await hasher.digest(owner, change.text, thread), now());
      if (holder !== undefined && holder !== id) throw new SvcError("conflict", textHeldBy(holder));
      const text = encodePayload(change.text, {
        tags: tags.length ? tags : undefined,
        thread,
        // `null`: it no longer expires.
        expiresAt: change.expiresAt === null
          ? undefined
          : change.expiresAt ?? entry.info?.expiresAt,
        replaces: id,
        firstCreatedAt: entry.info?.firstCreatedAt ?? entry.createdAt,
        rememberedBy: options.rememberedBy,
      });
      const [job] = await queue.accept([{ owner, namespace, text }]);
      return { ...job, supersedes: id };
    },
  };
}
