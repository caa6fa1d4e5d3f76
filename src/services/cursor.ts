/**
 * The cursors of paged answers (list, the access log, the reference namespace pages): opaque to
 * clients, they hold a small JSON object (for list, `{"<key>": id}`, the last id a page showed)
 * in base64url.
 */
import { SvcError } from "../errors.ts";

/** The cursor holding `value`: base64url of its JSON. */
export function cursorOf(value: object): string {
  return new TextEncoder().encode(JSON.stringify(value)).toBase64({
    alphabet: "base64url",
    omitPadding: true,
  });
}

/** What a cursor of {@link cursorOf} holds; `undefined` when `cursor` is not one. */
export function cursorValue(cursor: string): unknown {
  try {
    return JSON.parse(
      new TextDecoder().decode(Uint8Array.fromBase64(cursor, { alphabet: "base64url" })),
    );
  } catch {
    return undefined;
  }
}

/** The id a cursor of {@link cursorOf} names as `key`, if it fits `id`; anything else is a 400. */
export function idOfCursor(cursor: string, key: string, id: RegExp): string {
  const named = (cursorValue(cursor) as Record<string, unknown> | undefined)?.[key];
  if (typeof named === "string" && id.test(named)) return named;
  throw new SvcError("bad_request", "cursor is not a cursor this relayer gave out");
}
