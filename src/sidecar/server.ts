/**
 * The sidecar's request handler, built with the HTTP kernel: MCP over HTTP (`/api/mcp*`), the
 * sponsored-transaction endpoints, and `/health`. Only the relayer talks to it: every request
 * must carry the per-start secret in `x-sidecar-token` and a loopback `Host` (403 before any
 * routing otherwise), and the client address arrives in `x-forwarded-for`.
 */
import { timingSafeEqual } from "@svc/util/keys";
import type { Sponsor } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { createHttpHandler, type HttpHandler } from "../http/kernel.ts";
import { hostGuard, LOOPBACK_HOSTS } from "../http/relayer_names.ts";
import { jsonResponse } from "../http/respond.ts";
import { route, type RouteContext } from "../http/router.ts";
import { base64Value, textValue } from "../validate.ts";
import type { Logger } from "../log.ts";
import { mcpRoutes, type McpSession } from "../mcp/http.ts";
import { type SessionLimits, SessionRegistry } from "../mcp/sessions.ts";
import { MAX_SPONSOR_BODY_BYTES } from "./link.ts";
import { healthProof } from "./health.ts";

/** How long a stopping sidecar waits for its sessions' running calls to be answered. */
const CALLS_GRACE_MS = 4_000;

/** What the sidecar needs: the relayer it serves, the secret it shares with it, its limits. */
export interface SidecarOptions {
  /** The secret the relayer sends in `x-sidecar-token`. */
  token: string;
  /** The relayer the MCP tools call, signing with the caller's key. */
  relayerUrl: string;
  /** Sends callers' keys as `x-delegate-key` on decrypting calls (a Seal cipher needs them). */
  sendDelegateKey?: boolean;
  /** Sponsored transactions; without one the sponsor endpoints answer 501. */
  sponsor?: Sponsor;
  /** Limits on MCP sessions; each one left out keeps its default. */
  limits?: Partial<SessionLimits>;
  /** Origins a browser may call MCP from; a request with any other `Origin` is refused. */
  allowedOrigins?: string[];
  /**
   * The `Host` names it answers to (default the loopback names, on any port: the relayer
   * reaches it on `SIDECAR_URL`); any other gets 403, against DNS rebinding.
   */
  allowedHosts?: readonly string[];
  /** How long `svc_remember` waits for its job (default 20 s). */
  waitMs?: number;
  /** Where the sidecar logs. */
  logger: Logger;
  /** The `fetch` the MCP tools call the relayer with (default the global one). */
  fetch?: typeof fetch;
  /** Clock of the session limits (Unix ms). */
  now?: () => number;
}

/** The sidecar's open MCP sessions. */
export interface SidecarSessions {
  /** How many sessions are open. */
  readonly size: number;
  /** Closes sessions idle for longer than the limit; resolves to how many. */
  evictIdle(): Promise<number>;
  /** Closes every session. */
  closeAll(): Promise<void>;
}

/** A sidecar: its request handler, its sessions, and how to close them. */
export interface Sidecar {
  /** Answers the relayer's forwarded requests; pass it to `Deno.serve`. */
  handler: HttpHandler;
  /** The open MCP sessions; those idle past `limits.idleMs` are closed within a minute. */
  sessions: SidecarSessions;
  /** Closes every session and stops idle eviction. */
  close(): Promise<void>;
}

/** Builds a sidecar; it sweeps idle sessions until `close`. */
export function createSidecar(options: SidecarOptions): Sidecar {
  const { logger, sponsor } = options;
  const sessions = new SessionRegistry<McpSession>(options.limits, options.now);
  const mcp = mcpRoutes({
    relayerUrl: options.relayerUrl,
    sendDelegateKey: options.sendDelegateKey,
    sessions,
    allowedOrigins: options.allowedOrigins ?? [],
    waitMs: options.waitMs ?? 20_000,
    logger,
    fetch: options.fetch,
    relayerToken: options.token,
  });
  const sweep = setInterval(() => {
    sessions.evictIdle().then((n) => n && logger.info("idle mcp sessions closed", { count: n }));
  }, Math.min(sessions.limits.idleMs, 60_000));

  function needSponsor(): NonNullable<SidecarOptions["sponsor"]> {
    if (!sponsor) {
      throw new SvcError(
        "not_implemented",
        "Sponsored transactions are not available: no sponsor is configured for this chain " +
          "(on Sui, SVC_SPONSOR_PRIVATE_KEY)",
      );
    }
    return sponsor;
  }

  const bounded = { maxBodyBytes: MAX_SPONSOR_BODY_BYTES };
  const checkHost = hostGuard(options.allowedHosts ?? LOOPBACK_HOSTS);
  const handler = createHttpHandler({
    logger,
    clientAddress: (request) => request.headers.get("x-forwarded-for") ?? "unknown",
    before(request) {
      if (!timingSafeEqual(request.headers.get("x-sidecar-token") ?? "", options.token)) {
        throw new SvcError("forbidden", "Only the relayer may call the sidecar");
      }
      checkHost(request);
      return undefined;
    },
    routes: [
      route("GET", "/health", async ({ request }: RouteContext) => {
        // The proof tells the supervisor it reached this sidecar, not whatever holds the port.
        const nonce = request.headers.get("x-health-nonce") ?? "";
        const proof = await healthProof(options.token, nonce);
        return jsonResponse(200, { status: "ok", sessions: sessions.size, proof });
      }),
      ...mcp,
      route("POST", "/sponsor", async ({ json }) => {
        const chain = needSponsor();
        const body = json();
        const kind = base64Value(body.transactionKind, "transactionKind");
        const sent = await chain.sponsor(kind, textValue(body.sender, "sender", 256));
        return jsonResponse(200, { bytes: sent.bytes.toBase64(), digest: sent.digest });
      }, bounded),
      route("POST", "/sponsor/execute", async ({ json }) => {
        const chain = needSponsor();
        const body = json();
        const digest = textValue(body.digest, "digest", 256);
        return jsonResponse(
          200,
          await chain.execute(digest, textValue(body.signature, "signature", 4096)),
        );
      }, bounded),
    ],
  });

  return {
    handler,
    sessions,
    async close() {
      clearInterval(sweep);
      // Running tool calls are answered first, within 4 of the supervisor's 5 s before SIGKILL;
      // once the sessions are closed, the server's shutdown has no stream left to wait for.
      await sessions.closeAll(CALLS_GRACE_MS);
    },
  };
}
