/**
 * JSON text parsed strictly: `parseJson` is `JSON.parse` refusing a string (or a key) that is not
 * valid Unicode, which could not be stored as UTF-8 without changing; `jsonProblem` says why a
 * text was refused without quoting it.
 *
 * @example
 * ```ts
 * parseJson(String.raw`{"a":"\ud83d\ude00"}`); // { a: "😀" }
 * try {
 *   parseJson(String.raw`"\ud800"`);
 * } catch (error) {
 *   jsonProblem(error); // "not valid Unicode: a string holds half of a UTF-16 surrogate pair …"
 * }
 * ```
 * @module
 */

/** An escaped UTF-16 surrogate in JSON text (`\\ud800`–`\\udfff`), paired or not. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether `value` (parsed JSON) holds a string, or a key, that is not valid Unicode. */
export function holdsLoneSurrogate(value: unknown): boolean {
  // A stack, not recursion: JSON may nest deeper than the call stack goes.
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === "string") {
      if (!next.isWellFormed()) return true;
    } else if (Array.isArray(next)) {
      for (const item of next) stack.push(item);
    } else if (typeof next === "object" && next !== null) {
      for (const [key, member] of Object.entries(next)) {
        if (!key.isWellFormed()) return true;
        stack.push(member);
      }
    }
  }
  return false;
}

/** JSON whose text escapes half of a UTF-16 surrogate pair (`"\\ud800"`). */
export class LoneSurrogateError extends SyntaxError {
  constructor() {
    // Read after "is": "the body is not valid Unicode: …".
    super("not valid Unicode: a string holds half of a UTF-16 surrogate pair (\\ud800-\\udfff)");
  }
}

/**
 * `JSON.parse`, refusing (a {@link LoneSurrogateError}) a string that is not valid Unicode:
 * it could not be stored as UTF-8 without changing.
 */
export function parseJson(text: string): unknown {
  const value = JSON.parse(text);
  if (SURROGATE_ESCAPE.test(text) && holdsLoneSurrogate(value)) throw new LoneSurrogateError();
  return value;
}

/** Why JSON text was refused, without quoting it (V8's messages do). */
export function jsonProblem(error: unknown): string {
  return error instanceof LoneSurrogateError ? error.message : "not valid JSON";
}
