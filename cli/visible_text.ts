/**
 * Text the CLI prints to a terminal from what agents and users wrote — memory texts, tags, key
 * labels, namespaces — with its control characters shown rather than obeyed: a memory holding
 * `\x1b[2J` or `\r` cannot clear the screen or rewrite the line before it, and one holding a
 * bidirectional override cannot reorder what is printed around it. `svc` prints all its text
 * output through it (keeping line breaks and tabs), and each cell of a one-line row (`list`,
 * `log`, `key list`) without keeping any. `--json` output is left as it is: JSON escapes
 * control characters itself.
 *
 * @example
 * ```ts
 * visible("evil \x1b[2J text\r"); // "evil \\u001b[2J text\\u000d"
 * visible("two\nlines", "\n"); // "two\nlines"
 * ```
 */

// C0 (tab and line feed among them), DEL, C1, and the bidi embeddings, overrides and isolates.
// deno-lint-ignore no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with each control character, but those in `keep` (the line breaks a command prints on
 * purpose), written as a `\u001b`-style escape.
 */
export function visible(text: string, keep = ""): string {
  return text.replace(
    CONTROLS,
    (char) => keep.includes(char) ? char : `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
