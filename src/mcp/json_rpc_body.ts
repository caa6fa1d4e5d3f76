/**
 * The body of an MCP request over HTTP: JSON in UTF-8, up to `MAX_MCP_BODY_BYTES`, a JSON-RPC
 * message or a batch of 1 to `MAX_BATCH`, each one the server can take; and the JSON-RPC error
 * answer the MCP layer refuses a request with.
 */
import { jsonProblem, parseJson } from "@svc/util/json";
import { readBody, saysJson } from "../http/body.ts";
import { idOf, MAX_BATCH, refusal } from "./messages.ts";

/** The largest MCP message body (a JSON-RPC message or batch) the MCP layer accepts: 4 MiB. */
export const MAX_MCP_BODY_BYTES = 4 * 1024 * 1024;

/**
 * A JSON-RPC error answer (MCP clients expect these rather than the relayer's error body): code
 * -32000 and id `null` unless given.
 */
export function rpcError(
  status: number,
  message: string,
  options: {
    headers?: Record<string, string>;
    code?: number;
    data?: Record<string, unknown>;
    id?: string | number | null;
  } = {},
): Response {
  const { headers = {}, code = -32000, data, id = null } = options;
  const error = { code, message, ...(data && { data }) };
  return new Response(JSON.stringify({ jsonrpc: "2.0", error, id }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** The JSON-RPC answer (413) to an MCP message over {@link MAX_MCP_BODY_BYTES}. */
export function mcpBodyTooLarge(): Response {
  return rpcError(413, `Request body exceeds ${MAX_MCP_BODY_BYTES} bytes`, {
    data: { limit_bytes: MAX_MCP_BODY_BYTES },
  });
}

/** The JSON-RPC message or batch `request` carries, or the answer refusing it. */
export async function readJsonRpcBody(request: Request): Promise<unknown | Response> {
  if (!saysJson(request)) {
    return rpcError(
      415,
      "Unsupported Media Type: send content-type: application/json, in UTF-8",
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await readBody(request, MAX_MCP_BODY_BYTES);
  } catch {
    return mcpBodyTooLarge();
  }
  let body: unknown;
  try {
    body = parseJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    return rpcError(400, `Parse error: the body is ${jsonProblem(error)}`, { code: -32700 });
  }
  if (Array.isArray(body) && (body.length === 0 || body.length > MAX_BATCH)) {
    return rpcError(400, `A JSON-RPC batch must hold 1 to ${MAX_BATCH} messages`, { code: -32600 });
  }
  const refused = [body].flat().map(refusal).find((problem) => problem !== undefined);
  if (!refused) return body;
  // A single request's error answers its id, as JSON-RPC asks.
  const id = Array.isArray(body) ? null : idOf(body);
  return rpcError(400, refused.message, { code: refused.code, id });
}
