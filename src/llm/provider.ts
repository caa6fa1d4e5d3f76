/**
 * What the remote model plugins share: retries with backoff on 429 and 5xx, the mapping of
 * provider failures to `SvcError`, and vector normalisation.
 */
import { SvcError } from "../errors.ts";

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

/** Runs `call`, retrying network failures, 408, 429 and 5xx with exponential backoff. */
export async function withRetries<T>(call: () => Promise<T>, options: RetryOptions = {}) {
  const retries = options.retries ?? 2;
  for (let attempt = 0;; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= retries || !retryable(statusOf(error)) || error instanceof SvcError) {
        throw error;
      }
      await new Promise((r) => setTimeout(r, (options.backoffMs ?? 500) * 2 ** attempt));
    }
  }
}

/**
 * A provider failure as an `SvcError`: input the provider refuses (400, 413, 422) is the
 * caller's `bad_request`; everything else — down, timed out, overloaded, misconfigured — is
 * `backend_unavailable`. The provider's own message is kept.
 */
export function providerError(provider: string, action: string, error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : String(error);
  const code = status === 400 || status === 413 || status === 422
    ? "bad_request"
    : "backend_unavailable";
  return new SvcError(code, `${provider} could not ${action}: ${message}`, { cause: error });
}

/** L2-normalises a vector, checking its size. */
export function normalised(vector: ArrayLike<number>, dimensions: number, provider: string) {
  if (vector.length !== dimensions) {
    throw new SvcError(
      "backend_unavailable",
      `${provider} returned a vector of ${vector.length} dimensions; the index expects ` +
        `${dimensions}. Configure the embedding model the index was built with.`,
    );
  }
  const out = Float32Array.from(vector);
  const norm = Math.hypot(...out) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}
