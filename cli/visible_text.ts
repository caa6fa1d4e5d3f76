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

import { INVISIBLE } from "@svc/relayer/rules";
import { UNPRINTABLE } from "@svc/relayer/kit";

// A CRLF line break, or one of C0 (tab and line feed among them), DEL, C1, and the bidi
// embeddings, overrides and isolates.
const CONTROLS = new RegExp(`\\r\\n|${UNPRINTABLE.source}`, "g");
const INVISIBLES = new RegExp(INVISIBLE.source, "gu");

const escaped = (char: string) => {
  const code = char.codePointAt(0)!.toString(16);
  return char.length > 1 ? `\\u{${code}}` : `\\u${code.padStart(4, "0")}`;
};

/**
 * `text` with each control character, but those in `keep` (the line breaks a command prints on
 * purpose), written as a `\u001b`-style escape. Where a line feed is kept, so is a CRLF line
 * break (a text written on Windows); a carriage return alone is escaped.
 */
export function visible(text: string, keep = ""): string {
  return text.replace(CONTROLS, (found) => {
    if (found === "\r\n") return keep.includes("\n") ? found : escaped("\r") + escaped("\n");
    return keep.includes(found) ? found : escaped(found);
  });
}

/**
 * A name — a namespace, tag or key label — as `visible` shows it, with the characters that show
 * as nothing (zero-width spaces, direction marks, tag characters…) escaped as well: none hides
 * in a name. Memory texts keep them (a right-to-left text's marks).
 *
 * @example
 * ```ts
 * visibleName("bad\u200bns"); // "bad\\u200bns"
 * ```
 */
export function visibleName(name: string): string {
  return visible(name).replace(INVISIBLES, escaped);
}
