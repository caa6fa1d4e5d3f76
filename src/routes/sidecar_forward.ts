/** A request forwarded to the MCP sidecar over loopback, and the sidecar's answer to it. */
import { SvcError } from "../errors.ts";
import type { SidecarLink } from "../sidecar/link.ts";
import type { HandlerContext } from "./context.ts";

const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "content-length",
  "content-encoding",
];

/** The sidecar is down (`cause` undefined), or the request to it failed. */
function unavailable(cause?: unknown): SvcError {
  return new SvcError(
    "backend_unavailable",
    `Cannot reach the MCP sidecar: ${cause ? "it did not answer" : "it is not running"}; ` +
      "try again in a few seconds",
    { cause, headers: { "retry-after": "2" } },
  );
}

/**
 * Sends the request of `context`, with `body`, to the sidecar and answers with its response
 * (streamed); 503 `backend_unavailable` when there is no sidecar, it is down, or it fails.
 */
export async function forwardToSidecar(
  link: SidecarLink | undefined,
  { request, clientAddress, requestId }: HandlerContext,
  body: BodyInit | null,
): Promise<Response> {
  if (!link || link.status() === "down") throw unavailable();
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  for (const name of HOP_BY_HOP) headers.delete(name);
  headers.set("x-forwarded-for", clientAddress);
  headers.set("x-sidecar-token", link.token);
  headers.set("x-request-id", requestId);
  let upstream: Response;
  try {
    upstream = await fetch(new URL(url.pathname + url.search, link.url), {
      method: request.method,
      headers,
      body,
      redirect: "manual",
      // A sidecar found hung fails the calls waiting on it at once; one stopping answers them.
      signal: link.unanswered,
    });
  } catch (cause) {
    throw unavailable(cause);
  }
  const answer = new Headers(upstream.headers);
  for (const name of HOP_BY_HOP) answer.delete(name);
  return new Response(upstream.body, { status: upstream.status, headers: answer });
}
