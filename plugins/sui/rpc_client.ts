/**
 * The JSON-RPC client the Sui plugins share, and the one place that turns transport failures
 * into `backend_unavailable`.
 */
import { JsonRpcHTTPTransport, SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { backendError, SvcError } from "../../src/errors.ts";

export interface SuiRpcOptions {
  /** The full node's JSON-RPC URL (env SVC_SUI_RPC_URL). */
  rpcUrl: string;
  /** Per-call timeout in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Replaces the global `fetch` (a proxy, or a handler in tests). */
  fetch?: typeof fetch;
}

export function suiClient(plugin: string, options: SuiRpcOptions): SuiJsonRpcClient {
  let url: URL;
  try {
    url = new URL(options.rpcUrl);
  } catch {
    throw new SvcError("bad_request", `Cannot open ${plugin}: rpcUrl must be an http(s) URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new SvcError("bad_request", `Cannot open ${plugin}: rpcUrl must be an http(s) URL`);
  }
  return new SuiJsonRpcClient({
    network: "custom",
    transport: new JsonRpcHTTPTransport({ url: url.href, fetch: options.fetch }),
  });
}

/**
 * Runs RPC calls with a deadline and the caller's signal; a caller's abort passes through,
 * every other failure (network, HTTP status, JSON-RPC error) is `backend_unavailable`.
 */
export async function withRpc<T>(
  plugin: string,
  action: string,
  options: { signal?: AbortSignal; timeoutMs?: number },
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(options.timeoutMs ?? 10_000);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    return await call(signal);
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw backendError(plugin, action, error);
  }
}
