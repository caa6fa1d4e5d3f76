/**
 * The memory use-cases of the HTTP routes (the CLI and the MCP tools reach them through those
 * routes): remember (queued for the job worker), recall, manual remember and recall, restore.
 * Writing a memory goes through the remember pipeline. Callers pass values that are already
 * validated.
 */
import { MAX_MANUAL_BLOB_BYTES } from "../text_limits.ts";
import type { PendingClaim } from "../auth/replay_guard.ts";
import { SvcError } from "../errors.ts";
import { LruMap } from "../lru_map.ts";
import type {
  BlobEntry,
  BlobStore,
  DecryptCredentials,
  Embedder,
  Reranker,
  VectorHit,
  VectorStore,
} from "../backends/types.ts";
import { gatherCandidates, poolSize } from "../ranking/candidates.ts";
import { fusionWeightsFor, relativeLexical } from "../ranking/fusion.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import { recallNeighbours } from "../ranking/neighbours.ts";
import {
  abstainBelowFor,
  abstainsAt,
  DEFAULT_MIN_SCORE,
  nearestShape,
  rankCandidates,
} from "../ranking/rank.ts";
import { holdsAnswer, questionType } from "../ranking/answer_types.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { JobQueue, PublicJob } from "../jobs/job_queue.ts";
import { publicJob } from "../jobs/job_queue.ts";
import type { Logger } from "../log.ts";
import { MEMORY_ID, timeOrderedId } from "../ids.ts";
import type { RememberPipeline } from "../pipeline/remember.ts";
import {
  type AttributeSeal,
  encodePayload,
  type MemoryAttributes,
  type Provenance,
  rememberedByOf,
} from "../pipeline/attributes.ts";
import { restoreNamespace, type RestoreOptions } from "./restore.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";
import { catalogFilter, type MemoryFilter } from "./memory_view.ts";
import type { MemoryReader } from "./reader.ts";
import { explanationOf, type RecallExplanation } from "./recall_explanation.ts";
import type {
  ManualHit,
  ManualMemory,
  ManualRecallResults,
  RecallResult,
  RecallResults,
  RecallStage,
  RestoreSummary,
  UnknownJob,
} from "./memory_answers.ts";

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

function manualHit(hit: VectorHit): ManualHit {
  return {
    id: hit.id,
    blob_id: hit.blobId,
    distance: hit.distance,
    created_at: new Date(hit.createdAt).toISOString(),
  };
}

/** Recall query vectors kept, across accounts (each account's apart). */
const QUERY_VECTORS_KEPT = 1_000;

export function createMemoryService(deps: MemoryServiceDependencies) {
  const { queue, pipeline, embedder, reader, vectors, hasher, lexicon, attributeSeal } = deps;
  const now = deps.now ?? Date.now;
  const observe = deps.observeStage;

  /** `work`, its time reported as `stage` once it resolves (when someone listens). */
  async function timed<T>(stage: RecallStage, work: () => Promise<T>): Promise<T> {
    if (!observe) return await work();
    const started = performance.now();
    const result = await work();
    observe(stage, (performance.now() - started) / 1000);
    return result;
  }

  /**
   * The vector of a recall query. An account asking the same words again (an agent often does)
   * skips the model. Kept per account, never shared: a hit's speed would tell one account
   * whether another asked the same words. Emptied when the embedder changes (a reindex).
   */
  const queryVectors = new LruMap<string, Float32Array>(QUERY_VECTORS_KEPT);
  let queryModel = embedder.model;
  async function embedQuery(owner: string, text: string, signal?: AbortSignal) {
    if (embedder.model !== queryModel) {
      queryVectors.clear();
      queryModel = embedder.model;
    }
    const key = `${owner}\n${text}`;
    const kept = queryVectors.get(key);
    if (kept) return kept;
    const [vector] = await embedder.embed([text], { signal, purpose: "query" });
    if (embedder.model === queryModel) queryVectors.set(key, vector);
    return vector;
  }

  return {
    /**
     * Accepts remember jobs; resolves once they are durably queued, with `claim` (the replay
     * claim of the request, when the route writes it) durable too.
     */
    async remember(owner: string, items: RememberItem[], claim?: PendingClaim) {
      const inputs = items.map(({ text, namespace, attributes, rememberedBy }) => ({
        owner,
        namespace,
        text: encodePayload(text, rememberedBy ? { ...attributes, rememberedBy } : attributes),
      }));
      return await queue.accept(inputs, { claim });
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

    /**
     * For each item, the id of a memory its namespace already holds with the same text (after
     * normalising case and white space), or `undefined`.
     */
    async duplicates(owner: string, items: RememberItem[]): Promise<(string | undefined)[]> {
      return await Promise.all(items.map(async ({ text, namespace, attributes }) => {
        if (attributes?.replaces !== undefined) return undefined;
        const index = await lexicon.namespace(owner, namespace);
        return index.duplicateOf(await hasher.digest(owner, text, attributes?.thread), now());
      }));
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

    /**
     * Hybrid recall: the nearest memories by vector and the best by BM25 over keyed term
     * hashes are pooled with the memories remembered right after the best of them in their
     * thread, scored (re-scored by the re-ranker, when there is one), given a share of their
     * thread neighbours' scores, and the best `limit` that score at least `minScore`
     * decrypted. The ranking itself is `src/ranking/`.
     */
    async recall(
      owner: string,
      query: string,
      limit: number,
      namespace: string,
      options: MemoryCallOptions & {
        filter?: MemoryFilter;
        /** Leave out memories scoring below this (default `DEFAULT_MIN_SCORE`). */
        minScore?: number;
        /** Give each result its `explain`. */
        explain?: boolean;
      } = {},
    ): Promise<RecallResults> {
      const { signal } = options;
      const size = poolSize(limit);
      let lexicalMs = performance.now();
      const [vector, queryTerms, index, filter] = await Promise.all([
        timed("embed", () => embedQuery(owner, query, signal)),
        hasher.hashQuery(owner, query).then((terms) => {
          lexicalMs = performance.now() - lexicalMs;
          return terms;
        }),
        lexicon.namespace(owner, namespace),
        catalogFilter(hasher, owner, options.filter ?? {}),
      ]);
      const filtered = Object.values(filter).some((value) => value !== undefined);
      // Expired and replaced memories never come back; with a filter, only those it keeps.
      const at = now();
      const shown = (id: string) =>
        !index.hidden(id, at) && (!filtered || index.matches(id, filter));
      const only = filtered ? index.select(filter, at) : undefined;
      if (only?.length === 0) return { results: [], total: 0 };
      const searchStarted = performance.now();
      const matches = index.search(queryTerms, size);
      const lexical = relativeLexical(matches);
      observe?.("lexical", (lexicalMs + performance.now() - searchStarted) / 1000);
      const neighbours = recallNeighbours(index);
      let shape = { margin: 0, spread: 0 };
      const candidates = await timed("search", async () => {
        const found = await vectors.search(owner, namespace, vector, size, { ids: only, signal });
        const nearest = found.filter((hit) => shown(hit.id));
        shape = nearestShape(nearest);
        return await gatherCandidates(size, {
          nearest,
          lexicalIds: matches.hits.map((hit) => hit.id).filter(shown),
          lexical,
          neighbours: (id) => neighbours(id).filter(shown),
          lookup: (ids) => vectors.search(owner, namespace, vector, ids.length, { ids, signal }),
        });
      });
      // With a re-ranker, every candidate is decrypted and re-scored; otherwise only the best.
      const texts = new Map<string, string>();
      let reranked: Map<string, number> | undefined;
      let readMs = 0;
      const readAll = async (hits: VectorHit[]) => {
        const started = performance.now();
        const read = await Promise.all(
          hits.map((hit) =>
            texts.get(hit.id) ??
              reader.read(owner, { ...hit, info: index.entry(hit.id)?.info }, options)
          ),
        );
        readMs += performance.now() - started;
        return read;
      };
      const reranker = deps.reranker?.();
      if (reranker) {
        const read = await readAll(candidates);
        candidates.forEach((hit, i) => read[i] !== null && texts.set(hit.id, read[i]!));
        // What the re-ranker derives from a text it may keep while the reader keeps the text.
        const held = new Set(
          candidates.filter((hit) => reader.holds(owner, hit.blobId)).map((hit) =>
            texts.get(hit.id)
          ),
        );
        const scores = await timed(
          "rerank",
          () => reranker.rerank(query, [...texts.values()], { signal, keep: (t) => held.has(t) }),
        );
        reranked = new Map([...texts.keys()].map((id, i) => [id, scores[i]]));
      }
      const asked = questionType(query);
      const kindOf = (id: string) => index.entry(id)?.info?.thread === undefined ? "fact" : "turn";
      const candidatesRanked = rankCandidates(
        candidates,
        limit,
        {
          lexical,
          neighbours,
          reranked,
          kind: kindOf,
          weights: fusionWeightsFor(embedder.model),
          answer: (id) => {
            const text = asked && texts.get(id);
            return text ? Number(holdsAnswer(text, asked)) : undefined;
          },
        },
        options.minScore ?? DEFAULT_MIN_SCORE,
      );
      // Nothing when the best memory is a fact that hardly stands out, unless the caller set the
      // minimum.
      const abstainBelow = options.minScore === undefined ? abstainBelowFor(embedder.model) : 0;
      const best = candidatesRanked[0]?.hit.id;
      const abstains = best !== undefined && kindOf(best) === "fact" &&
        abstainsAt(shape, abstainBelow);
      const ranked = abstains ? [] : candidatesRanked;
      // Tags and provenance are opened while the texts are read.
      const opening = Promise.all(ranked.map(({ hit }) =>
        attributeSeal.attributes(
          { memoryId: hit.id, owner, namespace },
          index.entry(hit.id)?.info?.sealed,
        )
      ));
      const [read, attributes] = await Promise.all([
        readAll(ranked.map(({ hit }) => hit)),
        opening,
      ]);
      observe?.("read", readMs / 1000);
      // A memory erased while this recall ran is left out.
      const results: RecallResult[] = ranked.flatMap(({ hit, score, parts }, i) => {
        const entry = index.entry(hit.id);
        if (read[i] === null || !entry) return [];
        const { tags, rememberedBy } = attributes[i];
        const explain = explanationOf(parts);
        return [{
          id: hit.id,
          blob_id: hit.blobId,
          text: read[i]!,
          tags,
          distance: hit.distance,
          score,
          created_at: new Date(entry.info?.firstCreatedAt ?? hit.createdAt).toISOString(),
          expires_at: entry.info?.expiresAt === undefined
            ? null
            : new Date(entry.info.expiresAt).toISOString(),
          remembered_by: rememberedByOf(rememberedBy),
          ...(options.explain && { explain }),
        }];
      });
      return {
        results,
        total: results.length,
        ...(options.explain && { abstain_below: abstainBelow, ...shape }),
      };
    },

    /**
     * The vectors of `texts` in the index's own space, embedded as memories (`document`) or as
     * recall questions (`query`): for clients that store and search their own ciphertexts.
     */
    async embed(
      texts: string[],
      purpose: "query" | "document",
      options: MemoryCallOptions = {},
    ): Promise<{ vectors: number[][]; model: string; dimensions: number }> {
      const vectors = await embedder.embed(texts, { signal: options.signal, purpose });
      return {
        vectors: vectors.map((vector) => [...vector]),
        model: embedder.model,
        dimensions: embedder.dimensions,
      };
    },

    /**
     * Stores a client-encrypted memory with the client's vector, synchronously: its bytes, or
     * those of a blob the client stored itself (stored again as this memory's).
     */
    async rememberManual(
      owner: string,
      blob: { ciphertext: Uint8Array<ArrayBuffer> } | { blobId: string },
      vector: number[],
      namespace: string,
      rememberedBy?: Provenance,
    ): Promise<ManualMemory> {
      // Not abortable: once begun, a write completes even if its client leaves.
      const memory = { memoryId: timeOrderedId(now()), owner, namespace, createdAt: now() };
      const attributes = rememberedBy && { rememberedBy };
      const ciphertext = "ciphertext" in blob
        ? blob.ciphertext
        : await storedBlob(deps.blobs, blob.blobId);
      const blobId = await pipeline.store({ ...memory, ciphertext, vector, attributes });
      await pipeline.index({ ...memory, blobId, vector, attributes });
      // Its namespace erased meanwhile, its blob found without a row: it goes too (see
      // `Eraser.eraseBlobs`, which removes the row when it comes after this).
      const ids = [memory.memoryId];
      if ((await deps.records.erased(owner, ids)).size > 0) {
        await vectors.delete(ids);
        await lexicon.remove(owner, namespace, ids);
        throw new SvcError(
          "conflict",
          `Cannot remember: namespace ${JSON.stringify(namespace)} was erased while the memory ` +
            "was being stored",
        );
      }
      return { id: memory.memoryId, blob_id: blobId, owner, namespace };
    },

    /** The `limit` memories nearest to the client's vector, nearest first. */
    async recallManual(
      owner: string,
      vector: number[],
      limit: number,
      namespace: string,
      { signal }: MemoryCallOptions = {},
    ): Promise<ManualRecallResults> {
      const [found, index] = await Promise.all([
        vectors.search(owner, namespace, vector, limit, { signal }),
        lexicon.namespace(owner, namespace),
      ]);
      const at = now();
      const hits = found.filter((hit) => !index.hidden(hit.id, at));
      return { results: hits.map(manualHit), total: hits.length };
    },

    /** See `restore.ts`. */
    restore(
      owner: string,
      namespace: string,
      limit: number,
      options: RestoreOptions = {},
    ): Promise<RestoreSummary> {
      return restoreNamespace(deps, owner, namespace, limit, options);
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;

/** The bytes of a blob a client stored itself, or a 400 when the store has none by that id. */
async function storedBlob(blobs: BlobStore, blobId: string): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = await blobs.get(blobId);
  if (!bytes) {
    throw new SvcError(
      "bad_request",
      `No blob with that blob_id in this relayer's blob store (${blobs.name}): send ` +
        "encrypted_data instead, or store the blob there first",
    );
  }
  // Not stored again past what encrypted_data in a body could carry.
  if (bytes.byteLength > MAX_MANUAL_BLOB_BYTES) {
    throw new SvcError(
      "payload_too_large",
      `Cannot remember the blob: it is larger than a manual memory may be (${MAX_MANUAL_BLOB_BYTES} bytes)`,
    );
  }
  return bytes;
}
