/**
 * A `fetch` for a server trusted neither to answer briefly nor to answer itself: a redirect is
 * not followed, since it would carry the request (a text, a signature, a ciphertext) to another
 * address, and an answer is read up to a byte limit, whether or not it declared its length.
 *
 * @example
 * ```ts
 * const send = boundedFetch(fetch, 4 * 2 ** 20);
 * const answer = await send("https://example.com/", { signal: AbortSignal.timeout(10_000) });
 * ```
 * @module
 */
import { readBounded } from "./read_bounded.ts";

/** Statuses whose response has no body. */
const NO_BODY = new Set([204, 205]);

/** An answer of 502 (bad gateway: not the server's own answer) saying why in its status text. */
function refused(why: string): Response {
  return new Response(null, { status: 502, statusText: why });
}

/**
 * `send` with every answer read whole, within the request's signal, and returned as it came. A
 * redirect, or an answer past `limit` bytes (its stream cancelled there), is an answer of 502
 * whose status text says which.
 */
export function boundedFetch(send: typeof fetch, limit: number): typeof fetch {
  return async (input, init) => {
    const response = await send(input, { ...init, redirect: "manual" });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      return refused(`a redirect (HTTP ${response.status}), not followed`);
    }
    let body: Uint8Array<ArrayBuffer>;
    try {
      body = await readBounded(response, limit, { signal: init?.signal ?? undefined });
    } catch (error) {
      if (error instanceof RangeError) return refused(error.message);
      throw error;
    }
    return new Response(NO_BODY.has(response.status) ? null : body, response);
  };
}
