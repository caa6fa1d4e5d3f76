/**
 * What the remote model plugins share: retries with backoff on 429 and 5xx, the mapping of
 * provider failures to `SvcError`, and vector normalisation.
 */
import { SvcError } from "../errors.ts";

/** How often, and after how long, `withRetries` tries again. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  retries?: number;
  /** First backoff; doubled each time (default 500 ms). */
  backoffMs?: number;
}

/** The HTTP status of a provider error, when it has one. */
function statusOf(error: unknown): number | undefined {
  const e = error as { status?: unknown; status_code?: unknown };
  const status = e?.status ?? e?.status_code;
  return typeof status === "number" ? status : undefined;
}

const retryable = (status: number | undefined) =>
  status === undefined || status === 408 || status === 429 || status >= 500;

/**
 * Runs `call`, retrying network failures, 408, 429 and 5xx with exponential backoff. Once
 * `signal` aborts, nothing is retried: it rejects with the signal's reason, also mid-backoff.
 */
export async function withRetries<T>(
  call: () => Promise<T>,
  options: RetryOptions = {},
  signal?: AbortSignal,
): Promise<T> {
  const retries = options.retries ?? 2;
  for (let attempt = 0;; attempt++) {
    signal?.throwIfAborted();
    try {
      return await call();
    } catch (error) {
      signal?.throwIfAborted();
      if (attempt >= retries || !retryable(statusOf(error)) || error instanceof SvcError) {
        throw error;
      }
      await backoff((options.backoffMs ?? 500) * 2 ** attempt, signal);
    }
  }
}

/**
 * The signal of one call to a provider: the caller's `signal`, or `timeoutMs` passing. It bounds
 * the call with its retries, so a provider that does not answer costs one timeout, not three.
 */
export function callSignal(timeoutMs: number, signal?: AbortSignal): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([timeout, signal]) : timeout;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function backoff(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * A provider's answer that is not its API's JSON (a proxy's page, the wrong URL): what it said
 * is not repeated, as it may echo the input.
 */
export class UnexpectedAnswer extends Error {
  /** The HTTP status of a failure answered so; a success's answer has none. */
  readonly status?: number;

  /** `status`: the HTTP status of a failure answered so. */
  constructor(status?: number) {
    super(
      "it answered with something other than its API's JSON (the wrong URL, or a proxy's page?)",
    );
    this.status = status;
  }
}

/** The details of a provider's failure: its call and retries are over (see `providerError`). */
const PROVIDER = { reason: "provider" };

/** What an HTTP status of a provider's most likely means, for its operator. */
const STATUS_HINTS: Record<number, string> = {
  401: " (check the API key, or the proxy in front of the provider)",
  403: " (check the API key, or the proxy in front of the provider)",
  404: " (check the model's name, and that the provider has it)",
  429: " (rate limited)",
};

/**
 * A provider failure as an `SvcError`: input the provider refuses (400, 413, 422) is the
 * caller's `bad_request`, with the provider's own message only when `quoted` (the input is the
 * caller's own: analyze, ask, a start-up probe); everything else — down, timed out, overloaded,
 * misconfigured — is `backend_unavailable`, which the relayer logs: for those a provider's
 * answer is reduced to its status, since a provider may echo its input (a memory, a query) in
 * it. Embeddings are not quoted: the worker embeds the texts of several owners together, and
 * the failure is recorded in each one's job.
 */
export function providerError(
  provider: string,
  action: string,
  error: unknown,
  quoted = false,
): SvcError {
  if (error instanceof SvcError) return error;
  const status = statusOf(error);
  const unexpected = error instanceof SyntaxError || error instanceof UnexpectedAnswer;
  const message = (error as Error)?.name === "TimeoutError"
    ? "it did not answer in time (a call and its retries share one time limit)"
    : error instanceof SyntaxError
    ? new UnexpectedAnswer().message
    : error instanceof Error
    ? error.message
    : String(error);
  if (!unexpected && (status === 400 || status === 413 || status === 422)) {
    const why = quoted
      ? message
      : `it refused the text (HTTP ${status}: too long for the model, or not text it takes?)`;
    return new SvcError("bad_request", `${provider} could not ${action}: ${why}`);
  }
  // `reason: "provider"`: the call and its retries are over; a client asking again waits as long.
  if (status !== undefined) {
    return new SvcError(
      "backend_unavailable",
      `${provider} could not ${action}: it answered HTTP ${status}${STATUS_HINTS[status] ?? ""}`,
      { details: PROVIDER },
    );
  }
  return new SvcError("backend_unavailable", `${provider} could not ${action}: ${message}`, {
    cause: error,
    details: PROVIDER,
  });
}

/**
 * A provider's name with the URL it is reached at, for a start-up error: the URL without what may
 * carry a credential (a user's part, a query).
 */
export function providerAt(provider: string, url: string): string {
  if (!URL.canParse(url)) return provider;
  const { origin, pathname } = new URL(url);
  return `${provider} at ${origin}${pathname.replace(/\/+$/, "")}`;
}

/**
 * The `reason` of a vector that cannot be an embedding: the provider answered, but not with one
 * (a job's attempt that meets it counts; it may be the job's text).
 */
const INVALID = { reason: "invalid_embedding" };

/** L2-normalises a vector, checking its size and that it holds numbers, not only zeros. */
export function normalised(
  vector: ArrayLike<unknown>,
  dimensions: number,
  provider: string,
): Float32Array<ArrayBuffer> {
  if (vector.length !== dimensions) {
    throw new SvcError(
      "backend_unavailable",
      `${provider} returned a vector of ${vector.length} dimensions; the index expects ` +
        `${dimensions}. Configure the embedding model the index was built with.`,
    );
  }
  const out = new Float32Array(dimensions);
  let squares = 0;
  for (let i = 0; i < dimensions; i++) {
    const value = vector[i];
    if (typeof value !== "number" || !Number.isFinite(value)) {
      throw new SvcError(
        "backend_unavailable",
        `${provider} returned a vector holding what is not a number (at ${i}): not an embedding`,
        { details: INVALID },
      );
    }
    out[i] = value;
    squares += out[i] * out[i];
  }
  if (squares === 0) {
    throw new SvcError(
      "backend_unavailable",
      `${provider} returned a vector of only zeros: not an embedding of the text`,
      { details: INVALID },
    );
  }
  const norm = Math.sqrt(squares);
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}
