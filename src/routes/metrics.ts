/**
 * `GET /metrics`: the relayer's metrics in the Prometheus text format. Without a token it
 * answers loopback clients only, asking for one of the relayer's names as `Host` (403 otherwise;
 * behind a trusted proxy, both the connection and the forwarded client address must be
 * loopback); with `token` (`SVC_METRICS_TOKEN`) it asks every client, loopback included, for
 * `Authorization: Bearer <token>`, compared in constant time. Wrong tokens count as failed
 * authentications of the client's address, as bad signatures do, so that guessing is
 * rate-limited (429).
 */
import { timingSafeEqual } from "@svc/util/keys";
import type { AuthFailureLimiter } from "../auth/failure_limiter.ts";
import { SvcError } from "../errors.ts";
import { isLoopbackAddress } from "../http/relayer_names.ts";
import { peerAddress } from "../http/router.ts";
import { EXPOSITION_CONTENT_TYPE, type MetricsRegistry } from "../metrics/registry.ts";
import { type HandlerContext, route } from "./context.ts";

/** Who may read the metrics. */
export interface MetricsAccess {
  /** The bearer token every client must send; without one, loopback clients only. */
  token?: string;
  /** Counts wrong tokens per client address, and refuses an address past its limit. */
  failures: AuthFailureLimiter;
  /**
   * Refuses a `Host` that is not the relayer's, without a token: a web page whose name was
   * rebound to 127.0.0.1 would otherwise read the metrics through the browser of this machine.
   */
  checkHost?: (request: Request) => void;
}

/**
 * Whether the request comes from this machine: its connection's peer is a loopback address, and
 * so is the client address (which, behind a trusted proxy, is the one the proxy forwarded).
 */
function fromThisMachine({ clientAddress, info }: HandlerContext): boolean {
  return isLoopbackAddress(peerAddress(info)) && isLoopbackAddress(clientAddress);
}

function admit(context: HandlerContext, access: MetricsAccess): void {
  const { request, clientAddress } = context;
  const { token, failures } = access;
  if (!token) {
    if (fromThisMachine(context)) return access.checkHost?.(request);
    throw new SvcError(
      "forbidden",
      "Cannot read the metrics from another machine: set SVC_METRICS_TOKEN on the relayer " +
        "and send it as a bearer token",
      { details: { reason: "not_loopback" } },
    );
  }
  const wait = failures.refusal(clientAddress, null);
  if (wait !== undefined) {
    throw new SvcError(
      "rate_limited",
      "Cannot read the metrics: too many authentications from this address failed in the " +
        "last minute",
      { details: { retry_after_seconds: wait } },
    );
  }
  const sent = /^Bearer (.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  if (!timingSafeEqual(sent, token)) {
    failures.failed(clientAddress);
    throw new SvcError(
      "unauthorized",
      "Cannot read the metrics: send Authorization: Bearer <SVC_METRICS_TOKEN>",
      { details: { reason: "bad_token" }, headers: { "www-authenticate": "Bearer" } },
    );
  }
}

/** The route, serving `registry`. */
export function metricsRoutes(registry: MetricsRegistry, access: MetricsAccess) {
  return [
    route("GET", "/metrics", (context) => {
      admit(context, access);
      return Promise.resolve(
        new Response(registry.exposition(), {
          headers: { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" },
        }),
      );
    }, {
      doc: {
        tag: "service",
        summary: "Metrics in the Prometheus text format (version 0.0.4)",
        description: "Loopback clients only, unless `SVC_METRICS_TOKEN` is set: then every " +
          "client sends it as a bearer token. No label names an owner, a key or a namespace.",
        security: [{}, { metricsToken: [] }],
        responses: {
          200: {
            description: "The metrics.",
            contentType: EXPOSITION_CONTENT_TYPE,
            example: 'svc_http_requests_total{method="POST",route="/api/recall",status="200"} 42\n',
          },
          401: { description: "`SVC_METRICS_TOKEN` is set and the bearer token is not it." },
          403: { description: "No token is set and the client is not on this machine." },
          429: { description: "Too many wrong tokens from this address in the last minute." },
        },
      },
    }),
  ];
}
