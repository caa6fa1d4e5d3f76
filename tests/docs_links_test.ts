/**
 * Every relative link of the README, `docs/`, BENCHMARKS.md and the Python SDK's README leads
 * somewhere: its file exists, and its `#anchor` names a heading of that file (as a code host
 * makes anchors: lower-cased, punctuation dropped, spaces as hyphens, `-1`, `-2`… for repeats).
 */
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** The lines of `text` outside code fences. */
function prose(text: string): string[] {
  let fence = false;
  return text.split("\n").filter((line) => {
    if (line.startsWith("```")) fence = !fence;
    return !fence && !line.startsWith("```");
  });
}

/** The anchors of a Markdown file's headings. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6} (.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, "").replaceAll(
      " ",
      "-",
    );
    const n = seen.get(slug) ?? 0;
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
    seen.set(slug, n + 1);
  }
  return anchors;
}

/** The relative links of a Markdown file: each target, without a scheme. */
function linksOf(text: string): string[] {
  const links: string[] = [];
  for (const line of prose(text)) {
    // Inline code may show link syntax as an example: left out.
    for (const [, target] of line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push(target);
    }
  }
  return links;
}

const files = [
  "README.md",
  "BENCHMARKS.md",
  "sdk/python/README.md",
  ...markdownUnder("docs"),
];

/** The Markdown files under `dir` (relative to the root), at any depth. */
function markdownUnder(dir: string): string[] {
  return [...Deno.readDirSync(join(ROOT, dir))].flatMap((entry) =>
    entry.isDirectory
      ? markdownUnder(`${dir}/${entry.name}`)
      : entry.name.endsWith(".md")
      ? [`${dir}/${entry.name}`]
      : []
  );
}

Deno.test("docs: every relative link and anchor of the README and docs/ leads somewhere", async () => {
  const broken: string[] = [];
  for (const file of files) {
    const path = join(ROOT, file);
    const text = await Deno.readTextFile(path);
    for (const link of linksOf(text)) {
      const [target, anchor] = link.split("#", 2);
      const resolved = target === "" ? path : join(dirname(path), decodeURIComponent(target));
      let found: string | undefined;
      try {
        found = (await Deno.stat(resolved)).isFile ? await Deno.readTextFile(resolved) : "";
      } catch {
        broken.push(`${file}: ${link} (no ${relative(ROOT, resolved)})`);
        continue;
      }
      if (anchor && resolved.endsWith(".md") && !anchorsOf(found).has(anchor)) {
        broken.push(`${file}: ${link} (no heading #${anchor})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("docs: the README and BENCHMARKS.md stay pages read at a glance", async () => {
  for (const [file, most] of [["README.md", 250], ["BENCHMARKS.md", 300]] as const) {
    const lines = (await Deno.readTextFile(join(ROOT, file))).split("\n").length;
    assert.ok(lines <= most, `${file} has ${lines} lines, more than ${most}`);
  }
});

/** The sentences of a Markdown page's prose: tables, headings and code left out. */
export function sentencesOf(text: string): string[] {
  const blocks: string[] = [];
  let block = "";
  for (const line of prose(text)) {
    const item = /^\s*([-*]|\d+\.) /.test(line);
    if (line.trim() === "" || item || line.startsWith("#") || line.startsWith("|")) {
      blocks.push(block);
      block = line.startsWith("#") || line.startsWith("|")
        ? ""
        : line.replace(/^\s*([-*]|\d+\.) /, "");
    } else block += " " + line;
  }
  blocks.push(block);
  return blocks.flatMap((b) =>
    b.replace(/`[^`]*`/g, "X").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .split(/(?<=[.!?])\s+/)
      .map((sentence) => sentence.trim())
      .filter((sentence) => sentence.split(/\s+/).length > 2)
  );
}

Deno.test("docs: each page's sentences are short (a median of 20 words at most)", () => {
  const pages = ["README.md", ...markdownUnder("docs").filter((f) => !f.includes("benchmarks"))];
  const long: string[] = [];
  for (const page of pages) {
    const words = sentencesOf(Deno.readTextFileSync(join(ROOT, page)))
      .map((sentence) => sentence.split(/\s+/).length).sort((a, b) => a - b);
    const median = words[Math.floor(words.length / 2)] ?? 0;
    if (median > 20) long.push(`${page}: median ${median} words`);
  }
  assert.deepEqual(long, []);
});
