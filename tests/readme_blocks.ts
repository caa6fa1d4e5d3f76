/**
 * The parts of README.md that tests run or check: its fenced code blocks and the dashboard
 * buttons its quick start names, so the README's examples cannot drift from what works.
 *
 * @example
 * ```ts
 * import { codeBlockAfter, readme } from "./readme_blocks.ts";
 * const terminal = codeBlockAfter(await readme(), "First memory, from a terminal", "sh");
 * ```
 */
import { ROOT } from "./relayer_process.ts";

/** README.md's text. */
export function readme(): Promise<string> {
  return Deno.readTextFile(`${ROOT}README.md`);
}

/**
 * The body of the first ```` ```lang ```` block after the first line containing `marker`;
 * throws when there is none, so a renamed section fails the test that runs it.
 */
export function codeBlockAfter(markdown: string, marker: string, lang: string): string {
  const lines = markdown.split("\n");
  const from = lines.findIndex((line) => line.includes(marker));
  const open = lines.findIndex((line, i) => i > from && line.trim() === "```" + lang);
  const close = lines.findIndex((line, i) => i > open && line.trim() === "```");
  if (from < 0 || open < 0 || close < 0) {
    throw new Error(`Cannot find the README's code: no \`\`\`${lang} block after "${marker}"`);
  }
  return lines.slice(open + 1, close).join("\n") + "\n";
}

/** The paragraph (lines up to a blank one) that starts with `start`; throws without one. */
export function paragraphStarting(markdown: string, start: string): string {
  const paragraph = markdown.split(/\n\s*\n/).find((text) => text.startsWith(start));
  if (paragraph === undefined) {
    throw new Error(`Cannot find the README's paragraph: none starts with "${start}"`);
  }
  return paragraph.replaceAll("\n", " ");
}

/**
 * The dashboard buttons the quick start tells a user to press, in order: the bold words of
 * its paragraph "On the page, …" (`["Create wallet", …, "Approve"]`).
 */
export function dashboardButtons(markdown: string): string[] {
  const paragraph = paragraphStarting(markdown, "On the page,");
  return [...paragraph.matchAll(/\*\*([^*]+)\*\*/g)].map((match) => match[1]);
}

/**
 * A line of a shell block as its words, without its `# comment`: quotes ("…" and '…') group
 * words and are removed, as a POSIX shell does for these simple lines (no escapes, no `$`).
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(#.*)|(\S+)/g)) {
    if (match[3] !== undefined) break;
    words.push(match[1] ?? match[2] ?? match[4]);
  }
  return words;
}
