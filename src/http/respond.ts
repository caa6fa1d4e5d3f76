/** JSON responses, and the one place that turns errors into them. */
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";

/** A JSON response with `status`, `body` and any other `headers`. */
export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

/** How long the failures of one backend's outage share a log entry. */
const OUTAGE_LOG_MS = 10_000;
/** At most this many outages' sentences are remembered at once. */
const OUTAGES_KEPT = 100;

/**
 * Writes down the requests that fail. An outage of a backend fails every request alike, so of
 * the `backend_unavailable` failures with one sentence the first is logged, and then one every
 * 10 s, which says how many like it were not (`unlogged_like_it`). Every other failure is
 * logged, its request id with it.
 */
export class FailureLog {
  /** Where the failures are written. */
  readonly logger: Logger;
  readonly #now: () => number;
  /** Per sentence: when its last entry was written, and how many have not been since. */
  readonly #outages = new Map<string, { loggedAt: number; unlogged: number }>();

  /** A log writing to `logger`, timing outages by `now`. */
  constructor(logger: Logger, now: () => number = Date.now) {
    this.logger = logger;
    this.#now = now;
  }

  /** Writes down the failure of the request `requestId`, unless an outage's entry covers it. */
  failed(requestId: string, error: SvcError): void {
    const fields = { request_id: requestId, code: error.code, error: error.cause ?? error };
    if (error.code !== "backend_unavailable") return this.logger.warn("request failed", fields);
    const now = this.#now();
    const outage = this.#outages.get(error.message);
    if (outage && now - outage.loggedAt < OUTAGE_LOG_MS) {
      outage.unlogged++;
      return;
    }
    const unlogged = outage?.unlogged ?? 0;
    this.logger.warn(
      "request failed",
      unlogged ? { ...fields, unlogged_like_it: unlogged } : fields,
    );
    this.#outages.delete(error.message);
    this.#outages.set(error.message, { loggedAt: now, unlogged: 0 });
    // The oldest first: a sentence that names a changing detail cannot grow the map for good.
    if (this.#outages.size > OUTAGES_KEPT) {
      this.#outages.delete(this.#outages.keys().next().value!);
    }
  }
}

/** The §5.1 error body for any thrown value; unknown failures are logged and stay generic. */
export function errorResponse(error: unknown, requestId: string, log: FailureLog): Response {
  if (!(error instanceof SvcError)) {
    log.logger.error("unhandled error", { request_id: requestId, error });
    // The id in the sentence too: clients that show only the message (the CLI) name it.
    error = new SvcError(
      "internal",
      `Internal error; see the relayer's logs for request id ${requestId}`,
    );
  } else if (error.status >= 500 && error.code !== "server_busy") {
    // A refusal under load is not a failure: logging each would let a flood fill the log.
    log.failed(requestId, error);
  }
  const e = error as SvcError;
  const headers: Record<string, string> = { ...e.headers };
  if (e.code === "rate_limited" && typeof e.details.retry_after_seconds === "number") {
    headers["retry-after"] = String(e.details.retry_after_seconds);
  }
  return jsonResponse(
    e.status,
    { error: e.message, code: e.code, request_id: requestId, ...e.details },
    headers,
  );
}
