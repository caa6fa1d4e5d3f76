/**
 * Reading request bodies: bounded without buffering past the limit (`@svc/util/read_bounded`),
 * held against a budget of unauthenticated bytes, within a time limit, then decoded as JSON
 * (`@svc/util/json`).
 */
import { LoneSurrogateError, parseJson } from "@svc/util/json";
import { declaredLength, readBounded } from "@svc/util/read_bounded";
import { SvcError } from "../errors.ts";
import { type BodyBudgetRefusal, type BodyReservation, SMALL_BODY_BYTES } from "./body_budget.ts";

/** The default limit of a request body: 2 MiB. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** What a client refused for lack of body budget is told to wait, in seconds. */
const BODY_BUDGET_RETRY_SECONDS = 5;

/**
 * What a body that declares no length (chunked) holds at least: about what its connection costs
 * while it is read, and above the budgets' small-body size, so that such bodies sent slowly are
 * bounded as large declared ones are, and leave the last eighth of each budget to the small
 * declared requests of ordinary clients.
 */
export const UNDECLARED_FLOOR_BYTES = 2 * SMALL_BODY_BYTES;

/** How a body is read, besides its size limit. */
export interface BodyReadOptions {
  /**
   * Holds the body's bytes against a budget: the declared length before anything is read (a
   * body that does not fit is refused unread), else as the body grows.
   */
  reservation?: BodyReservation;
  /** The time the whole body has to arrive, from the start of the read (no limit by default). */
  timeoutMs?: number;
}

function tooLarge(limit: number): SvcError {
  return new SvcError(
    "payload_too_large",
    `Request body exceeds the limit of ${limit} bytes`,
    { details: { limit_bytes: limit } },
  );
}

function budgetSpent(refusal: BodyBudgetRefusal): SvcError {
  const details = { retry_after_seconds: BODY_BUDGET_RETRY_SECONDS };
  return refusal === "address"
    ? new SvcError(
      "rate_limited",
      "Cannot read the request body: this address has too many request bodies in flight",
      { details },
    )
    : new SvcError(
      "server_busy",
      "Cannot read the request body: the relayer holds too many request bodies; retry shortly",
      { details, headers: { "retry-after": String(BODY_BUDGET_RETRY_SECONDS) } },
    );
}

/**
 * The raw body, refused with 413 as soon as it passes `limit` bytes, with 408 past the time
 * limit, and with 429/503 when the budget has no room for it. A body its client stopped
 * sending before its end is a 400.
 */
export async function readBody(
  request: Request,
  limit = MAX_BODY_BYTES,
  options: BodyReadOptions = {},
): Promise<Uint8Array<ArrayBuffer>> {
  const { reservation, timeoutMs } = options;
  const floor = declaredLength(request) === undefined ? UNDECLARED_FLOOR_BYTES : 0;
  const timeout = new AbortController();
  const timer = timeoutMs === undefined ? undefined : setTimeout(() => timeout.abort(), timeoutMs);
  try {
    return await readBounded(request, limit, {
      tooLarge: () => tooLarge(limit),
      // Held against the budget before the buffer grows (a declared length before anything is
      // read); a body the budget has no room for is not read on.
      reserve: reservation && ((bytes) => {
        const more = Math.max(bytes, floor) - reservation.bytes;
        const refusal = more > 0 ? reservation.grow(more) : undefined;
        if (refusal) throw budgetSpent(refusal);
      }),
      signal: timer === undefined ? undefined : timeout.signal,
    });
  } catch (error) {
    if (timeout.signal.aborted && error === timeout.signal.reason) {
      throw new SvcError(
        "request_timeout",
        `Cannot read the request body: it did not arrive within ${Math.ceil(timeoutMs! / 1000)} s`,
      );
    }
    if (error instanceof SvcError) throw error;
    throw new SvcError(
      "bad_request",
      "Cannot read the request body: the connection ended before the body did",
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the request says its body is JSON, in UTF-8 (the charset said, or none). */
export function saysJson(request: Request): boolean {
  const type = request.headers.get("content-type") ?? "";
  return /^application\/json\s*(;|$)/i.test(type) && saysUtf8(type);
}

/** Throws 415 unless the request says its body is JSON, in UTF-8 (see {@link saysJson}). */
export function requireJsonType(request: Request): void {
  if (!saysJson(request)) {
    throw new SvcError(
      "unsupported_media_type",
      "Request body must be JSON in UTF-8: send content-type: application/json",
    );
  }
}

/** Whether a content type's charset, if it names one, is UTF-8 (a body in another is misread). */
export function saysUtf8(contentType: string): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType)?.[1];
  return charset === undefined || /^utf-?8$/i.test(charset);
}

/** Decodes a JSON object body; wrong content type is 415, anything not a JSON object 400. */
export function parseJsonObject(
  request: Request,
  body: Uint8Array<ArrayBuffer>,
): Record<string, unknown> {
  requireJsonType(request);
  let value: unknown;
  try {
    value = parseJson(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch (error) {
    throw new SvcError(
      "bad_request",
      error instanceof LoneSurrogateError
        ? `Request body is ${error.message}`
        : "Request body is not valid UTF-8 JSON",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SvcError("bad_request", "Request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
