/**
 * The package boundaries: each plugin is a package of the workspace that uses svc only through
 * `@svc/relayer/kit` (and, in its tests and `testing/`, `@svc/relayer/testing`) and other
 * plugins only by their package names; the core (`mod.ts`, `src/`) imports no plugin; the
 * application (`app/`, `main.ts`, `sidecar.ts`, `cli/`) composes them, through the public
 * entries of the core (`@svc/relayer/...`) and of the plugins. The generic helpers (`util/`,
 * `@svc/util`) import nothing of svc; the core and the plugins may import them.
 */
import assert from "node:assert/strict";
import { relative } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";

const ROOT = fromFileUrl(new URL("../", import.meta.url));
const SPECIFIER = /(?:from|import)\s*\(?\s*"([^"]+)"/g;
const KIT = ["@svc/relayer/kit"];
const KIT_FOR_TESTS = [...KIT, "@svc/relayer/testing"];

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (/\.(ts|js)$/.test(entry.name)) yield path;
  }
}

/**
 * Every import of a file (not those of the examples in its comments): a relative one as a path
 * from the project's root, else as written.
 */
async function importsOf(path: string): Promise<string[]> {
  const text = (await Deno.readTextFile(`${ROOT}${path}`)).split("\n")
    .filter((line) => !/^\s*(\*|\/\*|\/\/)/.test(line)).join("\n");
  const base = new URL(path, `file://${ROOT}`);
  return [...text.matchAll(SPECIFIER)].map(([, specifier]) =>
    specifier.startsWith(".") ? relative(ROOT, fromFileUrl(new URL(specifier, base))) : specifier
  );
}

const plugins = [...Deno.readDirSync(`${ROOT}plugins`)].filter((entry) => entry.isDirectory)
  .map((entry) => entry.name).sort();

/** What a plugin's file may import besides its own folder and npm packages. */
function allowedFromPlugin(path: string, target: string): boolean {
  const test = /(_test|\/test_\w+)\.ts$|\/testing\//.test(path);
  if (target.startsWith("@svc/relayer")) return (test ? KIT_FOR_TESTS : KIT).includes(target);
  if (target.startsWith("@svc/")) return true; // another plugin, by its package name
  if (target.startsWith("tests/")) return test; // shared fixtures, for tests only
  return !/^(src|app|cli|plugins)\/|^(mod|main|sidecar)\.ts$/.test(target);
}

Deno.test("plugins import svc only through its kit, and each other by package name", async () => {
  const crossings: string[] = [];
  for (const plugin of plugins) {
    for await (const path of sources(`plugins/${plugin}`)) {
      for (const target of await importsOf(path)) {
        if (target.startsWith(`plugins/${plugin}/`)) continue;
        if (!allowedFromPlugin(path, target)) crossings.push(`${path} → ${target}`);
      }
    }
  }
  assert.deepEqual(crossings, []);
});

/** The core's public entries: `@svc/relayer` and `@svc/relayer/<entry>`. */
const CORE_ENTRIES = Object.keys(JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`)).exports)
  .map((entry) => entry === "." ? "@svc/relayer" : `@svc/relayer/${entry.slice(2)}`);

/**
 * What a file of the application (`app/`, `cli/`, `main.ts`, `sidecar.ts`) may import besides its
 * own package's folder and npm packages: the core's public entries (the testing one in tests),
 * other packages by name, and in tests the shared fixtures.
 */
function allowedFromApplication(path: string, target: string): boolean {
  const test = path.endsWith("_test.ts");
  if (target === "@svc/relayer/testing") return test;
  if (target.startsWith("@svc/relayer")) return CORE_ENTRIES.includes(target);
  if (target.startsWith("@svc/")) return true;
  if (target.startsWith("tests/")) return test;
  return !/^(src|app|cli|plugins|util|bench)\/|^(mod|main|sidecar)\.ts$/.test(target);
}

Deno.test("the application imports the core and the plugins only through their public entries", async () => {
  const crossings: string[] = [];
  const files = ["main.ts", "sidecar.ts"];
  for (const dir of ["app", "cli"]) for await (const path of sources(dir)) files.push(path);
  for (const path of files) {
    const own = path.includes("/") ? `${path.split("/")[0]}/` : undefined;
    for (const target of await importsOf(path)) {
      if (own && target.startsWith(own)) continue;
      if (!allowedFromApplication(path, target)) crossings.push(`${path} → ${target}`);
    }
  }
  assert.deepEqual(crossings, []);
});

Deno.test("the core imports no plugin", async () => {
  const crossings: string[] = [];
  const core = [];
  for await (const path of sources("src")) core.push(path);
  for (const path of [...core, "mod.ts"]) {
    for (const target of await importsOf(path)) {
      if (/^plugins\/|^app\//.test(target) || /^@svc\/(?!relayer|util\/)/.test(target)) {
        crossings.push(`${path} → ${target}`);
      }
    }
  }
  assert.deepEqual(crossings, []);
});

/** What a file of the generic helpers may import besides its own folder and npm packages. */
function allowedFromUtil(path: string, target: string): boolean {
  if (target.startsWith("tests/fixtures/")) return path.endsWith("_test.ts"); // shared data
  return !/^@svc\/|^(src|app|cli|plugins|tests|bench)\/|^(mod|main|sidecar)\.ts$/.test(target);
}

Deno.test("the generic helpers import nothing of svc", async () => {
  const crossings: string[] = [];
  for await (const path of sources("util")) {
    for (const target of await importsOf(path)) {
      if (target.startsWith("util/")) continue;
      if (!allowedFromUtil(path, target)) crossings.push(`${path} → ${target}`);
    }
  }
  assert.deepEqual(crossings, []);
});

/** The imports between the folders of `root` (`src/http` → `src/auth`), tests left out. */
async function folderImports(root: string): Promise<Map<string, Set<string>>> {
  const edges = new Map<string, Set<string>>();
  const folderOf = (path: string) => path.split("/").length > 2 ? path.split("/", 2).join("/") : "";
  for await (const path of sources(root)) {
    const from = folderOf(path);
    if (!from || path.endsWith("_test.ts")) continue;
    for (const target of await importsOf(path)) {
      const to = folderOf(target);
      if (to.startsWith(`${root}/`) && to !== from) {
        edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
  }
  return edges;
}

/** Each folder that its imports lead back to, as the way round (`a → b → a`). */
function folderCycles(edges: Map<string, Set<string>>): string[] {
  const cycles: string[] = [];
  for (const start of edges.keys()) {
    const ways = new Map([[start, [start]]]);
    for (const [folder, way] of ways) {
      for (const to of edges.get(folder) ?? []) {
        if (to === start) cycles.push([...way, to].join(" → "));
        else if (!ways.has(to)) ways.set(to, [...way, to]);
      }
    }
  }
  return cycles;
}

Deno.test("no folder of the core or the application imports itself round a cycle", async () => {
  for (const root of ["src", "app"]) assert.deepEqual(folderCycles(await folderImports(root)), []);
});

Deno.test("the cycle check sees a cycle", () => {
  const edges = new Map([["a", new Set(["b"])], ["b", new Set(["c"])], ["c", new Set(["a"])]]);
  assert.deepEqual(folderCycles(edges), ["a → b → c → a", "b → c → a → b", "c → a → b → c"]);
  assert.deepEqual(folderCycles(new Map([["a", new Set(["b"])]])), []);
});

Deno.test("every module of the core but its testing module is reached from its other exports", async () => {
  // The application's own parts (the dashboard, the reindex while serving, the stdio bridge,
  // the export file) live in app/ and cli/, beside what composes them; what only tests use (the
  // in-memory twins, the conformance suites), in the testing module.
  const { exports } = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const reached = new Set<string>();
  const next = Object.entries<string>(exports).filter(([name]) => name !== "./testing")
    .map(([, path]) => relative(".", path));
  for (let path = next.pop(); path !== undefined; path = next.pop()) {
    if (reached.has(path)) continue;
    reached.add(path);
    for (const target of await importsOf(path)) {
      if (target.startsWith("src/") && target.endsWith(".ts")) next.push(target);
    }
  }
  const unreached: string[] = [];
  for await (const path of sources("src")) {
    if (/_test\.ts$|^src\/testing\//.test(path) || reached.has(path)) continue;
    unreached.push(path);
  }
  assert.ok(reached.has("src/relayer.ts") && reached.has("src/client/mod.ts"));
  assert.deepEqual(unreached, []);
});

Deno.test("util and each plugin are packages of the workspace, with a name, exports and a README", async () => {
  const root = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  assert.deepEqual(root.workspace, ["./util", "./plugins/*", "./app", "./app/upgrades", "./cli"]);
  for (const dir of ["app", "app/upgrades", "cli"]) {
    const config = JSON.parse(await Deno.readTextFile(`${ROOT}${dir}/deno.json`));
    const name = `@svc/${dir.split("/").at(-1)}`;
    assert.deepEqual([config.name, config.version], [name, root.version]);
  }
  for (const dir of ["util", ...plugins.map((plugin) => `plugins/${plugin}`)]) {
    const config = JSON.parse(await Deno.readTextFile(`${ROOT}${dir}/deno.json`));
    const name = dir.split("/").at(-1)!.replaceAll("_", "-");
    assert.equal(config.name, `@svc/${name}`, dir);
    assert.equal(config.version, root.version, dir);
    assert.ok(config.exports, dir);
    assert.ok((await Deno.stat(`${ROOT}${dir}/README.md`)).isFile, dir);
  }
});

Deno.test("the boundary check sees a crossing", async () => {
  // The check itself could fail silently if its pattern matched nothing: the composition does
  // import plugins, statically and lazily, and both are seen.
  const targets = await importsOf("app/mod.ts");
  assert.ok(targets.includes("@svc/local-ledger"), targets.join(", "));
  assert.ok(targets.includes("@svc/lancedb"), targets.join(", "));
  assert.ok(!allowedFromPlugin("plugins/x/mod.ts", "src/errors.ts"));
  assert.ok(!allowedFromPlugin("plugins/x/mod.ts", "@svc/relayer/testing"));
  assert.ok(allowedFromPlugin("plugins/x/mod.ts", "@svc/util/words"));
  assert.ok(!allowedFromApplication("app/x.ts", "src/errors.ts"));
  assert.ok(!allowedFromApplication("cli/x.ts", "app/mod.ts"));
  assert.ok(!allowedFromApplication("app/x.ts", "@svc/relayer/src/errors.ts"));
  assert.ok(!allowedFromApplication("app/x.ts", "plugins/lancedb/mod.ts"));
  assert.ok(allowedFromApplication("app/x.ts", "@svc/relayer/stored"));
  assert.ok(allowedFromApplication("main.ts", "@svc/app"));
  assert.ok(!allowedFromUtil("util/x.ts", "@svc/relayer/kit"));
  assert.ok(!allowedFromUtil("util/x.ts", "src/errors.ts"));
  assert.ok(!allowedFromUtil("util/x.ts", "tests/fixtures/varied_text.ts"));
  assert.ok(allowedFromUtil("util/x_test.ts", "tests/fixtures/varied_text.ts"));
});
