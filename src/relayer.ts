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
import { CachedAccountDirectory } from "./auth/account_cache.ts";
import { KvReplayGuard, type ReplayGuard } from "./auth/replay_guard.ts";
import { verifySignedRequest } from "./auth/verify.ts";
import type {
  AccountDirectory,
  BlobStore,
  Cipher,
  Embedder,
  Llm,
  Reranker,
  VectorStore,
} from "./backends/types.ts";
import { SvcError } from "./errors.ts";
import { parseJsonObject, readBody } from "./http/body.ts";
import { errorResponse } from "./http/respond.ts";
import { RateLimiter } from "./http/rate_limiter.ts";
import { matchRoute } from "./http/router.ts";
import { JobQueue } from "./jobs/job_queue.ts";
import { reconcileJobs } from "./jobs/reconciler.ts";
import { createWorker, type Worker } from "./jobs/worker.ts";
import { type Logger, silentLogger } from "./log.ts";
import { accountRoutes } from "./routes/account.ts";
import type { HandlerContext } from "./routes/context.ts";
import { llmRoutes } from "./routes/llm.ts";
import { memoryRoutes } from "./routes/memories.ts";
import { serviceRoutes } from "./routes/service.ts";
import { type SidecarLink, sidecarRoutes } from "./routes/sidecar.ts";
import { LexicalIndex } from "./ranking/lexical_index.ts";
import { TermHasher } from "./ranking/terms.ts";
import { createLlmService } from "./services/llm.ts";
import { createMemoryService, type MemoryService } from "./services/memories.ts";

export interface RelayerOptions {
  /** Holds job records, the job queue and the replay guard. */
  kv: Deno.Kv;
  /** 32 secret bytes; seals texts while they wait in the job queue. */
  secret: Uint8Array<ArrayBuffer>;
  directory: AccountDirectory;
  cipher: Cipher;
  blobs: BlobStore;
  vectors: VectorStore;
  embedder: Embedder;
  /** Re-scores recall's candidates on their plaintext; without one, recall ranks without it. */
  reranker?: Reranker;
  /** The language model of analyze and ask; without one they answer 501. */
  llm?: Llm;
  logger?: Logger;
  /** Reported by `/health`. */
  mode?: string;
  packageId?: string;
  /** Run the job worker and reconciler (default true). */
  processJobs?: boolean;
  concurrency?: number;
  callTimeoutMs?: number;
  maxAttempts?: number;
  leaseMs?: number;
  reconcileIntervalMs?: number;
  replayGuard?: ReplayGuard;
  /** Clock for signed-request checks (Unix ms). */
  now?: () => number;
  /** The MCP sidecar the MCP and sponsor routes forward to; without it they answer 503. */
  sidecar?: SidecarLink;
  /** Take the client address from `x-forwarded-for` (behind a reverse proxy only). */
  trustProxy?: boolean;
  /** How long a resolved delegate key is trusted before the directory is asked again (60 s). */
  accountCacheMs?: number;
  /** Sponsored transactions per client address per minute (default 30). */
  sponsorRatePerMinute?: number;
}

/** What `Deno.serve` tells a handler about the connection. */
export interface ConnectionInfo {
  remoteAddr: Deno.Addr;
}

export interface Relayer {
  handler(request: Request, info?: ConnectionInfo): Promise<Response>;
  service: MemoryService;
  queue: JobQueue;
  worker: Worker;
  /** Stops background work and waits for jobs in flight; backends stay open. */
  close(): Promise<void>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export async function createRelayer(options: RelayerOptions): Promise<Relayer> {
  const logger = options.logger ?? silentLogger;
  if (options.vectors.dimensions !== options.embedder.dimensions) {
    throw new SvcError(
      "conflict",
      `Cannot start: the vector index has ${options.vectors.dimensions} dimensions but the ` +
        `embedder "${options.embedder.model}" produces ${options.embedder.dimensions}`,
    );
  }
  const queue = await JobQueue.open(options.kv, options.secret, {
    maxAttempts: options.maxAttempts,
    leaseMs: options.leaseMs,
  });
  const backends = {
    ...options,
    queue,
    logger,
    hasher: await TermHasher.fromSecret(options.secret),
    lexicon: new LexicalIndex((owner, namespace) => options.vectors.terms(owner, namespace)),
  };
  const service = createMemoryService(backends);
  const worker = createWorker(backends);
  const directory = new CachedAccountDirectory(options.directory, {
    positiveTtlMs: options.accountCacheMs,
    negativeTtlMs: options.accountCacheMs && Math.min(options.accountCacheMs, 10_000),
  });
  const replayGuard = options.replayGuard ?? new KvReplayGuard(options.kv);
  const routes = [
    ...serviceRoutes({
      mode: options.mode ?? "embedded",
      packageId: options.packageId ?? "",
      backends: {
        chain: options.directory.name,
        cipher: options.cipher.name,
        blobStore: options.blobs.name,
        vectorStore: options.vectors.name,
        embedder: options.embedder.model,
        llm: options.llm?.name ?? "none",
      },
      sidecar: () => options.sidecar?.status() ?? "down",
      mcpSessions: () => options.sidecar?.sessions() ?? 0,
    }),
    ...accountRoutes(),
    ...memoryRoutes(service, () => options.vectors.dimensions),
    ...llmRoutes(
      options.llm &&
        createLlmService({ ...options, llm: options.llm, memories: service }),
    ),
    ...sidecarRoutes(
      options.sidecar,
      new RateLimiter(options.sponsorRatePerMinute ?? 30, 60_000),
    ),
  ];

  function addressOf(request: Request, info?: ConnectionInfo): string {
    // The proxy appends the address it saw: the last entry is the one to trust.
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (options.trustProxy && forwarded) return forwarded;
    const remote = info?.remoteAddr;
    return remote && "hostname" in remote ? remote.hostname : "unknown";
  }

  let closing = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  if (options.processJobs ?? true) {
    queue.listen(async ({ job_id }) => {
      if (!closing) await worker.process(job_id);
    }).catch((error) => logger.error("job queue listener stopped", { error }));
    await reconcileJobs(queue, logger, { startup: true });
    timer = setInterval(() => {
      reconcileJobs(queue, logger, { startup: false })
        .catch((error) => logger.error("reconciler failed", { error }));
    }, options.reconcileIntervalMs ?? 60_000);
  }

  async function dispatch(
    request: Request,
    requestId: string,
    clientAddress: string,
  ): Promise<Response> {
    const match = matchRoute(routes, request.method, request.url);
    if (match.kind === "none") {
      throw new SvcError("not_found", `No route for ${new URL(request.url).pathname}`);
    }
    if (match.kind === "wrong_method") {
      throw new SvcError("method_not_allowed", `Method ${request.method} is not allowed here`, {
        headers: { allow: match.allow.join(", ") },
        details: { allow: match.allow.join(", ") },
      });
    }
    const body = match.route.streamBody ? new Uint8Array() : await readBody(request);
    const caller = match.route.signed
      ? await verifySignedRequest(request, body, { directory, replayGuard, now: options.now })
      : undefined;
    const context: HandlerContext = {
      request,
      params: match.params,
      requestId,
      clientAddress,
      caller: caller!,
      json: () => parseJsonObject(request, body),
    };
    return await match.route.handle(context);
  }

  return {
    service,
    queue,
    worker,
    async handler(request: Request, info?: ConnectionInfo): Promise<Response> {
      const incoming = request.headers.get("x-request-id");
      const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
      const started = performance.now();
      let response: Response;
      try {
        response = await dispatch(request, requestId, addressOf(request, info));
      } catch (error) {
        response = errorResponse(error, requestId, logger);
      }
      response.headers.set("x-request-id", requestId);
      logger.debug("request", {
        request_id: requestId,
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        ms: Math.round(performance.now() - started),
      });
      return response;
    },
    async close() {
      closing = true;
      clearInterval(timer);
      await worker.idle();
    },
  };
}
