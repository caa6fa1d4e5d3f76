/**
 * A session just opened, connected to its transport: Streamable HTTP, each call answered in
 * JSON, or the legacy SSE stream, its messages posted to `MESSAGES_PATH`.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { rpcError } from "./json_rpc_body.ts";
import { connectCountingCalls, IN_PROGRESS } from "./calls_in_flight.ts";
import { type OpenedSession, sessionNotFound } from "./http_sessions.ts";
import { CALL_REFUSED, requestIds } from "./messages.ts";
import { SseServerTransport } from "./sse_transport.ts";

/** Where the clients of SSE sessions post their messages. */
export const MESSAGES_PATH = "/api/mcp/messages";

/**
 * Connects a Streamable HTTP session and answers its first `request` (its initialize
 * request); a session the transport did not keep is closed again.
 */
export async function serveStreamable(
  { server, session }: OpenedSession,
  request: Request,
  body: unknown,
): Promise<Response> {
  // Each call is answered in JSON once its result is ready (no tool sends anything before): a
  // call cut off by a restart fails at once, where an event stream under way (it carries no
  // event ids to resume from) left the client waiting for its time limit.
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => session.id,
    enableJsonResponse: true,
  });
  const calls = await connectCountingCalls(server, transport, session);
  // A call whose session ends before it is answered (DELETE, eviction, shutdown) is told so:
  // its request would otherwise wait for an answer that never comes.
  const waiting = new Set<(answer: Response) => void>();
  const close = server.server.onclose;
  server.server.onclose = () => {
    close?.();
    for (const answer of waiting) answer(sessionNotFound());
  };
  session.handle = (req, parsedBody) => {
    // An id in use is refused before the transport sees it: it would answer this request
    // in the place of the one in progress.
    const ids = requestIds(parsedBody);
    const reused = ids.find((id, i) => calls.has(id) || ids.indexOf(id) !== i);
    if (reused !== undefined) {
      return Promise.resolve(rpcError(400, IN_PROGRESS, { code: CALL_REFUSED, id: reused }));
    }
    const answer = transport.handleRequest(req, { parsedBody });
    if (req.method === "DELETE") return answer;
    return new Promise((resolve, reject) => {
      waiting.add(resolve);
      answer.then(resolve, reject).finally(() => waiting.delete(resolve));
    });
  };
  const response = await session.handle(request, body);
  if (!transport.sessionId) await server.close();
  return response;
}

/** Connects an SSE session; answers with its event stream. */
export async function serveSse({ server, session }: OpenedSession): Promise<Response> {
  const transport = new SseServerTransport(session.id, MESSAGES_PATH);
  session.handle = (_req, body) => {
    try {
      transport.handleMessage(body);
    } catch {
      return Promise.resolve(rpcError(400, "Invalid JSON-RPC message", { code: -32600 }));
    }
    return Promise.resolve(new Response("Accepted", { status: 202 }));
  };
  await connectCountingCalls(server, transport, session);
  return transport.response;
}
