/**
 * The calls an MCP session over HTTP is answering: how many it takes at once, which ids are in
 * use, and what a cancelled call ends.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpSession } from "./http_sessions.ts";
import { CALL_CANCELLED, CALL_REFUSED, MAX_BATCH } from "./messages.ts";
import { MEMORY_TOOLS } from "./tool_definitions.ts";

/** The refusal of a call whose id is that of one in progress. */
export const IN_PROGRESS = "A call with this id is in progress: give each call its own";
/**
 * The calls a session answers at once (as many as a batch holds); a client's further ones are
 * refused until one ends.
 */
export const MAX_CALLS_IN_FLIGHT = MAX_BATCH;

/** Why the call `message` is not taken now, as a JSON-RPC error; `undefined` when it is. */
function callRefusal(
  message: JSONRPCMessage & { method: string; id: RequestId },
  calls: Set<RequestId>,
): { code: number; message: string } | undefined {
  const tool = message.method === "tools/call"
    ? (message.params as { name?: unknown } | undefined)?.name
    : undefined;
  if (typeof tool === "string" && !Object.hasOwn(MEMORY_TOOLS, tool)) {
    // A protocol error, as the MCP specification and the stdio package answer it (the
    // SDK's server would answer a tool result with `isError`).
    return { code: ErrorCode.InvalidParams, message: `Unknown tool: ${tool}` };
  }
  if (calls.has(message.id)) return { code: CALL_REFUSED, message: IN_PROGRESS };
  if (calls.size >= MAX_CALLS_IN_FLIGHT) {
    return {
      code: CALL_REFUSED,
      message: `Too many calls in progress in this session (${MAX_CALLS_IN_FLIGHT}): send this ` +
        "one once one of them is answered",
    };
  }
  return undefined;
}

/**
 * Connects `server` to `transport`, keeping the ids of the calls it is answering (an answer
 * counts once it is handed on: on SSE, once written to its client's connection); resolves to
 * them. A call past `MAX_CALLS_IN_FLIGHT`, or with the id of one in progress, is refused at
 * once, so that a session holds the answers of that many calls at most. A call its client
 * cancels is over; on Streamable HTTP it is answered so (the SDK answers none, and its request
 * would wait for one).
 */
export async function connectCountingCalls(
  server: McpServer,
  transport: Transport,
  session: McpSession,
): Promise<Set<RequestId>> {
  await server.connect(transport);
  const deliver = transport.onmessage;
  const send = transport.send.bind(transport);
  const calls = new Set<RequestId>();
  const answer = (id: RequestId, code: number, message: string) =>
    send({ jsonrpc: "2.0", id, error: { code, message } }).catch(() => {});
  const over = (id: RequestId) => {
    calls.delete(id);
    session.inFlight = calls.size;
  };
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if ("method" in message && "id" in message) {
      const refused = callRefusal(message, calls);
      if (refused) return answer(message.id, refused.code, refused.message);
      calls.add(message.id);
      session.inFlight = calls.size;
    } else if ("method" in message && message.method === "notifications/cancelled") {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id === undefined || !calls.has(id)) return;
      over(id);
      if (session.kind === "streamable") answer(id, CALL_CANCELLED, "Request cancelled");
    }
    deliver?.(message, extra);
  };
  transport.send = (message: JSONRPCMessage, sendOptions?: TransportSendOptions) => {
    const answered = send(message, sendOptions);
    if (!("method" in message) && "id" in message && calls.has(message.id)) {
      const { id } = message;
      answered.then(() => over(id), () => over(id));
    }
    return answered;
  };
  return calls;
}
