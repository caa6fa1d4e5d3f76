/**
 * Routes the relayer forwards to the MCP sidecar over loopback: the MCP transports (for an
 * allowed `Host` only; responses streamed, request bodies read first under the relayer's body
 * budget and time limit, since the sidecar buffers them anyway) and the public
 * sponsored-transaction endpoints (bodies capped at 64 KiB, rate-limited per client address
 * before they are read, then read the same way).
 */
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { requireJsonType } from "../http/body.ts";
import type { RateLimiter } from "../rate_limiter.ts";
import { MAX_SPONSOR_BODY_BYTES, type SidecarLink } from "../sidecar/link.ts";
import { text } from "../http/fields.ts";
import { FailureLog } from "../http/respond.ts";
import type { Route, RouteDoc } from "../http/router.ts";
import { type HandlerContext, route } from "./context.ts";
import { forwardToSidecar } from "./sidecar_forward.ts";
import { MAX_MCP_BODY_BYTES, mcpBodyTooLarge, rpcError } from "../mcp/json_rpc_body.ts";

/** A forwarded route's handler. */
type Forward = Route<HandlerContext>["handle"];

/**
 * The forwarded routes; `checkHost` refuses an MCP request whose `Host` is not one of the
 * relayer's names (DNS rebinding).
 */
export function sidecarRoutes(
  link: SidecarLink | undefined,
  sponsorLimiter: RateLimiter,
  checkHost: (request: Request) => void,
  logger: Logger,
): Route<HandlerContext>[] {
  const mcp = forwardMcp(link, checkHost, new FailureLog(logger));
  const sponsor = forwardSponsor(link, sponsorLimiter);
  return [...mcpRoutes(mcp), ...sponsorRoutes(sponsor)];
}

/**
 * Forwards an MCP request. MCP clients read JSON-RPC errors: a refusal here (a `Host` not
 * allowed, a body too large, too slow or over the budget, the sidecar down) is one too.
 */
function forwardMcp(
  link: SidecarLink | undefined,
  checkHost: (request: Request) => void,
  failures: FailureLog,
): Forward {
  return async (context) => {
    try {
      checkHost(context.request);
      const body = context.request.method === "POST"
        ? await context.readBody(MAX_MCP_BODY_BYTES)
        : null;
      return await forwardToSidecar(link, context, body);
    } catch (error) {
      if (
        !(error instanceof SvcError) || error.status >= 500 && error.code !== "backend_unavailable"
      ) {
        throw error;
      }
      // The sidecar answers this one so for smaller limits.
      if (error.code === "payload_too_large") return mcpBodyTooLarge();
      if (error.code === "backend_unavailable") failures.failed(context.requestId, error);
      const data = Object.keys(error.details).length ? error.details : undefined;
      return rpcError(error.status, error.message, { headers: error.headers, data });
    }
  };
}

/** Forwards a sponsored-transaction request, once the client's address may send one. */
function forwardSponsor(link: SidecarLink | undefined, sponsorLimiter: RateLimiter): Forward {
  return async (context) => {
    // Before the budget is taken: another site's page can post only other types (no-cors), and
    // must not spend the owner's budget.
    requireJsonType(context.request);
    const decision = sponsorLimiter.take(context.clientAddress);
    if (!decision.ok) {
      throw new SvcError("rate_limited", "Too many sponsored transactions from this address", {
        details: { retry_after_seconds: decision.retryAfterSeconds },
      });
    }
    return await forwardToSidecar(link, context, await context.readBody(MAX_SPONSOR_BODY_BYTES));
  };
}

const streamed = { streamBody: true };

/** An error MCP clients read: a JSON-RPC answer. */
function rpc(description: string, code: number, message: string, data?: unknown) {
  return {
    description,
    schema: { $ref: "#/components/schemas/JsonRpcError" },
    example: {
      jsonrpc: "2.0",
      error: { code, message, ...(data !== undefined && { data }) },
      id: null,
    },
  };
}

/** The errors of every MCP route; `session`: one that names a session; `body`: a POST. */
function mcpErrors(options: { session: boolean; body: boolean }): RouteDoc["responses"] {
  const errors: RouteDoc["responses"] = {
    401: rpc(
      "No bearer or `x-svc-account-id`, or ones the relayer refuses; `WWW-Authenticate` " +
        "names the scheme.",
      -32000,
      "The relayer refused these credentials: …",
    ),
    403: rpc(
      "A `Host` not among the relayer's names (`data.reason`: `host_not_allowed`), an " +
        "`Origin` not allowed, or a session of another identity.",
      -32000,
      "Origin … is not allowed (set SVC_ALLOWED_ORIGINS)",
    ),
    429: rpc(
      "Too many sessions for this key or address, or too many failed sign-ins; see " +
        "`Retry-After`.",
      -32000,
      "Too many MCP sessions: …",
    ),
    503: rpc(
      "The sidecar is down or restarting, or the relayer cannot check the bearer; see " +
        "`Retry-After`.",
      -32000,
      "Cannot reach the MCP sidecar: it is not running; try again in a few seconds",
    ),
  };
  const bad = [
    "An `x-svc-namespace` that is no namespace",
    ...(options.session ? ["no session named, or none yet (send `initialize` first)"] : []),
    ...(options.body ? ["not a JSON-RPC message or batch, or a body cut short"] : []),
  ];
  errors[400] = options.body
    ? rpc(`${bad.join("; ")}.`, -32700, "Parse error: the body is not JSON")
    : rpc(`${bad.join("; ")}.`, -32000, "x-svc-namespace must be …");
  if (options.session) {
    errors[404] = rpc(
      "No session by this id: it ended or expired; start a new one.",
      -32001,
      "Session not found: it ended or expired; start a new one",
    );
    errors[409] = rpc(
      "The session is still opening; retry.",
      -32000,
      "The session is still opening; retry",
    );
  }
  if (options.body) {
    errors[413] = rpc(
      "The message is over 4 MiB (`data.limit_bytes`).",
      -32000,
      `Request body exceeds ${MAX_MCP_BODY_BYTES} bytes`,
      { limit_bytes: MAX_MCP_BODY_BYTES },
    );
    errors[415] = rpc("The body is not `application/json`.", -32000, "Unsupported Media Type: …");
  }
  return errors;
}

/**
 * An MCP route forwarded by `mcp`, documented by `summary`, its own `responses`, and its errors
 * (`session`: one that names a session; `body`: a POST's).
 */
function mcpRoute(
  mcp: Forward,
  method: Route["method"],
  path: string,
  summary: string,
  responses: RouteDoc["responses"],
  options: { session: boolean; body?: RouteDoc["body"] },
): Route<HandlerContext> {
  return route(method, path, mcp, {
    ...streamed,
    doc: {
      tag: "mcp",
      summary,
      description: "Forwarded to the MCP sidecar. Errors are JSON-RPC answers (`JsonRpcError`), " +
        "as MCP clients read them.",
      security: [{ mcpBearer: [], mcpAccount: [] }],
      body: options.body,
      responses: { ...mcpErrors({ session: options.session, body: !!options.body }), ...responses },
    },
  });
}

/** The body of an MCP POST. */
const mcpMessage = {
  description: "A JSON-RPC message (or batch) of the Model Context Protocol.",
  example: { jsonrpc: "2.0", id: 1, method: "tools/list" },
};

/** The MCP transports: Streamable HTTP, legacy SSE, and their CORS preflights. */
function mcpRoutes(mcp: Forward): Route<HandlerContext>[] {
  return [
    mcpRoute(mcp, "GET", "/api/mcp", "MCP Streamable HTTP: the server's event stream", {
      200: { description: "An event stream.", contentType: "text/event-stream" },
    }, { session: true }),
    mcpRoute(mcp, "POST", "/api/mcp", "MCP Streamable HTTP: send a message", {
      200: { description: "The answer, as JSON or an event stream." },
      202: { description: "A notification or answer, accepted." },
    }, { session: true, body: mcpMessage }),
    mcpRoute(mcp, "DELETE", "/api/mcp", "MCP Streamable HTTP: end the session", {
      200: { description: "Ended." },
    }, { session: true }),
    mcpRoute(mcp, "GET", "/api/mcp/sse", "MCP over SSE (legacy): open a session's event stream", {
      200: {
        description: "An event stream; its first event names the messages URL.",
        contentType: "text/event-stream",
      },
    }, { session: false }),
    mcpRoute(
      mcp,
      "POST",
      "/api/mcp/messages",
      "MCP over SSE (legacy): send a message to a session (`?sessionId=`)",
      {
        202: { description: "Accepted; the answer comes on the event stream." },
      },
      { session: true, body: mcpMessage },
    ),
    ...["/api/mcp", "/api/mcp/sse", "/api/mcp/messages"].map((path) =>
      route("OPTIONS", path, mcp, {
        ...streamed,
        doc: {
          tag: "mcp",
          summary: "CORS preflight of a page of an origin in `SVC_ALLOWED_ORIGINS`",
          description: "Forwarded to the MCP sidecar. Without `Origin`, 204 with `Allow`.",
          responses: {
            204: { description: "Allowed: the `Access-Control-Allow-*` headers." },
            403: rpc("An `Origin` not allowed.", -32000, "Origin … is not allowed"),
          },
        },
      })
    ),
  ];
}

/** A sponsor route forwarded by `sponsor`: `summary`, its body and an example of its answer. */
function sponsorRoute(
  sponsor: Forward,
  path: string,
  summary: string,
  body: RouteDoc["body"],
  example: unknown,
): Route<HandlerContext> {
  return route("POST", path, sponsor, {
    ...streamed,
    doc: {
      tag: "sponsor",
      summary,
      description: "Forwarded to the sidecar's sponsor; rate-limited per client address.",
      body,
      responses: {
        200: { description: "Done.", example },
        400: {
          description: "A missing or invalid field, or a transaction the sponsor does not pay " +
            "for; `reason` names why (`malformed`, `expired`, `not_owner`, …).",
        },
        401: { description: "The owner's signature does not verify (`bad_signature`)." },
        403: {
          description: "A transaction the sponsor does not pay for: not a call into the " +
            "account package's functions (`not_sponsored`).",
        },
        409: {
          description: "Refused against the ledger's state: `replayed`, `account_exists`, " +
            "`duplicate_key`.",
        },
        413: { description: "The body is over 64 KiB." },
        429: { description: "Too many sponsored transactions from this address." },
        501: { description: "No sponsor is configured for this chain." },
        503: { description: "The sidecar is down." },
      },
    },
  });
}

/** The schema of a string of at most `max` bytes. */
function stringSchema(description: string, max: number) {
  return text({ max, description }).schema();
}

/** The sponsored-transaction endpoints. */
function sponsorRoutes(sponsor: Forward): Route<HandlerContext>[] {
  return [
    sponsorRoute(sponsor, "/sponsor", "Sponsor a ledger transaction (its gas is paid)", {
      description: "`{transactionKind (base64), sender}`, at most 64 KiB.",
      example: { transactionKind: "AAACAQ…", sender: "0x…" },
      schema: {
        type: "object",
        required: ["transactionKind", "sender"],
        properties: {
          transactionKind: {
            type: "string",
            contentEncoding: "base64",
            description: "The transaction's kind (its commands, without gas), BCS in base64.",
          },
          sender: stringSchema("The owner's address (`0x…`), who signs the transaction.", 256),
        },
      },
    }, { bytes: "AAAC…", digest: "5Hq…" }),
    sponsorRoute(sponsor, "/sponsor/execute", "Execute a sponsored transaction the owner signed", {
      description: "`{digest, signature}`, at most 64 KiB.",
      example: { digest: "5Hq…", signature: "AJ3…" },
      schema: {
        type: "object",
        required: ["digest", "signature"],
        properties: {
          digest: stringSchema("The digest `/sponsor` answered.", 256),
          signature: stringSchema(
            "The owner's signature of the sponsored bytes (Sui, base64).",
            4096,
          ),
        },
      },
    }, { digest: "5Hq…", effects: {} }),
  ];
}
