/**
 * A relayer's route table: every route of the HTTP API, logged to the owners' access logs, with
 * the health report's backends and states.
 */
import { addressOf } from "@svc/util/keys";
import { AuthFailureLimiter } from "./auth/failure_limiter.ts";
import { EmbedderBudget, withEmbedderBudget } from "./embedder_budget.ts";
import { hostGuard, LOOPBACK_HOSTS } from "./http/relayer_names.ts";
import type { Route } from "./http/router.ts";
import type { Logger } from "./log.ts";
import { RateLimiter } from "./rate_limiter.ts";
import { accessLogRoutes, withAccessLog } from "./routes/access_log.ts";
import { accountRoutes } from "./routes/account.ts";
import { blindRoutes, type KeyOfAccount } from "./routes/blind.ts";
import { answeringOnceClaimed, type HandlerContext } from "./routes/context.ts";
import { lifecycleRoutes } from "./routes/lifecycle.ts";
import { llmRoutes } from "./routes/llm.ts";
import { memoryRoutes } from "./routes/memories.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { portabilityRoutes } from "./routes/portability.ts";
import { referenceNamespaceRoutes } from "./routes/reference_namespaces.ts";
import { type HealthInfo, serviceRoutes } from "./routes/service.ts";
import { sidecarRoutes } from "./routes/sidecar.ts";
import { createExportService } from "./services/export.ts";
import { createLlmService } from "./services/llm.ts";
import type { RelayerOptions } from "./relayer_options.ts";
import type { RelayerServices } from "./relayer_wiring.ts";

/** What the route table needs besides the options and the services. */
export interface RelayerRouteState {
  /** Whether the relayer drains, about to stop (`/health` answers 503 `stopping`). */
  stopping: () => boolean;
  logger: Logger;
}

/** The route table of a relayer (also what `GET /openapi.json` describes). */
export function relayerRoutes(
  options: RelayerOptions,
  services: RelayerServices,
  { stopping, logger }: RelayerRouteState,
): Route<HandlerContext>[] {
  const { service, lifecycle, metrics, accessLog } = services;
  const { embedder, vectors } = options;
  /** The relayer's names, asked of the routes a web page on this machine must not reach. */
  const checkHost = hostGuard(options.allowedHosts ?? LOOPBACK_HOSTS);
  // The routes that embed text are admitted by their cost to the embedder.
  const budget = new EmbedderBudget({ ...options.embedderBudget, now: options.now });
  const routes: Route<HandlerContext>[] = withAccessLog(
    answeringOnceClaimed(withEmbedderBudget([
      ...serviceRoutes(healthInfo(options, services, stopping)),
      ...accountRoutes(),
      ...memoryRoutes(service, lifecycle, () => options.vectors.dimensions),
      ...lifecycleRoutes(lifecycle),
      ...referenceNamespaceRoutes(lifecycle),
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
      ...(services.blind ? blindRoutes(services.blind, keyOfAccount(options)) : []),
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
    ], budget)),
    accessLog,
  );
  return routes;
}

/** What `/health` reports: the mode, the backends, the receipt key and the states read live. */
function healthInfo(
  options: RelayerOptions,
  services: RelayerServices,
  stopping: () => boolean,
): HealthInfo {
  return {
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
    receiptKey: services.identity.publicKey,
    sidecar: () => options.sidecar?.status() ?? "down",
    mcpSessions: () => options.sidecar?.sessions() ?? 0,
    stopping,
    writes: () => options.diskSpace?.low ? "refused" : "accepted",
    jobs: () => services.metrics.jobCounts(),
    origins: options.audiences,
    operatorBlind: services.blind !== undefined,
  };
}

/** Whether a key belongs to an account, as the account directory resolves it: a key or its owner's. */
function keyOfAccount(options: RelayerOptions): KeyOfAccount {
  const { directory } = options;
  return async (publicKey, accountId) =>
    (await directory.resolve(publicKey, accountId))?.accountId === accountId ||
    (await directory.resolveOwner?.(addressOf(publicKey)))?.accountId === accountId;
}
