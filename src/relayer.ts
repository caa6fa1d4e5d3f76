/**
 * `createRelayer(options)`: the relayer as a request handler plus its background worker.
 * Backends are injected; nothing here opens files, databases or ports.
 *
 * @example
 * ```ts
 * const relayer = await createRelayer({ kv, secret, directory, cipher, blobs, vectors, embedder });
 * Deno.serve(relayer.handler);
 * ```
 */
import { timingSafeEqual } from "./auth/compare.ts";
import { CachedAccountDirectory } from "./auth/account_cache.ts";
import { Ed25519Verifier } from "./auth/ed25519.ts";
import { AuthFailureLimiter } from "./auth/failure_limiter.ts";
import { KvReplayGuard } from "./auth/replay_guard.ts";
import { requireNamespace, requireOperation } from "./auth/scope.ts";
import {
  checkSignedHeaders,
  checkStillAuthorized,
  DelegateKeyCheck,
  type SignedHeaders,
  type VerifiedCaller,
  verifySignedBody,
} from "./auth/verify.ts";
import { SvcError } from "./errors.ts";
import { BodyBudget } from "./http/body_budget.ts";
import { type ConnectionInfo, createHttpHandler, type HttpHandler } from "./http/kernel.ts";
import { RateLimiter } from "./rate_limiter.ts";
import { hostGuard, LOOPBACK_HOSTS } from "./http/relayer_names.ts";
import type { JobQueue } from "./jobs/job_queue.ts";
import { KvJobQueue } from "./jobs/kv_job_queue.ts";
import { whileRoom } from "./jobs/while_room.ts";
import { reconcileJobs } from "./jobs/reconciler.ts";
import { createWorker, type Worker } from "./jobs/worker.ts";
import { silentLogger } from "./log.ts";
import { RelayerMetrics } from "./metrics/relayer_metrics.ts";
import type { Route } from "./http/router.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { accessLogRoutes, withAccessLog } from "./routes/access_log.ts";
import { accountRoutes } from "./routes/account.ts";
import { type Accessed, answeringOnceClaimed, type HandlerContext } from "./routes/context.ts";
import { llmRoutes } from "./routes/llm.ts";
import { memoryRoutes } from "./routes/memories.ts";
import { lifecycleRoutes } from "./routes/lifecycle.ts";
import { portabilityRoutes } from "./routes/portability.ts";
import { serviceRoutes } from "./routes/service.ts";
import { sidecarRoutes } from "./routes/sidecar.ts";
import { createRememberPipeline } from "./pipeline/remember.ts";
import { AttributeSeal } from "./pipeline/attributes.ts";
import { VectorSeal } from "./pipeline/vector_seal.ts";
import { LexicalIndex } from "./ranking/lexicon.ts";
import { TermHasher } from "./ranking/terms.ts";
import { AccessLog } from "./services/access_log.ts";
import { KvAccessLogStore } from "./services/access_log_store.ts";
import { createLlmService } from "./services/llm.ts";
import { createMemoryService, type MemoryService } from "./services/memories.ts";
import { createLifecycleService, type LifecycleService } from "./services/lifecycle.ts";
import { createExportService } from "./services/export.ts";
import { LifecycleRecords } from "./services/lifecycle_records.ts";
import { createReader } from "./services/reader.ts";
import { RelayerIdentity } from "./services/receipts.ts";

export type { RelayerOptions } from "./relayer_options.ts";
import type { RelayerOptions } from "./relayer_options.ts";

export type { ConnectionInfo };

/**
 * The refusals the failed-authentication limit counts: those that cost work. A key looked up and
 * not found (or expired) before the body is read; after it, also a signature checked and wrong.
 * What is refused before either (missing or malformed headers, a stale timestamp, a replay, a
 * scope) costs nothing and counts for nothing.
 */
const LOOKUP_FAILURES = new Set(["unknown_key", "expired_key"]);
const VERIFY_FAILURES = new Set([...LOOKUP_FAILURES, "bad_signature"]);

/** A relayer: its request handler, and how to stop its background work. */
export interface Relayer {
  /** Answers every route of the HTTP API; pass it to `Deno.serve`. */
  handler: HttpHandler;
  /**
   * From now on `/health` answers 503 `stopping` while every route still works, so that a load
   * balancer sends its requests elsewhere before the relayer stops.
   */
  drain(): void;
  /**
   * Stops background work and waits for the job batches running (jobs not yet in one stay
   * pending, for the next start); backends stay open.
   */
  close(): Promise<void>;
}

/** A relayer with its parts, which the project's tests and benchmarks drive directly. */
export interface AssembledRelayer extends Relayer {
  service: MemoryService;
  lifecycle: LifecycleService;
  queue: JobQueue;
  worker: Worker;
  /** The metrics `GET /metrics` serves. */
  metrics: RelayerMetrics;
  /** The route table (what `GET /openapi.json` describes). */
  routes: Route<HandlerContext>[];
  accessLog: AccessLog;
}

function missingKv(): never {
  throw new SvcError(
    "internal",
    "Cannot start the relayer: without a Deno KV store (kv) it needs a job queue, a replay " +
      "guard, lifecycle records and an access log store of its own",
  );
}

/** Builds a relayer from its backends; nothing is opened here. */
export async function createRelayer(options: RelayerOptions): Promise<Relayer> {
  const { handler, drain, close } = await assembleRelayer(options);
  return { handler, drain, close };
}

/** {@link createRelayer}, keeping the memory service, job queue and worker reachable. */
export async function assembleRelayer(options: RelayerOptions): Promise<AssembledRelayer> {
  const logger = options.logger ?? silentLogger;
  if (options.vectors.dimensions !== options.embedder.dimensions) {
    throw new SvcError(
      "conflict",
      `Cannot start: the vector index has ${options.vectors.dimensions} dimensions but the ` +
        `embedder "${options.embedder.model}" produces ${options.embedder.dimensions}`,
    );
  }
  const kv = () => options.kv ?? missingKv();
  if (!options.kv) {
    const { queue, replayGuard, records, accessLogStore } = options;
    if (!queue || !replayGuard || !records || !accessLogStore) missingKv();
  }
  const queue: JobQueue = options.queue ??
    await KvJobQueue.open(kv(), options.secret, {
      maxAttempts: options.maxAttempts,
      leaseMs: options.leaseMs,
    });
  const { cipher, blobs, vectors, embedder } = options;
  const hasher = await TermHasher.fromSecret(options.secret, {
    keepMemoryTerms: cipher.holdsKeys === true,
  });
  const lexicon = new LexicalIndex(vectors);
  // A reindex switched to a new index: the namespaces are read again from it.
  vectors.onReplaced?.(() => lexicon.clear());
  // Another relayer changed a namespace (a shared index): it is brought up to date from the store.
  vectors.onChanged?.((owner, namespace) => lexicon.drop(owner, namespace));
  const vectorSeal = await VectorSeal.fromSecret(options.secret);
  const attributeSeal = await AttributeSeal.fromSecret(options.secret);
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
  /** The re-ranker serving now (while the embedder changes, the serving index's). */
  const rerankerNow = typeof reranker === "function" ? reranker : () => reranker;
  const reader = createReader({
    cipher,
    blobs,
    logger,
    textCacheBytes: options.textCacheBytes,
    dropped: (text) => rerankerNow()?.forget?.(text),
  });
  const records = options.records ?? new LifecycleRecords(kv(), options.secret);
  const identity = await RelayerIdentity.fromSecret(options.secret);
  const accessLog = await AccessLog.open({
    store: options.accessLogStore ?? new KvAccessLogStore(kv()),
    secret: options.secret,
    retentionDays: options.accessLogDays,
    logger,
    now: options.now,
  });
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
    updateClaims: options.updateClaims,
    identity,
    logger,
    now: options.now,
  });
  const service = createMemoryService({
    queue,
    pipeline,
    embedder,
    reader,
    blobs,
    vectors,
    reranker: rerankerNow,
    hasher,
    lexicon,
    attributeSeal,
    records,
    eraseBlobs: lifecycle.eraseBlobs,
    logger,
    observeStage: metrics.recallStage,
    now: options.now,
  });
  const worker = createWorker({
    queue,
    pipeline,
    logger,
    concurrency: options.concurrency,
    batchSize: options.batchSize,
    callTimeoutMs: options.callTimeoutMs,
    vet: (memories) => lifecycle.vet(memories),
    indexed: (memories) => lifecycle.indexed(memories),
    failed: (memories) => lifecycle.failed(memories),
    keepText: (owner, blobId, text) => reader.keep(owner, blobId, text),
    observe: metrics.worker,
    textClaims: options.textClaims,
  });
  metrics.watch({ sidecar: options.sidecar, worker });
  const cacheMs = options.directory.cacheable === false ? 0 : options.accountCacheMs;
  const directory = new CachedAccountDirectory(options.directory, {
    positiveTtlMs: cacheMs,
    negativeTtlMs: cacheMs && Math.min(cacheMs, 10_000),
    now: options.now,
  });
  const replayGuard = options.replayGuard ??
    await KvReplayGuard.open(kv(), { now: options.now });
  const verifyDeps = {
    directory,
    replayGuard,
    verifier: new Ed25519Verifier(),
    delegateKeys: new DelegateKeyCheck(),
    now: options.now,
    audiences: options.audiences,
    requireAudience: options.requireAudience,
  };
  const failures = new AuthFailureLimiter({
    limit: options.authFailuresPerMinute,
    now: options.now,
  });
  let draining = false;
  /** The relayer's names, asked of the routes a web page on this machine must not reach. */
  const checkHost = hostGuard(options.allowedHosts ?? LOOPBACK_HOSTS);
  const routes: Route<HandlerContext>[] = withAccessLog(
    answeringOnceClaimed([
      ...serviceRoutes({
        mode: options.mode ?? "embedded",
        packageId: options.packageId ?? "",
        backends: {
          chain: options.directory.name,
          cipher: options.cipher.name,
          blobStore: options.blobs.name,
          vectorStore: options.vectors.name,
          // Read on every request: a reindex changes the embedder while the relayer runs.
          get embedder() {
            return options.embedder.model;
          },
          llm: options.llm?.name ?? "none",
        },
        receiptKey: identity.publicKey,
        sidecar: () => options.sidecar?.status() ?? "down",
        mcpSessions: () => options.sidecar?.sessions() ?? 0,
        stopping: () => draining,
        writes: () => options.diskSpace?.low ? "refused" : "accepted",
        origins: options.audiences,
      }),
      ...accountRoutes(),
      ...memoryRoutes(service, lifecycle, () => options.vectors.dimensions),
      ...lifecycleRoutes(lifecycle),
      ...portabilityRoutes(createExportService({ lifecycle, vectors, logger }), service),
      ...llmRoutes(
        options.llm &&
          createLlmService({ llm: options.llm, embedder, vectors, memories: service }),
      ),
      ...sidecarRoutes(
        options.sidecar,
        new RateLimiter(options.sponsorRatePerMinute ?? 30, 60_000),
        checkHost,
        logger,
      ),
      ...accessLogRoutes(accessLog),
      // Counted apart: a scraper with a wrong token locks out the metrics only.
      ...metricsRoutes(metrics.registry, {
        token: options.metricsToken,
        checkHost,
        failures: new AuthFailureLimiter({
          limit: options.authFailuresPerMinute,
          now: options.now,
        }),
      }),
      ...openApiRoutes(() => routes),
    ]),
    accessLog,
  );

  function addressOf(request: Request, info?: ConnectionInfo): string {
    // The sidecar's tool calls name the MCP client they are made for, with the sidecar's secret.
    const behalf = request.headers.get("x-svc-client-address");
    const token = request.headers.get("x-sidecar-token");
    if (behalf && token && options.sidecar && timingSafeEqual(token, options.sidecar.token)) {
      return behalf;
    }
    // The proxy appends the address it saw: the last entry is the one to trust.
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (options.trustProxy && forwarded) return forwarded;
    const remote = info?.remoteAddr;
    return remote && "hostname" in remote ? remote.hostname : "unknown";
  }

  const listening = new AbortController();
  /** The worker's door, closed while the disk is full. */
  const room = whileRoom(options.diskSpace, (jobId) => worker.process(jobId));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let sweeper: ReturnType<typeof setTimeout> | undefined;
  if (options.processJobs ?? true) {
    // Before listening: a job the last run left `running` is given back while no worker here
    // holds it. Listening first, a delivery could lease it and this give it back from under
    // that worker, for a second delivery to run it again at the same time.
    // The jobs left pending go to the worker without a message each (see `reconcileJobs`), once
    // the pass is over: it, and so the start, does not wait on the worker's batches. The periodic
    // pass leaves the jobs the worker holds to it.
    const backlog: string[] = [];
    await reconcileJobs(queue, logger, {
      startup: true,
      counted: metrics.unfinishedJobs,
      deliver: (jobId) => void backlog.push(jobId),
    });
    const full = () => options.diskSpace?.low === true;
    const taking = { id: worker.id, ready: (jobs: number) => !full() && worker.ready(jobs) };
    queue.listen(({ job_id }) => room.take(job_id), { signal: listening.signal, worker: taking })
      .catch((error) => logger.error("job queue listener stopped", { error }));
    for (const jobId of backlog) room.take(jobId);
    timer = setInterval(() => {
      if (full()) return;
      reconcileJobs(queue, logger, {
        startup: false,
        counted: metrics.unfinishedJobs,
        holds: (jobId) => worker.holds(jobId),
      }).catch((error) => logger.error("reconciler failed", { error }));
    }, options.reconcileIntervalMs ?? 60_000);
    const sweep = () =>
      lifecycle.sweep().catch((error) => logger.error("expiry sweep failed", { error }));
    sweep();
    sweeper = setInterval(sweep, options.expirySweepMs ?? 60_000);
    accessLog.schedulePrune(3_600_000);
  }

  /**
   * Runs one step of authenticating a request, counting against the client's address the
   * refusals whose `reason` is one of `counts`.
   */
  async function counted<T>(address: string, counts: Set<string>, step: () => Promise<T>) {
    try {
      return await step();
    } catch (error) {
      if (error instanceof SvcError && counts.has(error.details.reason as string)) {
        failures.failed(address);
      }
      throw error;
    }
  }
  /**
   * Whether failed authentications may refuse requests: only where a look-up is costly (a
   * directory on a network). A local ledger's look-up and a signature check cost about what
   * answering the request does, so no one is refused for others' failures.
   */
  const limitFailures = options.directory.cacheable !== false;

  const handler = createHttpHandler<HandlerContext, SignedHeaders | undefined>({
    routes,
    logger,
    clientAddress: addressOf,
    bodyBudget: new BodyBudget({
      totalBytes: options.bodyBudgetBytes,
      perAddressBytes: options.bodyBudgetPerAddressBytes,
    }),
    bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
    observe: metrics.request,
    // Signed routes: what the headers can tell is checked before the body is read.
    async admit(request, route, address) {
      if (!route.signed) return undefined;
      const wait = limitFailures
        ? failures.refusal(
          address,
          request.headers.get("x-public-key"),
          request.headers.get("x-account-id"),
        )
        : undefined;
      if (wait !== undefined) {
        throw new SvcError(
          "rate_limited",
          "Cannot check this signed request: too many authentications from this address " +
            "failed in the last minute",
          { details: { retry_after_seconds: wait } },
        );
      }
      const headers = await counted(
        address,
        LOOKUP_FAILURES,
        () => checkSignedHeaders(request, verifyDeps, { ownerKey: route.ownerKey }),
      );
      // A scope refusal is not a failed authentication: the key is genuine.
      if (!headers.ownerKey) {
        for (const operation of route.operations) requireOperation(headers.account, operation);
      } else if (
        !headers.account.active && route.operations.includes("write") && request.method !== "GET"
      ) {
        throw new SvcError(
          "forbidden",
          "The account is deactivated: its owner's key may read, export and erase its " +
            "memories, not write them",
        );
      }
      // A route that stores memories (logged, with the write scope) waits for disk space.
      if (route.operations.includes("write") && route.access) {
        const refused = options.diskSpace?.refusal();
        if (refused) throw refused;
      }
      return headers;
    },
    async extend(context, route, headers) {
      let caller: VerifiedCaller | undefined;
      if (route.signed) {
        caller = await counted(
          context.clientAddress,
          VERIFY_FAILURES,
          () => verifySignedBody(context.request, headers!, context.body, verifyDeps, route.claim),
        );
        failures.succeeded(caller.publicKey, caller.accountId);
      }
      const accessed: Accessed = new Map();
      return {
        ...context,
        caller: caller!,
        accessed,
        stillAuthorized: () => checkStillAuthorized(caller!, directory),
        touch(namespace, ids = []) {
          requireNamespace(caller!, namespace);
          const touched = accessed.get(namespace) ?? [];
          accessed.set(namespace, touched);
          touched.push(...ids);
        },
      };
    },
  });

  return {
    service,
    lifecycle,
    queue,
    worker,
    metrics,
    routes,
    accessLog,
    handler,
    drain() {
      draining = true;
    },
    async close() {
      listening.abort();
      clearInterval(timer);
      room.stop();
      clearInterval(sweeper);
      await lifecycle.stopSweeping();
      await worker.stop();
      await accessLog.close();
    },
  };
}
