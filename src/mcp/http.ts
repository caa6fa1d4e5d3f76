/**
 * MCP over HTTP, as the sidecar serves it: routes for the HTTP kernel, Streamable HTTP on
 * `/api/mcp` and the legacy SSE transport on `/api/mcp/sse` + `/api/mcp/messages`. Every
 * request carries the bearer (a delegate private key) and `x-svc-account-id`; sessions are
 * opened and found again as `http_sessions.ts` says.
 */
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { type Route, route, type RouteContext } from "../http/router.ts";
import { preflight } from "./cors.ts";
import { guarded, type Identity } from "./http_auth.ts";
import { answerInSession, type McpSessionOptions, openSession } from "./http_sessions.ts";
import { MESSAGES_PATH, serveSse, serveStreamable } from "./http_transports.ts";
import { readJsonRpcBody, rpcError } from "./json_rpc_body.ts";
import { idOf } from "./messages.ts";

export { MAX_CALLS_IN_FLIGHT } from "./calls_in_flight.ts";
export type { McpSession } from "./http_sessions.ts";

/** What the MCP routes need: how sessions open, and the origins a browser may call from. */
export interface McpHttpOptions extends McpSessionOptions {
  /** Origins a browser may call from; any other `Origin` is refused (DNS rebinding). */
  allowedOrigins: string[];
}

/**
 * The MCP routes (answers are JSON-RPC errors, as MCP clients expect, and bodies are read
 * here, up to 4 MiB, so that refusals come before reading them).
 */
export function mcpRoutes(options: McpHttpOptions): Route[] {
  const { sessions, allowedOrigins } = options;

  async function streamable(request: Request, identity: Identity, address: string) {
    const body = request.method === "POST" ? await readJsonRpcBody(request) : undefined;
    if (body instanceof Response) return body;
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) {
      return await answerInSession(sessions, sessionId, "streamable", identity, request, body);
    }
    const initializing = Array.isArray(body)
      ? body.some(isInitializeRequest)
      : isInitializeRequest(body);
    if (request.method !== "POST" || !initializing) {
      return rpcError(400, "No session: send an initialize request without mcp-session-id first");
    }
    if (Array.isArray(body) && body.length > 1) {
      // Refused before a session is opened (and counted against the address's openings).
      return rpcError(400, "An initialize request is sent alone, not in a batch", { code: -32600 });
    }
    const opened = await openSession(options, identity, request, address, "streamable", idOf(body));
    if (opened instanceof Response) return opened;
    return await serveStreamable(opened, request, body);
  }

  async function sse(request: Request, identity: Identity, address: string) {
    const opened = await openSession(options, identity, request, address, "sse");
    if (opened instanceof Response) return opened;
    return await serveSse(opened);
  }

  async function messages(request: Request, identity: Identity): Promise<Response> {
    const sessionId = new URL(request.url).searchParams.get("sessionId");
    if (!sessionId) return rpcError(400, "Missing sessionId query parameter");
    const body = await readJsonRpcBody(request);
    if (body instanceof Response) return body;
    return await answerInSession(sessions, sessionId, "sse", identity, request, body);
  }

  const streamed = { streamBody: true };
  const answerPreflight = ({ request }: RouteContext) =>
    Promise.resolve(preflight(request, allowedOrigins));
  return [
    route("GET", "/api/mcp", guarded(allowedOrigins, streamable), streamed),
    route("POST", "/api/mcp", guarded(allowedOrigins, streamable), streamed),
    route("DELETE", "/api/mcp", guarded(allowedOrigins, streamable), streamed),
    route("GET", "/api/mcp/sse", guarded(allowedOrigins, sse), streamed),
    route("POST", MESSAGES_PATH, guarded(allowedOrigins, messages), streamed),
    ...["/api/mcp", "/api/mcp/sse", MESSAGES_PATH].map((path) =>
      route("OPTIONS", path, answerPreflight)
    ),
  ];
}
