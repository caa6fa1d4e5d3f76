/**
 * What the remote model plugins share, as one `Provider`: retries with backoff on 429 and 5xx,
 * the signal bounding a call, the mapping of provider failures to `SvcError`, and vector
 * normalisation.
 *
 * @example
 * ```ts
 * const ollama = new Provider("Ollama", "http://127.0.0.1:11434", { timeoutMs: 60_000 });
 * const signal = ollama.signal();
 * try {
 *   const answer = await ollama.retry(() => fetch("http://127.0.0.1:11434/api/embed"), signal);
 *   if (!answer.ok) throw ollama.unexpected(answer.status);
 * } catch (error) {
 *   throw ollama.error("embed the text", error);
 * }
 * ```
 * @module
 */
import { boundedFetch } from "@svc/util/bounded_fetch";
import { sleep } from "@svc/util/sleep";
import { SvcError } from "../errors.ts";

/** How often, and after how long, `Provider.retry` tries again. */
export interface RetryOptions {
  /** Retries after the first attempt (default 2). */
  retries?: number;
  /** First backoff; doubled each time (default 500 ms). */
  backoffMs?: number;
}

/** How a provider is called: retries, and how long a call with its retries may take. */
export interface ProviderOptions extends RetryOptions {
  /** Milliseconds a call and its retries may take (default 60 s). */
  timeoutMs?: number;
}

/** How `Provider.error` words a failure. */
export interface ProviderErrorOptions {
  /**
   * The input is the caller's own (analyze, ask): input the provider refuses is quoted in its
   * own words.
   */
  quoted?: boolean;
  /**
   * A start-up probe's failure: quoted, as the input is the relayer's own, and the provider named
   * with its URL (see `Provider.at`).
   */
  probing?: boolean;
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
 * A provider's answer that is not its API's JSON (a proxy's page, the wrong URL): what it said
 * is not repeated, as it may echo the input.
 */
class UnexpectedAnswer extends Error {
  /** The HTTP status of a failure answered so; a success's answer has none. */
  readonly status?: number;

  constructor(status?: number) {
    super(
      "it answered with something other than its API's JSON (the wrong URL, or a proxy's page?)",
    );
    this.status = status;
  }
}

/**
 * The most bytes of a provider's answer read: 256 vectors of 3,072 numbers written out as JSON
 * take about 16 MB. More is no answer of its API.
 */
const MAX_ANSWER_BYTES = 32 * 2 ** 20;

/** The details of a provider's failure: its call and retries are over (see `Provider.error`). */
/** The details of a provider's failure, after its retries: clients do not send it again. */
export const PROVIDER_FAILED = { reason: "provider" };

/** What an HTTP status of a provider's most likely means, for its operator. */
const STATUS_HINTS: Record<number, string> = {
  401: " (check the API key, or the proxy in front of the provider)",
  403: " (check the API key, or the proxy in front of the provider)",
  404: " (check the model's name, and that the provider has it)",
  429: " (rate limited)",
};

/**
 * The `reason` of a vector that cannot be an embedding: the provider answered, but not with one
 * (a job's attempt that meets it counts; it may be the job's text).
 */
const INVALID = { reason: "invalid_embedding" };

/**
 * A remote model's provider (Ollama, an OpenAI-compatible API, a model hub) as its plugin calls
 * it: named in every error, and with the URL it is reached at in a start-up error.
 */
export class Provider {
  /** How errors name it, for example "Ollama". */
  readonly name: string;
  /**
   * The name with the URL it is reached at, for a start-up error ("Ollama at
   * http://127.0.0.1:11434"): the URL without what may carry a credential (a user's part, a
   * query); the name alone when there is no URL.
   */
  readonly at: string;

  readonly #options: ProviderOptions;

  /** `name`: how errors name it; `url`: its base URL, when it has one. */
  constructor(name: string, url?: string, options: ProviderOptions = {}) {
    this.name = name;
    this.#options = options;
    if (url === undefined || !URL.canParse(url)) {
      this.at = name;
    } else {
      const { origin, pathname } = new URL(url);
      this.at = `${name} at ${origin}${pathname.replace(/\/+$/, "")}`;
    }
  }

  /**
   * The signal of one call: the caller's `signal`, or `timeoutMs` passing. It bounds the call
   * with its retries, so a provider that does not answer costs one timeout, not three.
   */
  signal(signal?: AbortSignal): AbortSignal {
    const timeout = AbortSignal.timeout(this.#options.timeoutMs ?? 60_000);
    return signal ? AbortSignal.any([timeout, signal]) : timeout;
  }

  /**
   * Runs `call`, retrying network failures, 408, 429 and 5xx with exponential backoff. Once
   * `signal` aborts, nothing is retried: it rejects with the signal's reason, also mid-backoff.
   */
  async retry<T>(call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const options = this.#options;
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
        await sleep((options.backoffMs ?? 500) * 2 ** attempt, signal);
      }
    }
  }

  /**
   * The error of an answer that is not the API's JSON (a proxy's page, the wrong URL), to throw:
   * `error` words it without repeating what was said, as it may echo the input. `status`: the
   * HTTP status of a failure answered so; a success's answer has none.
   */
  unexpected(status?: number): Error {
    return new UnexpectedAnswer(status);
  }

  /**
   * `send` as a provider's client should call it. A redirect is not followed, since it would
   * carry the text to another address: it reads as an answer of 502, not the API's. An answer is
   * read up to `MAX_ANSWER_BYTES`, then refused the same way.
   */
  static bounded(send: typeof fetch): typeof fetch {
    return boundedFetch(send, MAX_ANSWER_BYTES);
  }

  /**
   * A failure as an `SvcError`: input the provider refuses (400, 413, 422) is the caller's
   * `bad_request`, with the provider's own message only when quoted (the input is the caller's
   * own: analyze, ask, a start-up probe); everything else — down, timed out, overloaded,
   * misconfigured — is `backend_unavailable`, which the relayer logs: for those a provider's
   * answer is reduced to its status, since a provider may echo its input (a memory, a query) in
   * it. Embeddings are not quoted: the worker embeds the texts of several owners together, and
   * the failure is recorded in each one's job.
   */
  error(action: string, error: unknown, options: ProviderErrorOptions = {}): SvcError {
    if (error instanceof SvcError) return error;
    const provider = options.probing ? this.at : this.name;
    const quoted = options.quoted || options.probing;
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
        { details: PROVIDER_FAILED },
      );
    }
    return new SvcError("backend_unavailable", `${provider} could not ${action}: ${message}`, {
      cause: error,
      details: PROVIDER_FAILED,
    });
  }

  /** `vector` L2-normalised, checked for its size and that it holds numbers, not only zeros. */
  normalised(vector: ArrayLike<unknown>, dimensions: number): Float32Array<ArrayBuffer> {
    if (typeof vector?.length !== "number") {
      throw new SvcError(
        "backend_unavailable",
        `${this.name} returned what is not a vector: not an embedding`,
        { details: INVALID },
      );
    }
    if (vector.length !== dimensions) {
      throw new SvcError(
        "backend_unavailable",
        `${this.name} returned a vector of ${vector.length} dimensions; the index expects ` +
          `${dimensions}. Configure the embedding model the index was built with.`,
      );
    }
    const out = new Float32Array(dimensions);
    let squares = 0;
    for (let i = 0; i < dimensions; i++) {
      const value = vector[i];
      out[i] = typeof value === "number" ? value : NaN;
      // As a 32-bit float: 1e39 is not finite there.
      if (!Number.isFinite(out[i])) {
        throw new SvcError(
          "backend_unavailable",
          `${this.name} returned a vector holding what is not a number (at ${i}): not an embedding`,
          { details: INVALID },
        );
      }
      squares += out[i] * out[i];
    }
    if (squares === 0) {
      throw new SvcError(
        "backend_unavailable",
        `${this.name} returned a vector of only zeros: not an embedding of the text`,
        { details: INVALID },
      );
    }
    const norm = Math.sqrt(squares);
    for (let i = 0; i < out.length; i++) out[i] /= norm;
    return out;
  }
}
