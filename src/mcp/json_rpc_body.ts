/**
 * The body of an MCP request over HTTP: JSON in UTF-8, up to `MAX_MCP_BODY_BYTES`, a JSON-RPC
 * message or a batch of 1 to `MAX_BATCH`, each one the server can take.
 */
import { jsonProblem, parseJson } from "@svc/util/json";
import { readBody, saysJson } from "../http/body.ts";
import { MAX_MCP_BODY_BYTES, mcpBodyTooLarge, rpcError } from "../routes/sidecar.ts";
import { idOf, MAX_BATCH, refusal } from "./messages.ts";

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
    return rpcError(400, `Parse error: the body is ${jsonProblem(error)}`, {}, -32700);
  }
  if (Array.isArray(body) && (body.length === 0 || body.length > MAX_BATCH)) {
    return rpcError(400, `A JSON-RPC batch must hold 1 to ${MAX_BATCH} messages`, {}, -32600);
  }
  const refused = [body].flat().map(refusal).find((problem) => problem !== undefined);
  if (!refused) return body;
  // A single request's error answers its id, as JSON-RPC asks.
  const id = Array.isArray(body) ? null : idOf(body);
  return rpcError(400, refused.message, {}, refused.code, undefined, id);
}
