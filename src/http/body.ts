/**
 * Reading request bodies: bounded without buffering past the limit, then decoded as JSON.
 */
import { SvcError } from "../errors.ts";

/** The default limit of a request body: 2 MiB. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

function tooLarge(limit: number): SvcError {
  return new SvcError(
    "payload_too_large",
    `Request body exceeds the limit of ${limit} bytes`,
    { details: { limit_bytes: limit } },
  );
}

/** The raw body, refused with 413 as soon as it passes `limit` bytes. */
export function readBody(
  request: Request,
  limit = MAX_BODY_BYTES,
): Promise<Uint8Array<ArrayBuffer>> {
  return readBounded(request, limit, () => tooLarge(limit));
}

/**
 * The body of a request or response, refused with `tooLarge()` (the stream cancelled) as soon
 * as it passes `limit` bytes, whether or not a content-length was declared.
 */
export async function readBounded(
  message: Request | Response,
  limit: number,
  tooLarge: () => Error,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = message.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await message.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!message.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = message.body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/** Decodes a JSON object body; wrong content type is 415, anything not a JSON object 400. */
export function parseJsonObject(
  request: Request,
  body: Uint8Array<ArrayBuffer>,
): Record<string, unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new SvcError(
      "unsupported_media_type",
      "Request body must be JSON: send content-type: application/json",
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
  } catch {
    throw new SvcError("bad_request", "Request body is not valid UTF-8 JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new SvcError("bad_request", "Request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
