/**
 * The memory use-cases of the HTTP routes (the CLI and the MCP tools reach them through those
 * routes): remember (queued for the job worker), recall, manual remember and recall, restore.
 * Writing a memory goes through the remember pipeline. Callers pass values that are already
 * validated.
 */
import type {
  BlobStore,
  Cipher,
  DecryptCredentials,
  Embedder,
  VectorHit,
  VectorStore,
} from "../backends/types.ts";
import type { LexicalIndex } from "../ranking/lexical_index.ts";
import type { TermHasher } from "../ranking/terms.ts";
import { SvcError } from "../errors.ts";
import type { JobQueue, PublicJob } from "../jobs/job_queue.ts";
import { publicJob } from "../jobs/job_queue.ts";
import type { Logger } from "../log.ts";
import { timeOrderedId } from "../ids.ts";
import type { RememberPipeline } from "../pipeline/remember.ts";

export interface MemoryServiceDependencies {
  /** Where remember jobs wait for the worker. */
  queue: JobQueue;
  /** Stores and indexes manual and restored memories. */
  pipeline: RememberPipeline;
  /** Recall embeds its query (and re-ranks with the embedder's soft match when it has one). */
  embedder: Embedder;
  /** Recall and restore decrypt blobs. */
  cipher: Cipher;
  blobs: BlobStore;
  vectors: VectorStore;
  /** Keyed term hashes of memory texts, and the BM25 index over them. */
  hasher: TermHasher;
  lexicon: LexicalIndex;
  logger: Logger;
}

/**
 * Weights of recall's ranking, against the cosine similarity (weight 1): the lexical BM25
 * score relative to the query's best, and the embedder's word-level soft match when it has
 * one. Tuned on LoCoMo's tuning split (bench/retrieval.ts).
 */
const LEXICAL_WEIGHT = 1;
const SOFT_MATCH_WEIGHT = 2;
/**
 * A memory's neighbours are the memories remembered up to two places before or after it in its
 * namespace, within half an hour of it; it gains this share of the best neighbour's score.
 */
const NEIGHBOUR_SPAN = 2;
const NEIGHBOUR_WITHIN_MS = 30 * 60_000;
const NEIGHBOUR_WEIGHT = 0.6;

export interface RecallResult {
  id: string;
  blob_id: string;
  text: string;
  distance: number;
  score: number;
  created_at: string;
}

export interface ManualHit {
  id: string;
  blob_id: string;
  distance: number;
  created_at: string;
}

export interface RestoreSummary {
  restored: number;
  skipped: number;
  total: number;
  namespace: string;
  owner: string;
}

/** Similarity in [0, 1] from a cosine distance in [0, 2]. */
function scoreOf(distance: number): number {
  return Math.min(1, Math.max(0, 1 - distance));
}

/**
 * Recall's score in [0, 1]: cosine similarity, plus the weighted BM25 score relative to the
 * query's best, plus the weighted soft match when there is one, rescaled.
 */
function fusedScore(distance: number, lexical: number, soft?: number): number {
  const weights = 1 + LEXICAL_WEIGHT + (soft === undefined ? 0 : SOFT_MATCH_WEIGHT);
  return (scoreOf(distance) + LEXICAL_WEIGHT * lexical + SOFT_MATCH_WEIGHT * (soft ?? 0)) / weights;
}

/** A fused score with the weighted best of its neighbours' scores, rescaled to [0, 1]. */
function withNeighbours(score: number, neighbours: number[]): number {
  return (score + NEIGHBOUR_WEIGHT * Math.max(0, ...neighbours)) / (1 + NEIGHBOUR_WEIGHT);
}

function manualHit(hit: VectorHit): ManualHit {
  return {
    id: hit.id,
    blob_id: hit.blobId,
    distance: hit.distance,
    created_at: new Date(hit.createdAt).toISOString(),
  };
}

export function createMemoryService(deps: MemoryServiceDependencies) {
  const { queue, pipeline, embedder, cipher, blobs, vectors, hasher, lexicon, logger } = deps;

  async function embedOne(text: string): Promise<Float32Array> {
    const [vector] = await embedder.embed([text]);
    return vector;
  }

  /**
   * Decrypts a hit's blob; `null` (logged) when the blob is missing or unreadable. A caller
   * without access (403) or an unavailable backend (5xx) fails the whole call instead.
   */
  async function readMemory(
    owner: string,
    hit: VectorHit,
    credentials?: DecryptCredentials,
  ): Promise<string | null> {
    try {
      const bytes = await blobs.get(hit.blobId);
      if (!bytes) {
        logger.warn("indexed memory has no blob", { memory_id: hit.id, blob_id: hit.blobId });
        return null;
      }
      return new TextDecoder().decode(await cipher.decrypt(owner, bytes, { credentials }));
    } catch (error) {
      if (error instanceof SvcError && (error.status >= 500 || error.code === "forbidden")) {
        throw error;
      }
      logger.warn("indexed memory cannot be decrypted", { memory_id: hit.id, error });
      return null;
    }
  }

  return {
    /** Accepts remember jobs; resolves once they are durably queued. */
    async remember(owner: string, items: { text: string; namespace: string }[]) {
      return await queue.accept(items.map((item) => ({ owner, ...item })));
    },

    /** A job of this owner, or `null` when unknown or another owner's. */
    async job(owner: string, jobId: string): Promise<PublicJob | null> {
      const record = await queue.get(jobId);
      return record && record.owner === owner ? publicJob(record) : null;
    },

    async jobs(
      owner: string,
      jobIds: string[],
    ): Promise<(PublicJob | { job_id: string; status: "not_found" })[]> {
      const records = await queue.getMany(jobIds);
      return records.map((record, i) =>
        record && record.owner === owner
          ? publicJob(record)
          : { job_id: jobIds[i], status: "not_found" as const }
      );
    },

    /**
     * Hybrid recall: the nearest memories by vector and the best by BM25 over keyed term
     * hashes are pooled with the memories remembered right after the best of them, scored,
     * given a share of their neighbours' scores, and the best `limit` decrypted.
     */
    async recall(
      owner: string,
      query: string,
      limit: number,
      namespace: string,
      credentials?: DecryptCredentials,
    ) {
      const pool = Math.max(limit * 3, 30);
      const [vector, queryTerms, index] = await Promise.all([
        embedOne(query),
        hasher.hash(owner, query),
        lexicon.namespace(owner, namespace),
      ]);
      const lexical = index.search(queryTerms, pool);
      const best = lexical.hits[0]?.score || 1;
      const lexicalOf = (id: string) => lexical.scoreOf(id) / best;
      const hits = new Map(
        (await vectors.search(owner, namespace, vector, pool)).map((hit) => [hit.id, hit]),
      );
      const withHits = async (ids: string[]) => {
        const missing = ids.filter((id) => !hits.has(id));
        const found = missing.length
          ? await vectors.search(owner, namespace, vector, missing.length, { ids: missing })
          : [];
        for (const hit of found) hits.set(hit.id, hit);
        return ids.flatMap((id) => hits.get(id) ?? []);
      };
      await withHits(lexical.hits.map((hit) => hit.id));
      const pooled = [...hits.values()]
        .map((hit) => ({ hit, score: fusedScore(hit.distance, lexicalOf(hit.id)) }))
        .sort((a, b) => b.score - a.score)
        .slice(0, pool)
        .map(({ hit }) => hit);
      // In a conversation an answer follows its question: what came right after the best joins.
      const near = (id: string) => index.neighbours(id, NEIGHBOUR_SPAN, NEIGHBOUR_WITHIN_MS);
      const followers = pooled.slice(0, pool / 3).flatMap((hit) =>
        near(hit.id).filter((id) => id > hit.id)
      );
      const candidates = [...new Set([...pooled, ...await withHits(followers)])];
      // With a soft matcher, every candidate is decrypted and re-scored; otherwise only the best.
      const texts = new Map<string, string>();
      const scores = new Map<string, number>();
      if (embedder.softMatch) {
        const read = await Promise.all(
          candidates.map((hit) => readMemory(owner, hit, credentials)),
        );
        candidates.forEach((hit, i) => read[i] !== null && texts.set(hit.id, read[i]!));
        const readable = candidates.filter((hit) => texts.has(hit.id));
        const soft = await embedder.softMatch(query, readable.map((hit) => texts.get(hit.id)!));
        readable.forEach((hit, i) =>
          scores.set(hit.id, fusedScore(hit.distance, lexicalOf(hit.id), soft[i]))
        );
      } else {
        for (const hit of candidates) {
          scores.set(hit.id, fusedScore(hit.distance, lexicalOf(hit.id)));
        }
      }
      const ranked = candidates.filter((hit) => scores.has(hit.id)).map((hit) => ({
        hit,
        score: withNeighbours(scores.get(hit.id)!, near(hit.id).map((id) => scores.get(id) ?? 0)),
      })).sort((a, b) => b.score - a.score).slice(0, limit);
      const read = await Promise.all(
        ranked.map(({ hit }) => texts.get(hit.id) ?? readMemory(owner, hit, credentials)),
      );
      const results: RecallResult[] = ranked.flatMap(({ hit, score }, i) =>
        read[i] === null ? [] : [{
          id: hit.id,
          blob_id: hit.blobId,
          text: read[i]!,
          distance: hit.distance,
          score,
          created_at: new Date(hit.createdAt).toISOString(),
        }]
      );
      return { results, total: results.length };
    },

    /** Stores a client-encrypted memory with the client's vector, synchronously. */
    async rememberManual(
      owner: string,
      ciphertext: Uint8Array<ArrayBuffer>,
      vector: number[],
      namespace: string,
    ) {
      const memory = { memoryId: timeOrderedId(), owner, namespace, createdAt: Date.now() };
      const blobId = await pipeline.store({ ...memory, ciphertext, vector });
      await pipeline.index({ ...memory, blobId, vector });
      return { id: memory.memoryId, blob_id: blobId, owner, namespace };
    },

    async recallManual(owner: string, vector: number[], limit: number, namespace: string) {
      const hits = await vectors.search(owner, namespace, vector, limit);
      return { results: hits.map(manualHit), total: hits.length };
    },

    /**
     * Re-indexes up to `limit` of the namespace's blobs that are missing from the index:
     * decrypted and indexed again, or indexed under the stored vector of a client-encrypted
     * memory.
     */
    async restore(
      owner: string,
      namespace: string,
      limit: number,
      credentials?: DecryptCredentials,
    ): Promise<RestoreSummary> {
      const entries = await blobs.list(owner, namespace);
      const present = new Set<string>();
      for (let i = 0; i < entries.length; i += 500) {
        const ids = entries.slice(i, i + 500).map((e) => e.meta.memoryId);
        for (const id of await vectors.has(ids)) present.add(id);
      }
      let restored = 0, skipped = 0;
      for (const { blobId, meta } of entries) {
        if (present.has(meta.memoryId)) {
          skipped++;
          continue;
        }
        if (restored >= limit) continue;
        const { memoryId, createdAt } = meta;
        const memory = { memoryId, owner, namespace, createdAt, blobId };
        if (meta.vector) {
          await pipeline.index({ ...memory, vector: meta.vector });
        } else {
          const text = await readMemory(owner, {
            id: meta.memoryId,
            blobId,
            distance: 0,
            createdAt: meta.createdAt,
          }, credentials);
          if (text === null) {
            skipped++;
            continue;
          }
          await pipeline.index({ ...memory, text });
        }
        present.add(meta.memoryId);
        restored++;
      }
      return { restored, skipped, total: entries.length, namespace, owner };
    },
  };
}

export type MemoryService = ReturnType<typeof createMemoryService>;
