/**
 * What makes a JSON value a JSON-RPC message the MCP server can take, shared by the transports
 * so that each answers a bad one the same way: -32600 for what is not a JSON-RPC 2.0 message,
 * -32602 naming the field for a request whose params its method does not take (the SDK would
 * answer -32603 with its validator's dump).
 */
import {
  ClientRequestSchema,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** The most messages a JSON-RPC batch may hold. */
export const MAX_BATCH = 64;

/**
 * The JSON-RPC code of a call a session does not take now (too many in progress, or its id in
 * use): not -32000, which the MCP SDK's clients read as their connection closed.
 */
export const CALL_REFUSED: number = -32003;
/** The JSON-RPC code of the answer to a cancelled call (as the Language Server Protocol has it). */
export const CALL_CANCELLED = -32800;

/** The ids of the requests in a message or batch. */
export function requestIds(body: unknown): (string | number)[] {
  return [body].flat().filter((message) => isJSONRPCRequest(message)).map((request) =>
    (request as { id: string | number }).id
  );
}

/** A JSON-RPC error code and its one-sentence message. */
export interface Refusal {
  /** The JSON-RPC error code. */
  code: -32600 | -32602;
  /** The sentence sent with it. */
  message: string;
}

/** What is read of the SDK's schema of a request. */
interface RequestSchema {
  shape: { method: { value: string } };
  safeParse(value: unknown): { error?: { issues: { path: PropertyKey[]; message: string }[] } };
}

/** The schema of each request an MCP client may send, by method. */
const REQUESTS = new Map(
  (ClientRequestSchema.options as readonly RequestSchema[]).map((schema) => [
    schema.shape.method.value,
    schema,
  ]),
);

/**
 * Why `value` is not a message to hand to the server; `undefined` when it is (a method the
 * server does not know is its to answer).
 */
export function refusal(value: unknown): Refusal | undefined {
  if (!JSONRPCMessageSchema.safeParse(value).success) {
    return { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" };
  }
  if (!isJSONRPCRequest(value)) return undefined;
  const { method } = value as { method: string };
  const issue = REQUESTS.get(method)?.safeParse(value).error?.issues[0];
  return issue && {
    code: -32602,
    message: `Invalid params of ${method}: ${issue.path.join(".")}: ${issue.message}`,
  };
}

/** The id of a request that could not be taken, when it has a usable one. */
export function idOf(value: unknown): string | number | null {
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
