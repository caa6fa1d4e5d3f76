/**
 * The plugin boundary: plugins use svc only through the kit (and, in their tests, the testing
 * module), and the core imports plugins only in the composition (`src/compose/`).
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";

const ROOT = fromFileUrl(new URL("../", import.meta.url));
const SPECIFIER = /(?:from|import)\s*\(?\s*"(\.[^"]+)"/g;
const PUBLIC_FOR_PLUGINS = ["src/kit.ts"];
const PUBLIC_FOR_PLUGIN_TESTS = [...PUBLIC_FOR_PLUGINS, "src/testing/mod.ts"];

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.(ts|js)$/.test(entry.name)) yield path;
  }
}

/** Every relative import of a file, as a path from the project's root. */
async function importsOf(path: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${ROOT}${path}`);
  const base = new URL(path, `file://${ROOT}`);
  return [...text.matchAll(SPECIFIER)].map((match) =>
    relative(ROOT, fromFileUrl(new URL(match[1], base)))
  );
}

Deno.test("plugins import svc only through its kit", async () => {
  const crossings: string[] = [];
  for await (const path of sources("plugins")) {
    const allowed = /_test\.ts$/.test(path) ? PUBLIC_FOR_PLUGIN_TESTS : PUBLIC_FOR_PLUGINS;
    for (const target of await importsOf(path)) {
      if (target.startsWith("src/") && !allowed.includes(target)) {
        crossings.push(`${path} → ${target}`);
      }
    }
  }
  assert.deepEqual(crossings, []);
});

Deno.test("the core imports plugins only in the composition", async () => {
  const crossings: string[] = [];
  for await (const path of sources("src")) {
    if (path.startsWith("src/compose/")) continue;
    for (const target of await importsOf(path)) {
      if (target.startsWith("plugins/")) crossings.push(`${path} → ${target}`);
    }
  }
  assert.deepEqual(crossings, []);
});

Deno.test("the boundary check sees a crossing", async () => {
  // The check itself could fail silently if its pattern matched nothing: the composition does
  // import plugins, statically and lazily, and both are seen.
  const targets = await importsOf("src/compose/mod.ts");
  assert.ok(targets.includes("plugins/local_ledger/mod.ts"), targets.join(", "));
  assert.ok(targets.includes("plugins/lancedb/mod.ts"), targets.join(", "));
});
