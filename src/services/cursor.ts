/**
 * The cursors of paged answers (list, the access log): opaque to clients, they name the last id
 * a page showed, as `{"<key>": id}` in base64url.
 */
import { SvcError } from "../errors.ts";

/** The cursor naming `id` as `key` (`after` for memories, `before` for log entries). */
export function cursorOf(key: string, id: string): string {
  return new TextEncoder().encode(JSON.stringify({ [key]: id })).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

/** The id a cursor of {@link cursorOf} names as `key`, if it fits `id`; anything else is a 400. */
export function idOfCursor(cursor: string, key: string, id: RegExp): string {
  try {
    const named = JSON.parse(
      new TextDecoder().decode(Uint8Array.fromBase64(cursor, { alphabet: "base64url" })),
    )?.[key];
    if (typeof named === "string" && id.test(named)) return named;
  } catch {
    // refused below
  }
  throw new SvcError("bad_request", "cursor is not a cursor this relayer gave out");
}
