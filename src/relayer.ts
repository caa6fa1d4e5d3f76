/**
 * `createRelayer(options)`: the relayer as a request handler plus its background worker.
 * Backends are injected; nothing here opens files, databases or ports. Its parts: the services
 * and the worker (`relayer_wiring.ts`), the route table (`relayer_routes.ts`), the checks of
 * signed requests (`relayer_admission.ts`) and the background work (`relayer_background.ts`).
 *
 * @example
 * ```ts
 * const stores = await openKvStores(kv, secret); // @svc/denokv
 * const relayer = await createRelayer({
 *   ...stores,
 *   secret,
 *   directory,
 *   cipher,
 *   blobs,
 *   vectors,
 *   embedder,
 * });
 * Deno.serve(relayer.handler);
 * ```
 */
import type { SignedHeaders } from "./auth/verify.ts";
import { BodyBudget } from "./http/body_budget.ts";
import { createHttpHandler, type HttpHandler } from "./http/kernel.ts";
import type { Route } from "./http/router.ts";
import type { JobQueue } from "./jobs/job_queue.ts";
import type { Worker } from "./remember/worker.ts";
import { silentLogger } from "./log.ts";
import type { RelayerMetrics } from "./metrics/relayer_metrics.ts";
import type { HandlerContext } from "./routes/context.ts";
import type { AccessLog } from "./services/access_log.ts";
import type { LifecycleService } from "./services/lifecycle.ts";
import type { MemoryService } from "./services/memories.ts";
import { clientAddressOf, signedRequestChecks } from "./relayer_admission.ts";
import { startBackgroundWork } from "./relayer_background.ts";
import { relayerRoutes } from "./relayer_routes.ts";
import { checkRelayerOptions, wireRelayerServices } from "./relayer_wiring.ts";

export type { RelayerOptions } from "./relayer_options.ts";
import type { RelayerOptions } from "./relayer_options.ts";

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

/** Builds a relayer from its backends; nothing is opened here. */
export async function createRelayer(options: RelayerOptions): Promise<Relayer> {
  const { handler, drain, close } = await assembleRelayer(options);
  return { handler, drain, close };
}

/** {@link createRelayer}, keeping the memory service, job queue and worker reachable. */
export async function assembleRelayer(options: RelayerOptions): Promise<AssembledRelayer> {
  const logger = options.logger ?? silentLogger;
  checkRelayerOptions(options);
  const services = await wireRelayerServices(options, logger);
  const signedRequests = signedRequestChecks(options);
  let draining = false;
  const routes = relayerRoutes(options, services, { stopping: () => draining, logger });
  const { service, lifecycle, queue, worker, metrics, accessLog } = services;
  const background = await startBackgroundWork({ ...services, logger, options });
  const handler = createHttpHandler<HandlerContext, SignedHeaders | undefined>({
    routes,
    logger,
    clientAddress: clientAddressOf(options),
    bodyBudget: new BodyBudget({
      totalBytes: options.bodyBudgetBytes,
      perAddressBytes: options.bodyBudgetPerAddressBytes,
    }),
    bodyTimeoutMs: options.bodyTimeoutMs ?? 10_000,
    observe: metrics.request,
    ...signedRequests,
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
      await background.stop();
      await accessLog.close();
    },
  };
}
