/**
 * The memory use-cases of the HTTP routes (the CLI and the MCP tools reach them through those
 * routes): remember (queued for the job worker), recall (`recall.ts`), manual remember and recall
 * (`manual_memories.ts`), restore (`restore.ts`). Writing a memory goes through the remember
 * pipeline. Callers pass values that are already validated.
 */
import type { PendingClaim } from "../auth/replay_guard.ts";
import type {
  BlobEntry,
  BlobStore,
  DecryptCredentials,
  Embedder,
  Reranker,
  VectorHit,
  VectorStore,
} from "../backends/types.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { JobQueue, JobRecord, PublicJob } from "../jobs/job_queue.ts";
import { publicJob } from "../jobs/job_queue.ts";
import type { Logger } from "../log.ts";
import { MEMORY_ID } from "../ids.ts";
import type { RememberPipeline } from "../pipeline/remember.ts";
import {
  type AttributeSeal,
  encodePayload,
  type MemoryAttributes,
  type Provenance,
} from "../pipeline/attributes.ts";
import { restoreNamespace, type RestoreOptions } from "./restore.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";
import { createManualMemories } from "./manual_memories.ts";
import type { MemoryReader } from "./reader.ts";
import { createRecall } from "./recall.ts";
import type { RecallExplanation } from "./recall_explanation.ts";
import type { RecallStage, UnknownJob } from "./memory_answers.ts";

export type { RecallExplanation };
export type * from "./memory_answers.ts";

export interface MemoryServiceDependencies {
  /** Where remember jobs wait for the worker. */
  queue: JobQueue;
  /** Stores and indexes manual and restored memories. */
  pipeline: RememberPipeline;
  /** Recall embeds its query. */
  embedder: Embedder;
  /** Recall and restore read memories through it. */
  reader: MemoryReader;
  blobs: BlobStore;
  vectors: VectorStore;
  /**
   * The re-ranker that re-scores recall's candidates on their plaintext, read at each recall
   * (while the embedder changes, the serving index's); without one, recall ranks without it.
   */
  reranker?: () => Reranker | undefined;
  /** Keyed term hashes of memory texts, and the BM25 index over them. */
  hasher: TermHasher;
  lexicon: LexicalIndex;
  /** Opens the tags sealed in a memory's row. */
  attributeSeal: AttributeSeal;
  /** Which memories were erased: restore skips them. */
  records: LifecycleRecordStore;
  /**
   * Erases memories only a blob holds (keys, records, blobs): restore's copies of a text the
   * namespace holds again, which an erase of that text would otherwise not reach.
   */
  eraseBlobs: (
    owner: string,
    namespace: string,
    left: BlobEntry[],
    options?: MemoryCallOptions,
  ) => Promise<unknown>;
  logger: Logger;
  /** Unix milliseconds (default `Date.now`). */
  now?: () => number;
  /** Hears how long each stage of a recall took, in seconds (the relayer's metrics). */
  observeStage?: (stage: RecallStage, seconds: number) => void;
  /**
   * Throws 409 when one of the owner's namespaces is operator-blind (`BlindLog.refuseBlind`):
   * the relayer neither takes nor reads its text. Remember, import, analyze, manual remember and
   * ask ask it first.
   */
  refuseBlind?: (owner: string, namespaces: string[]) => Promise<void>;
}

/** What a memory call may carry besides its arguments. */
export interface MemoryCallOptions {
  /** The caller's key, for ciphers that decrypt with it (Seal). */
  credentials?: DecryptCredentials;
  /** Aborts the call's backend work: the request's signal, which aborts when the client leaves. */
  signal?: AbortSignal;
}

/** A text to remember in a namespace, with its attributes. */
export interface RememberItem {
  text: string;
  namespace: string;
  attributes?: MemoryAttributes;
  /**
   * Who stores it (the caller's key address and label; `at`, when given, for a memory brought
   * from elsewhere, as an import does); kept sealed with the memory, shown as `remembered_by`.
   */
  rememberedBy?: Provenance;
}

/**
 * The memory service: remember and the reads around it (visibility, texts, duplicates, jobs),
 * recall, the client-encrypted memories' use-cases, and restore (see the module documentation).
 */
export function createMemoryService(deps: MemoryServiceDependencies) {
  const { queue, reader, hasher, lexicon } = deps;
  const now = deps.now ?? Date.now;

  /**
   * Accepts remember jobs; resolves once they are durably queued, with `claim` (the replay
   * claim of the request, when the route writes it) durable too.
   */
  async function remember(owner: string, items: RememberItem[], claim?: PendingClaim) {
    await deps.refuseBlind?.(owner, [...new Set(items.map((item) => item.namespace))]);
    const inputs = items.map(({ text, namespace, attributes, rememberedBy }) => ({
      owner,
      namespace,
      text: encodePayload(text, rememberedBy ? { ...attributes, rememberedBy } : attributes),
    }));
    return await queue.accept(inputs, { claim });
  }

  /**
   * For each item, the id of a memory its namespace already holds with the same text (after
   * normalising case and white space) for at least as long, or `undefined`.
   */
  async function duplicates(owner: string, items: RememberItem[]): Promise<(string | undefined)[]> {
    return await Promise.all(items.map(async ({ text, namespace, attributes }) => {
      if (attributes?.replaces !== undefined) return undefined;
      const index = await lexicon.namespace(owner, namespace);
      const digest = await hasher.digest(owner, text, attributes?.thread);
      const held = index.duplicateOf(digest, now());
      const original = held && index.outlives(held, attributes?.expiresAt) ? held : undefined;
      if (original === undefined) lexicon.assertRoom(index);
      return original;
    }));
  }

  return {
    ...createRecall({ ...deps, now }),
    ...createManualMemories({ ...deps, now }),

    remember,

    /** Throws 409 when one of the owner's `namespaces` is operator-blind (see the dependency). */
    refuseBlind: (owner: string, namespaces: string[]) =>
      deps.refuseBlind?.(owner, namespaces) ?? Promise.resolve(),

    /**
     * What each item is: a duplicate (the id of the memory of its namespace holding its text) or
     * new (the job accepted for it, durably queued with `claim`, as `remember` does). The one
     * place a text already remembered is told apart from a new one.
     */
    async accept(owner: string, items: RememberItem[], claim?: PendingClaim): Promise<Accepted[]> {
      await deps.refuseBlind?.(owner, [...new Set(items.map((item) => item.namespace))]);
      const originals = await duplicates(owner, items);
      const fresh = items.filter((_, i) => !originals[i]);
      const jobs = fresh.length > 0 ? (await remember(owner, fresh, claim)).values() : null;
      return originals.map((original) =>
        original ? { duplicate_of: original } : { job: jobs!.next().value! }
      );
    },

    /** Whether a memory of the namespace may be shown: neither expired nor replaced. */
    async visible(owner: string, namespace: string): Promise<(id: string) => boolean> {
      const index = await lexicon.namespace(owner, namespace);
      const at = now();
      return (id) => !index.hidden(id, at);
    },

    /** The texts of memories a search found (`null` for one the relayer cannot read). */
    async texts(
      owner: string,
      namespace: string,
      hits: VectorHit[],
      options: MemoryCallOptions = {},
    ): Promise<(string | null)[]> {
      const index = await lexicon.namespace(owner, namespace);
      return await Promise.all(
        hits.map((hit) => reader.read(owner, { ...hit, info: index.entry(hit.id)?.info }, options)),
      );
    },

    /** A job of this owner, or `null` when unknown or another owner's. */
    async job(owner: string, jobId: string): Promise<PublicJob | null> {
      const record = MEMORY_ID.test(jobId) ? await queue.get(jobId) : null;
      return record && record.owner === owner ? publicJob(record) : null;
    },

    /**
     * The jobs of `jobIds`, in order; each unknown or another owner's is an `UnknownJob`, as is
     * an id of no job's shape (never looked up).
     */
    async jobs(owner: string, jobIds: string[]): Promise<(PublicJob | UnknownJob)[]> {
      const records = await queue.getMany(jobIds.filter((id) => MEMORY_ID.test(id)));
      const mine = new Map(
        records.flatMap((record) => record?.owner === owner ? [[record.job_id, record]] : []),
      );
      return jobIds.map((job_id) => {
        const record = mine.get(job_id);
        return record ? publicJob(record) : { job_id, status: "not_found" as const };
      });
    },

    /** See `restore.ts`. */
    restore: (owner: string, namespace: string, limit: number, options?: RestoreOptions) =>
      restoreNamespace(deps, owner, namespace, limit, options),
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;

/** An item of `MemoryService.accept`: the memory already holding its text, or its new job. */
export type Accepted = { duplicate_of: string; job?: never } | {
  job: JobRecord;
  duplicate_of?: never;
};
