/**
 * A relayer's services and worker, built from its options: the job queue, what memories are
 * sealed and indexed with, the remember pipeline, the reader, the records, the access log, the
 * lifecycle and memory services and the worker that stores what remember queued.
 */
import type { Logger } from "./log.ts";
import { SvcError } from "./errors.ts";
import type { JobQueue } from "./jobs/job_queue.ts";
import { DiskBacklog, type DiskRoom, withDiskBacklog } from "./jobs/disk_backlog.ts";
import { MemoryLanding } from "./remember/landing.ts";
import { createWorker, type Worker } from "./remember/worker.ts";
import { RelayerMetrics } from "./metrics/relayer_metrics.ts";
import { AttributeSeal } from "./pipeline/attributes.ts";
import { createRememberPipeline, type RememberPipeline } from "./pipeline/remember.ts";
import { VectorSeal } from "./pipeline/vector_seal.ts";
import { LexicalIndex } from "./ranking/lexicon.ts";
import { TermHasher } from "./ranking/terms.ts";
import type { Reranker } from "./backends/types.ts";
import { AccessLog } from "./services/access_log.ts";
import { BlindLog } from "./services/blind_log.ts";
import { createEraser } from "./services/eraser.ts";
import { createLifecycleService, type LifecycleService } from "./services/lifecycle.ts";
import { type LifecycleRecordStore, StateLifecycleRecords } from "./services/lifecycle_records.ts";
import { StateAccessLogStore } from "./services/access_log_store.ts";
import { createMemoryService, type MemoryService } from "./services/memories.ts";
import { createReader, type MemoryReader } from "./services/reader.ts";
import { RelayerIdentity } from "./services/receipts.ts";
import { MemoryUpdateClaims } from "./services/update_claims.ts";
import type { RelayerOptions } from "./relayer_options.ts";
import { rankedText } from "./text_limits.ts";

/** The services of a relayer, which its routes and background work use. */
export interface RelayerServices {
  queue: JobQueue;
  metrics: RelayerMetrics;
  /** Signs erase receipts. */
  identity: RelayerIdentity;
  accessLog: AccessLog;
  lifecycle: LifecycleService;
  service: MemoryService;
  worker: Worker;
  /** The operator-blind namespaces' logs; absent without a state store. */
  blind?: BlindLog;
}

/** What the services share: the stores, the pipeline, the reader and the indexing keys. */
interface SharedParts {
  queue: JobQueue;
  hasher: TermHasher;
  lexicon: LexicalIndex;
  attributeSeal: AttributeSeal;
  pipeline: RememberPipeline;
  metrics: RelayerMetrics;
  /** The re-ranker serving now (while the embedder changes, the serving index's). */
  rerankerNow: () => Reranker | undefined;
  reader: MemoryReader;
  records: LifecycleRecordStore;
  identity: RelayerIdentity;
  accessLog: AccessLog;
}

/**
 * Refuses options a relayer cannot start with: an index whose dimensions are not the
 * embedder's, or a store missing.
 */
export function checkRelayerOptions(options: RelayerOptions): void {
  if (options.vectors.dimensions !== options.embedder.dimensions) {
    throw new SvcError(
      "conflict",
      `Cannot start: the vector index has ${options.vectors.dimensions} dimensions but the ` +
        `embedder "${options.embedder.model}" produces ${options.embedder.dimensions}`,
    );
  }
  const { queue, replayGuard, records, accessLogStore, state } = options;
  if (!queue || !replayGuard || !(state || (records && accessLogStore))) {
    throw new SvcError(
      "internal",
      "Cannot start the relayer: it needs a job queue, a replay guard, lifecycle records and " +
        "an access log store, or a state store to keep those in (openKvStores of @svc/denokv " +
        "opens them in one Deno KV)",
    );
  }
}

/** The options with the access log and the lifecycle records kept in `state` where not given. */
function withStateStores(options: RelayerOptions): StoresGiven {
  const { state, secret, jobTextKeys } = options;
  return {
    ...options,
    records: options.records ?? new StateLifecycleRecords(state!, secret, jobTextKeys),
    accessLogStore: options.accessLogStore ?? new StateAccessLogStore(state!),
  };
}

/** Options whose access log and lifecycle records are known. */
type StoresGiven = RelayerOptions & Required<Pick<RelayerOptions, "records" | "accessLogStore">>;

/** Builds the services and the worker. */
export async function wireRelayerServices(
  options: RelayerOptions,
  logger: Logger,
): Promise<RelayerServices> {
  const given = withStateStores(options);
  return createServices(given, await openSharedParts(given, logger), logger);
}

/** The term hasher, the lexicon and the seals, keyed by the relayer's secret. */
async function openIndexing(options: RelayerOptions) {
  const { cipher, vectors } = options;
  const hasher = await TermHasher.fromSecret(options.secret, {
    keepMemoryTerms: cipher.holdsKeys === true,
  });
  const lexicon = new LexicalIndex(vectors, options.lexiconBytes);
  // A reindex switched to a new index: the namespaces are read again from it.
  vectors.onReplaced?.(() => lexicon.clear());
  // Another relayer changed a namespace (a shared index): it is brought up to date from the store.
  vectors.onChanged?.((owner, namespace) => lexicon.drop(owner, namespace));
  const vectorSeal = await VectorSeal.fromSecret(options.secret);
  const attributeSeal = await AttributeSeal.fromSecret(options.secret);
  return { hasher, lexicon, vectorSeal, attributeSeal };
}

/** The job queue, its backlog charged against the disk's room when the relayer watches it. */
function chargedQueue(options: RelayerOptions): JobQueue {
  const disk = options.diskSpace;
  if (disk?.room === undefined) return options.queue;
  return withDiskBacklog(options.queue, new DiskBacklog(disk as DiskRoom));
}

/** Builds what the services share. */
async function openSharedParts(options: StoresGiven, logger: Logger): Promise<SharedParts> {
  const { records, cipher, blobs, vectors, embedder } = options;
  const queue = chargedQueue(options);
  const { hasher, lexicon, vectorSeal, attributeSeal } = await openIndexing(options);
  const pipeline = createRememberPipeline({
    cipher,
    blobs,
    embedder,
    vectors,
    hasher,
    lexicon,
    vectorSeal,
    attributeSeal,
    now: options.now,
  });
  const metrics = new RelayerMetrics();
  const { reranker } = options;
  const rerankerNow = typeof reranker === "function" ? reranker : () => reranker;
  const reader = createReader({
    cipher,
    blobs,
    logger,
    textCacheBytes: options.textCacheBytes,
    dropped: (text) => rerankerNow()?.forget?.(rankedText(text)),
  });
  const identity = await RelayerIdentity.fromSecret(options.secret);
  const accessLog = await AccessLog.open({
    store: options.accessLogStore,
    secret: options.secret,
    retentionDays: options.accessLogDays,
    logger,
    now: options.now,
  });
  return {
    queue,
    hasher,
    lexicon,
    attributeSeal,
    pipeline,
    metrics,
    rerankerNow,
    reader,
    records,
    identity,
    accessLog,
  };
}

/**
 * The lifecycle and memory services, and the worker; the eraser and the update claims, which
 * the lifecycle and the landing of memories share.
 */
function createServices(
  options: StoresGiven,
  parts: SharedParts,
  logger: Logger,
): RelayerServices {
  const { queue, hasher, lexicon, attributeSeal, pipeline, metrics, reader, records } = parts;
  const { cipher, blobs, vectors, embedder } = options;
  const now = options.now ?? Date.now;
  const updating = options.updateClaims ?? new MemoryUpdateClaims();
  const eraser = createEraser({
    cipher,
    blobs,
    vectors,
    lexicon,
    reader,
    records,
    updating,
    identity: parts.identity,
    logger,
    now,
  });
  const blind = options.state &&
    new BlindLog(options.state, options.secret, parts.identity, now);
  const refuseBlind = blind &&
    ((owner: string, namespaces: string[]) => blind.refuseBlind(owner, namespaces));
  const lifecycle = createLifecycleService({
    queue,
    cipher,
    blobs,
    vectors,
    lexicon,
    hasher,
    attributeSeal,
    reader,
    records,
    eraser,
    logger,
    now,
    refuseBlind,
    blind: blind || undefined,
  });
  const service = createMemoryService({
    queue,
    pipeline,
    embedder,
    reader,
    blobs,
    vectors,
    reranker: parts.rerankerNow,
    hasher,
    lexicon,
    attributeSeal,
    records,
    eraseBlobs: lifecycle.eraseBlobs,
    logger,
    observeStage: metrics.recallStage,
    now,
    refuseBlind,
  });
  const worker = createWorker({
    queue,
    pipeline,
    logger,
    concurrency: options.concurrency,
    batchSize: options.batchSize,
    callTimeoutMs: options.callTimeoutMs,
    landing: new MemoryLanding({
      lexicon,
      records,
      updating,
      eraser,
      now,
      ...(blind && { blindAmong: blind.blindAmong.bind(blind) }),
    }),
    reader,
    observe: metrics.worker,
    textClaims: options.textClaims,
    disk: options.diskSpace,
  });
  metrics.watch({ sidecar: options.sidecar, worker, lexicon });
  const { identity, accessLog } = parts;
  return { queue, metrics, identity, accessLog, lifecycle, service, worker, blind };
}
