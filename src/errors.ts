/**
 * The one error type of svc and the one table that maps its codes to HTTP statuses.
 *
 * @example
 * ```ts
 * throw new SvcError("bad_request", "Cannot remember: text must be a non-empty string");
 * ```
 */

/** Stable error codes; each maps to exactly one HTTP status. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  replayed_request: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  backend_unavailable: 503,
  server_busy: 503,
  insufficient_storage: 507,
} as const;

/** One of the stable error codes, the keys of `ERROR_STATUS`. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Extra JSON fields carried on the error body (for example `reason` on 401). */
export type ErrorDetails = Record<string, string | number | boolean>;

/**
 * The error every boundary failure of svc throws: a stable code, a sentence for the caller, and
 * what the error body and response carry besides.
 */
export class SvcError extends Error {
  /** The stable code; it decides the HTTP status. */
  readonly code: ErrorCode;
  /** Extra fields of the error body. */
  readonly details: ErrorDetails;
  /** Extra headers of the error response (for example `retry-after`). */
  readonly headers: Record<string, string>;

  /** `message` is the sentence the caller reads; `options.cause` is kept for the logs only. */
  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; details?: ErrorDetails; headers?: Record<string, string> } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "SvcError";
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  /** The HTTP status of the code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** True when `code` is one of the known error codes. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(ERROR_STATUS, code);
}

/**
 * Wraps a failure of an external backend: an `SvcError` passes through, anything else
 * becomes `backend_unavailable` naming the plugin (the cause is kept for the logs only).
 */
export function backendError(plugin: string, action: string, cause: unknown): SvcError {
  if (cause instanceof SvcError) return cause;
  return new SvcError("backend_unavailable", `Cannot ${action}: ${plugin} is unavailable`, {
    cause,
  });
}
