/**
 * The JSON-RPC client the Sui plugins share, and the one place that turns transport failures
 * into `backend_unavailable`. Every request the client sends (the plugins' own and those the
 * Seal and Walrus SDKs send through it) has a deadline, so a node that never answers cannot
 * hold a caller, a decrypt round or a write queue forever; its answer is read up to a limit,
 * and a redirect is not followed, so a node cannot fill the relayer's memory or send its
 * requests elsewhere.
 */
import { JsonRpcHTTPTransport, SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { backendError, SvcError } from "@svc/relayer/kit";
import { boundedFetch } from "@svc/util/bounded_fetch";

/** Where the Sui full node is and how long one request to it may take. */
export interface SuiRpcOptions {
  /** The full node's JSON-RPC URL (env SVC_SUI_RPC_URL). */
  rpcUrl: string;
  /** Deadline of each request to the full node, in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Replaces the global `fetch` (a proxy, or a handler in tests). */
  fetch?: typeof fetch;
  /** The most bytes of one answer read (default {@link MAX_RPC_ANSWER_BYTES}). */
  maxAnswerBytes?: number;
}

/** The JSON-RPC client of `@mysten/sui` (its `SuiJsonRpcClient`), as `suiClient` makes it. */
export type SuiRpcClient = SuiJsonRpcClient;

/** The default deadline of one request to the full node. */
export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

/**
 * The most bytes of one answer of the full node read by default; a larger one is refused (HTTP
 * 502, so `backend_unavailable`). The largest answers the plugins ask for are about 1 MB: one
 * object of Sui's largest size (250 KiB) shown as JSON, a byte as up to four characters ("255,"),
 * or the dry run of a transaction of the largest size (128 KiB). Pages of many large objects
 * (Walrus's metadata) set their own limit.
 */
export const MAX_RPC_ANSWER_BYTES = 4 * 2 ** 20;

/**
 * A JSON-RPC client on `options.rpcUrl` whose every request is aborted after `timeoutMs` (or
 * when the caller's signal aborts, whichever comes first), follows no redirect, and reads at
 * most `maxAnswerBytes` of an answer.
 */
export function suiClient(plugin: string, options: SuiRpcOptions): SuiRpcClient {
  const url = URL.parse(options.rpcUrl);
  if (url?.protocol !== "http:" && url?.protocol !== "https:") {
    throw new SvcError("bad_request", `Cannot open ${plugin}: rpcUrl must be an http(s) URL`);
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new SvcError("bad_request", `Cannot open ${plugin}: timeoutMs must be positive`);
  }
  const fetchFn = boundedFetch(
    options.fetch ?? fetch,
    options.maxAnswerBytes ?? MAX_RPC_ANSWER_BYTES,
  );
  const deadlineFetch: typeof fetch = (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    return fetchFn(input, { ...init, signal });
  };
  return new SuiJsonRpcClient({
    network: "custom",
    transport: new JsonRpcHTTPTransport({ url: url.href, fetch: deadlineFetch }),
  });
}

/**
 * True for what an RPC call returns: an object, or a list of results none of which is missing.
 * The SDK passes a node's result on unchecked, so a node answering `"result": null` would
 * otherwise fail the caller's reading of it with a `TypeError`.
 */
function isAnswer(result: unknown): boolean {
  if (typeof result !== "object" || result === null) return false;
  return !Array.isArray(result) || result.every((item) => item !== null && item !== undefined);
}

/**
 * Runs RPC calls with a deadline and the caller's signal; a caller's abort passes through,
 * every other failure (network, HTTP status, JSON-RPC error, a result that is no object) is
 * `backend_unavailable`.
 */
export async function withRpc<T>(
  plugin: string,
  action: string,
  options: { signal?: AbortSignal; timeoutMs?: number },
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  try {
    const result = await call(signal);
    if (!isAnswer(result)) throw new TypeError("the node's answer holds no object");
    return result;
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw backendError(plugin, action, error);
  }
}
