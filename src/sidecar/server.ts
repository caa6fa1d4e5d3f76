/**
 * The sidecar's request handler: MCP over HTTP (`/api/mcp*`), the sponsored-transaction
 * endpoints, and `/health`. Only the relayer talks to it: every request must carry the
 * per-start secret in `x-sidecar-token`, and the client address arrives in `x-forwarded-for`.
 */
import { timingSafeEqual } from "../auth/compare.ts";
import type { Sponsor } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { parseJsonObject, readBody } from "../http/body.ts";
import { errorResponse, jsonResponse } from "../http/respond.ts";
import { base64Field, requiredText } from "../http/validate.ts";
import type { Logger } from "../log.ts";
import { createMcpHandler, type McpSession } from "../mcp/http.ts";
import { type SessionLimits, SessionRegistry } from "../mcp/sessions.ts";
import { MAX_SPONSOR_BODY_BYTES } from "../routes/sidecar.ts";
import { healthProof } from "./health.ts";

export interface SidecarOptions {
  /** The secret the relayer sends in `x-sidecar-token`. */
  token: string;
  relayerUrl: string;
  /** Sends callers' keys as `x-delegate-key` on decrypting calls (a Seal cipher needs them). */
  sendDelegateKey?: boolean;
  /** Sponsored transactions; without one the sponsor endpoints answer 501. */
  sponsor?: Sponsor;
  limits?: Partial<SessionLimits>;
  allowedOrigins?: string[];
  /** How long `svc_remember` waits for its job (default 20 s). */
  waitMs?: number;
  logger: Logger;
  fetch?: typeof fetch;
  /** Clock of the session limits (Unix ms). */
  now?: () => number;
}

export interface Sidecar {
  handler(request: Request): Promise<Response>;
  sessions: SessionRegistry<McpSession>;
  /** Closes every session and stops idle eviction. */
  close(): Promise<void>;
}

export function createSidecar(options: SidecarOptions): Sidecar {
  const { logger, sponsor } = options;
  const sessions = new SessionRegistry<McpSession>(options.limits, options.now);
  const mcp = createMcpHandler({
    relayerUrl: options.relayerUrl,
    sendDelegateKey: options.sendDelegateKey,
    sessions,
    allowedOrigins: options.allowedOrigins ?? [],
    waitMs: options.waitMs ?? 20_000,
    logger,
    fetch: options.fetch,
  });
  const sweep = setInterval(() => {
    sessions.evictIdle().then((n) => n && logger.info("idle mcp sessions closed", { count: n }));
  }, Math.min(sessions.limits.idleMs, 60_000));

  async function sponsorRoute(request: Request, pathname: string): Promise<Response> {
    if (!sponsor) {
      throw new SvcError(
        "not_implemented",
        "Sponsored transactions are not available: no sponsor is configured for this chain",
      );
    }
    const body = parseJsonObject(request, await readBody(request, MAX_SPONSOR_BODY_BYTES));
    if (pathname === "/sponsor") {
      const kind = base64Field(body, "transactionKind");
      const sent = await sponsor.sponsor(kind, requiredText(body, "sender", 256));
      return jsonResponse(200, { bytes: sent.bytes.toBase64(), digest: sent.digest });
    }
    const digest = requiredText(body, "digest", 256);
    return jsonResponse(200, await sponsor.execute(digest, requiredText(body, "signature", 4096)));
  }

  async function handler(request: Request): Promise<Response> {
    const requestId = request.headers.get("x-request-id") ?? crypto.randomUUID();
    if (!timingSafeEqual(request.headers.get("x-sidecar-token") ?? "", options.token)) {
      return errorResponse(
        new SvcError("forbidden", "Only the relayer may call the sidecar"),
        requestId,
        logger,
      );
    }
    const address = request.headers.get("x-forwarded-for") ?? "unknown";
    const { pathname } = new URL(request.url);
    try {
      if (pathname === "/health" && request.method === "GET") {
        // The proof tells the supervisor it reached this sidecar, not whatever holds the port.
        const nonce = request.headers.get("x-health-nonce") ?? "";
        const proof = await healthProof(options.token, nonce);
        return jsonResponse(200, { status: "ok", sessions: sessions.size, proof });
      }
      if (pathname.startsWith("/api/mcp")) return await mcp.handle(request, address);
      if (
        (pathname === "/sponsor" || pathname === "/sponsor/execute") && request.method === "POST"
      ) {
        return await sponsorRoute(request, pathname);
      }
      throw new SvcError("not_found", `No route for ${pathname}`);
    } catch (error) {
      return errorResponse(error, requestId, logger);
    }
  }

  return {
    handler,
    sessions,
    async close() {
      clearInterval(sweep);
      await sessions.closeAll();
    },
  };
}
