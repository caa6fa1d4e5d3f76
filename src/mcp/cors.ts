/**
 * CORS for the MCP routes: a page of an origin in `SVC_ALLOWED_ORIGINS` calls them from a
 * browser. Its preflight (`OPTIONS`) is answered, and each answer to it names its origin and
 * lets it read the session id and the headers that explain a refusal. Any other origin is
 * refused (403) by the routes themselves.
 */
import { rpcError } from "./json_rpc_body.ts";

const METHODS = "GET, POST, DELETE";
/** What an MCP client sends besides the simple headers. */
const REQUEST_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "last-event-id",
  "mcp-session-id",
  "mcp-protocol-version",
  "x-svc-account-id",
  "x-svc-namespace",
].join(", ");
/** What a page may read of an answer. */
const EXPOSED_HEADERS = "mcp-session-id, retry-after, www-authenticate, x-request-id";

/** The refusal of an origin not allowed. */
export function originRefused(origin: string): Response {
  return rpcError(403, `Origin ${origin} is not allowed (set SVC_ALLOWED_ORIGINS)`);
}

/** The answer to an `OPTIONS` request of an MCP route. */
export function preflight(request: Request, allowedOrigins: string[]): Response {
  const origin = request.headers.get("origin");
  if (origin === null) return new Response(null, { status: 204, headers: { allow: METHODS } });
  if (!allowedOrigins.includes(origin)) return originRefused(origin);
  return new Response(null, {
    status: 204,
    headers: {
      allow: METHODS,
      "access-control-allow-origin": origin,
      "access-control-allow-methods": METHODS,
      "access-control-allow-headers": REQUEST_HEADERS,
      "access-control-max-age": "600",
      vary: "origin",
    },
  });
}

/** `response` readable by a page of `origin` (an allowed one). */
export function withCors(response: Response, origin: string): Response {
  const headers = new Headers(response.headers);
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-expose-headers", EXPOSED_HEADERS);
  headers.append("vary", "origin");
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
