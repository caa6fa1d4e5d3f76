/**
 * The docs' reference tables are what `deno task docs` generates: every setting the relayer
 * reads and every route it serves, none that it does not, each default as the reader has it.
 */
import assert from "node:assert/strict";
import { apiPage, generatedPages, openApi, settingsPages, UNDOCUMENTED } from "./docs_reference.ts";

/** `markdown` with table cells trimmed, as `deno fmt` pads them. */
function unpadded(markdown: string): string {
  return markdown.split("\n").map((line) =>
    line.startsWith("|")
      ? line.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/^-+$/, "---")).join("|")
      : line
  ).join("\n");
}

const read = (path: string) => Deno.readTextFile(new URL(`../${path}`, import.meta.url));

Deno.test("the docs' settings and routes tables are as generated (deno task docs)", async () => {
  for (const [path, generated] of await generatedPages(read)) {
    assert.equal(unpadded(await read(path)), unpadded(generated), `${path}: run deno task docs`);
    assert.ok(!generated.includes(UNDOCUMENTED), `${path}: a setting has no meaning yet`);
  }
});

Deno.test("a setting read but missing from the page gets a row; one never read loses its", async () => {
  const configuration = (await read("docs/configuration.md"))
    .replace(/^\| `SVC_TEXT_CACHE_MB` .*\n/m, "")
    .replace(/^(\| `SVC_PORT` .*\n)/m, "$1| `SVC_GONE` | `1` | a setting no more |\n")
    .replace(/^\| `SVC_WORKER_BATCH` *\| `64` /m, "| `SVC_WORKER_BATCH` | `32` ");
  const { configuration: fixed } = settingsPages(configuration, await read("docs/network-mode.md"));
  assert.match(
    fixed,
    new RegExp(
      `\\| \`SVC_TEXT_CACHE_MB\` \\| \`64\` \\| ${UNDOCUMENTED.replace(/[()]/g, "\\$&")} \\|`,
    ),
  );
  assert.doesNotMatch(fixed, /SVC_GONE/);
  assert.match(fixed, /\| `SVC_WORKER_BATCH` \| `64` \|/);
});

Deno.test("a route missing from the API page gets its row back", async () => {
  const api = (await read("docs/api.md")).replace(/^\| `POST \/api\/embed` .*\n/m, "");
  const row = /^\| `POST \/api\/embed` \| signed: `read` \| `\{text \\\| texts, purpose\?\}` \|/m;
  assert.doesNotMatch(api, row);
  assert.match(apiPage(api, await openApi()), row);
});
