/** JSON responses, and the one place that turns errors into them. */
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";

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

/** The §5.1 error body for any thrown value; unknown failures are logged and stay generic. */
export function errorResponse(error: unknown, requestId: string, logger: Logger): Response {
  if (!(error instanceof SvcError)) {
    logger.error("unhandled error", { request_id: requestId, error });
    // The id in the sentence too: clients that show only the message (the CLI) name it.
    error = new SvcError(
      "internal",
      `Internal error; see the relayer's logs for request id ${requestId}`,
    );
  }
  const e = error as SvcError;
  // A refusal under load is not a failure: logging each would let a flood fill the log.
  if (e.status >= 500 && e.code !== "server_busy") {
    logger.warn("request failed", { request_id: requestId, code: e.code, error: e.cause ?? e });
  }
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
