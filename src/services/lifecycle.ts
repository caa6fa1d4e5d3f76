/**
 * The lifecycle of memories after remember: list and get (from the namespace's catalog, see
 * `lexical_index.ts`, each shown as `memory_view.ts` says), erase (as `eraser.ts` does it; a
 * signed receipt per memory), update (a new version that replaces the old one once it is
 * indexed) and expiry (a sweep erases what expired). Callers pass values that are already
 * validated.
 */
import type { BlobStore, Cipher, NamespaceCount, VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { textHeldBy } from "../pipeline/remember.ts";
import type { JobQueue, PublicJob } from "../jobs/job_queue.ts";
import type { IndexedMemory } from "../jobs/worker.ts";
import type { Logger } from "../log.ts";
import { type AttributeSeal, encodePayload, type Provenance } from "../pipeline/attributes.ts";
import type { NamespaceIndex } from "../ranking/lexical_index.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";
import { createEraser } from "./eraser.ts";
import type { EraseReceipt, RelayerIdentity } from "./receipts.ts";
import { MemoryUpdateClaims, type UpdateClaims } from "./update_claims.ts";
import type { MemoryReader, ReadOptions } from "./reader.ts";
import {
  afterOf,
  attributesOf,
  catalogFilter,
  cursorAfter,
  type Memory,
  type MemoryFilter,
  type MemoryPage,
  memoryViewer,
} from "./memory_view.ts";

export interface LifecycleDependencies {
  queue: JobQueue;
  cipher: Cipher;
  blobs: BlobStore;
  vectors: VectorStore;
  lexicon: LexicalIndex;
  hasher: TermHasher;
  attributeSeal: AttributeSeal;
  reader: MemoryReader;
  records: LifecycleRecordStore;
  /** Which update holds the memory it replaces (default: in this process's memory). */
  updateClaims?: UpdateClaims;
  /** Signs erase receipts. */
  identity: RelayerIdentity;
  logger: Logger;
  /** Unix milliseconds (default `Date.now`). */
  now?: () => number;
}

/** What erasing a namespace answers: one receipt per erased memory. */
export interface NamespaceErase {
  /** The erased namespace. */
  namespace: string;
  /** The owner's address. */
  owner: string;
  /** How many memories were erased. */
  erased: number;
  /** Their receipts. */
  receipts: EraseReceipt[];
}

/** How get, erase and update find a memory by id. */
export interface LocateOptions extends ReadOptions {
  /** Shown the memory's namespace once found, before any work; throws to refuse it. */
  allow?: (namespace: string) => void;
}

/**
 * Batches one expiry sweep erases at most: a schedule that keeps filling faster than a sweep
 * empties it still lets the sweep end (the next goes on a minute later).
 */
const MAX_SWEEP_BATCHES = 200;
/** Expired memories awaiting the sweep that `namespaces` leaves out of its counts, at most. */
const EXPIRED_UNCOUNTED = 1_000;

export function createLifecycleService(deps: LifecycleDependencies) {
  const { queue, cipher, vectors, lexicon, hasher, attributeSeal, reader, records, logger } = deps;
  const now = deps.now ?? Date.now;
  /** Which update holds each memory being replaced (see `vet`). */
  const updating = deps.updateClaims ?? new MemoryUpdateClaims();
  const { eraseUnindexed, eraseEntries, eraseAsked, eraseBlobs, eraseLeft } = createEraser({
    ...deps,
    updating,
    now,
  });
  /** The erases by id under way, by owner and id: a second asking meanwhile shares the first. */
  const erasing = new Map<string, Promise<EraseReceipt>>();
  /** The expiry sweep under way; `stopped` once the relayer closes (no batch starts after). */
  let sweeping: Promise<number> | undefined;
  let stopped = false;

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
   * it would land after); one whose job ended meanwhile is looked for again.
   */
  async function locateStored(
    owner: string,
    id: string,
    doing: string,
    allow?: (namespace: string) => void,
  ) {
    const found = await locate(owner, id, allow);
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

  const memoryOf = memoryViewer(attributeSeal, reader);

  /** Erases the expired memories (see `sweep`). */
  async function sweepAll(batch: number): Promise<number> {
    let erased = 0;
    for (let round = 0; round < MAX_SWEEP_BATCHES && !stopped; round++) {
      const due = await records.due(now(), batch);
      const groups = Map.groupBy(due, ({ owner, namespace }) => JSON.stringify([owner, namespace]));
      for (const expiries of groups.values()) {
        const { owner, namespace } = expiries[0];
        const held = async () => {
          const index: NamespaceIndex = await lexicon.namespace(owner, namespace);
          return expiries.flatMap(({ memoryId }) => index.entry(memoryId) ?? []);
        };
        let entries = await held();
        if (entries.length < expiries.length && vectors.revalidate) {
          // Another relayer's memory this one has not heard of yet is not gone: look again.
          await vectors.revalidate(owner, namespace);
          entries = await held();
        }
        erased += (await eraseEntries(owner, namespace, entries)).length;
        const found = new Set(entries.map((entry) => entry.id));
        erased += await eraseUnindexed(owner, expiries.filter((e) => !found.has(e.memoryId)));
      }
      if (due.length < batch) break;
    }
    if (erased > 0) logger.info("expired memories erased", { count: erased });
    return erased;
  }

  return {
    /**
     * The owner's namespaces holding memories, with their counts, sorted by name; the memories
     * expired and not yet swept are not counted.
     */
    async namespaces(owner: string, options: ReadOptions = {}): Promise<NamespaceCount[]> {
      const counts = await vectors.namespaces(owner, { signal: options.signal });
      const due = (await records.due(now(), EXPIRED_UNCOUNTED)).filter((e) => e.owner === owner);
      if (due.length === 0) return counts;
      const expired = new Map<string, number>();
      for (const [namespace, expiries] of Map.groupBy(due, (e) => e.namespace)) {
        const index = await lexicon.namespace(owner, namespace);
        expired.set(namespace, expiries.filter((e) => index.entry(e.memoryId)).length);
      }
      return counts
        .map(({ namespace, count }) => ({
          namespace,
          count: count - (expired.get(namespace) ?? 0),
        }))
        .filter(({ count }) => count > 0);
    },

    /** A page of a namespace's memories, newest first. */
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
      const more = entries.length > page.limit;
      const shown = entries.slice(0, page.limit);
      return {
        memories: await Promise.all(
          shown.map((entry) => memoryOf(owner, namespace, entry, options)),
        ),
        next_cursor: more ? cursorAfter(shown.at(-1)!.id) : null,
      };
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

    /** Erases a memory of the owner; `null` when it has none of this id. */
    async erase(
      owner: string,
      id: string,
      options: LocateOptions = {},
    ): Promise<EraseReceipt | null> {
      const found = await locateStored(owner, id, "erase", options.allow);
      if (!found) return null;
      const key = JSON.stringify([owner, id]);
      const under = erasing.get(key);
      if (under) return await under;
      const erased = eraseAsked(owner, found.namespace, [found.entry], options)
        .then(([receipt]) => receipt)
        .finally(() => erasing.delete(key));
      erasing.set(key, erased);
      return await erased;
    },

    /**
     * Erases memories that only a blob holds, no index row (restore's copies of a text the
     * namespace holds again): keys, records and blobs, a receipt each.
     */
    eraseBlobs,

    /**
     * Erases every memory of a namespace (expired and replaced ones included), and what only a
     * blob of it holds (its index rows lost): no restore brings any back.
     */
    async eraseNamespace(
      owner: string,
      namespace: string,
      options: ReadOptions = {},
    ): Promise<NamespaceErase> {
      // A cipher that cannot erase for this caller refuses before anything is recorded.
      await cipher.erase(owner, [], options);
      // Remembered before the erase and not stored yet: recorded erased first, so that none
      // lands after it (the worker refuses them, or erases one it was already storing).
      const pending: string[] = [];
      for await (const job of queue.active()) {
        if (job.owner === owner && job.namespace === namespace) pending.push(job.job_id);
      }
      await records.markErased(owner, pending.map((memoryId) => ({ memoryId })), now());
      const entries = (await lexicon.namespace(owner, namespace)).entries();
      const receipts: EraseReceipt[] = [];
      for (let i = 0; i < entries.length; i += 500) {
        // What an earlier batch erased (an update that landed meanwhile) is not erased again.
        const index = await lexicon.namespace(owner, namespace);
        const batch = entries.slice(i, i + 500).filter(({ id }) => index.entry(id));
        receipts.push(...await eraseAsked(owner, namespace, batch, options));
      }
      receipts.push(...await eraseLeft(owner, namespace, options));
      return { namespace, owner, erased: receipts.length, receipts };
    },

    /**
     * Queues a new version of a memory (its text; its tags, thread and expiry unless given);
     * it replaces the old one once indexed. `null` when the owner has no memory of this id. The
     * new version's provenance is `rememberedBy`: the key that updated it, not the original's.
     */
    async update(
      owner: string,
      id: string,
      change: { text: string; tags?: string[]; thread?: string; expiresAt?: number },
      options: Pick<LocateOptions, "allow"> & { rememberedBy?: Provenance } = {},
    ): Promise<(PublicJob & { supersedes: string }) | null> {
      const found = await locateStored(owner, id, "update", options.allow);
      if (!found) return null;
      const { namespace, entry } = found;
      const old = await attributesOf(attributeSeal, owner, namespace, entry);
      const tags = change.tags ?? old.tags;
      const thread = change.thread ?? old.thread;
      const index = await lexicon.namespace(owner, namespace);
      const holder = index.duplicateOf(await hasher.digest(owner, change.text, thread), now());
      if (holder !== undefined && holder !== id) throw new SvcError("conflict", textHeldBy(holder));
      const text = encodePayload(change.text, {
        tags: tags.length ? tags : undefined,
        thread,
        expiresAt: change.expiresAt ?? entry.info?.expiresAt,
        replaces: id,
        firstCreatedAt: entry.info?.firstCreatedAt ?? entry.createdAt,
        rememberedBy: options.rememberedBy,
      });
      const [job] = await queue.accept([{ owner, namespace, text }]);
      return { ...job, supersedes: id };
    },

    /**
     * What the worker asks before storing memories: why each may not be stored, or
     * `undefined`. An update is refused once the memory it replaces was erased, or updated by
     * another; a job resumed after a crash whose memory is indexed already goes on. Each update
     * claims the memory it replaces before the erases are read: an erase is recorded before it
     * revokes the claims, so of an update and an erase one hears of the other.
     */
    async vet(memories: IndexedMemory[]): Promise<(string | undefined)[]> {
      const claimed = await Promise.all(
        memories.map(({ memoryId, attributes: { replaces } }) =>
          replaces === undefined || updating.claim(replaces, memoryId, now())
        ),
      );
      const erased = new Set<string>();
      for (const [owner, mine] of Map.groupBy(memories, (memory) => memory.owner)) {
        // The memories an update replaces too: erased by another relayer's update, they are
        // recorded before this relayer's view of the namespace hears of it.
        const ids = mine.flatMap(({ memoryId, attributes: { replaces } }) =>
          replaces === undefined ? [memoryId] : [memoryId, replaces]
        );
        for (const id of await records.erased(owner, ids)) erased.add(id);
      }
      const refusal = async (
        { memoryId, owner, namespace, attributes: { replaces } }: IndexedMemory,
        claimed: boolean,
      ) => {
        const index = await lexicon.namespace(owner, namespace);
        if (index.entry(memoryId)) return undefined;
        if (erased.has(memoryId)) return `Cannot store memory ${memoryId}: it was erased`;
        if (replaces === undefined) return undefined;
        return !claimed || erased.has(replaces) || index.replacedBy(replaces) !== undefined ||
            !index.entry(replaces)
          ? `Cannot update memory ${replaces}: it was erased or updated meanwhile`
          : undefined;
      };
      return await Promise.all(memories.map(async (memory, i) => {
        const refused = await refusal(memory, claimed[i]);
        const { memoryId, attributes: { replaces } } = memory;
        if (refused && claimed[i] && replaces !== undefined) {
          await updating.release(replaces, memoryId);
        }
        return refused;
      }));
    },

    /** Hears of memories whose jobs failed for good: the memories their updates claimed are free. */
    async failed(memories: IndexedMemory[]): Promise<void> {
      for (const { memoryId, attributes: { replaces } } of memories) {
        if (replaces !== undefined) await updating.release(replaces, memoryId);
      }
    },

    /**
     * What the worker calls once memories are indexed: their expiries are scheduled and the
     * memories they replace erased. An update whose claim an erase of its memory revoked is
     * erased instead (and refused), and one resumed after it erased its memory stays. A memory
     * recorded erased while it was stored (its namespace erased) is erased: resolves to why each
     * memory did not stay, or `undefined`.
     */
    async indexed(memories: IndexedMemory[]): Promise<(string | undefined)[]> {
      const why = new Map<string, string>();
      // Recorded erased while it was being stored (its namespace erased): erased as it lands.
      for (const [owner, mine] of Map.groupBy(memories, (memory) => memory.owner)) {
        const erased = await records.erased(owner, mine.map(({ memoryId }) => memoryId));
        for (const { memoryId, namespace } of mine.filter((m) => erased.has(m.memoryId))) {
          const entry = (await lexicon.namespace(owner, namespace)).entry(memoryId);
          if (entry) await eraseAsked(owner, namespace, [entry], {});
          why.set(memoryId, `Cannot store memory ${memoryId}: it was erased`);
        }
      }
      const landed = memories.filter(({ memoryId }) => !why.has(memoryId));
      await records.schedule(
        landed.flatMap(({ memoryId, owner, namespace, attributes }) =>
          attributes.expiresAt === undefined
            ? []
            : [{ memoryId, owner, namespace, expiresAt: attributes.expiresAt }]
        ),
      );
      for (const { memoryId, owner, namespace, attributes: { replaces } } of landed) {
        if (replaces === undefined) continue;
        const index = await lexicon.namespace(owner, namespace);
        const ours = await updating.holds(replaces, memoryId, now());
        if (!ours && (await records.erased(owner, [replaces])).size > 0) {
          const fresh = index.entry(memoryId);
          if (fresh) await eraseEntries(owner, namespace, [fresh]);
          why.set(memoryId, `Cannot update memory ${replaces}: it was erased meanwhile`);
        } else {
          const entry = index.entry(replaces);
          if (entry) await eraseEntries(owner, namespace, [entry]);
        }
        // Only once the replaced memory is recorded erased: another update vetted meanwhile is
        // refused by the claim, and one vetted after by the record.
        await updating.release(replaces, memoryId);
      }
      return memories.map(({ memoryId }) => why.get(memoryId));
    },

    /**
     * Erases the memories expired at `now`, `batch` at a time until none is left (or
     * `MAX_SWEEP_BATCHES` have run); resolves to how many. A sweep asked for while one runs
     * shares it.
     */
    sweep(batch = 500): Promise<number> {
      sweeping ??= sweepAll(batch).finally(() => sweeping = undefined);
      return sweeping;
    },

    /** Lets the sweep under way finish its batch, and starts no more; resolves once it has. */
    async stopSweeping(): Promise<void> {
      stopped = true;
      await sweeping?.catch(() => {});
    },
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
