/**
 * `deno doc --lint` on every package's exports: the core's (`deno.json`), the generic helpers'
 * (`util/deno.json`) and each plugin's (`plugins/<name>/deno.json`). Run by `deno task check`.
 * The application's packages (`app/`, `app/upgrades/`, `cli/`) are programs, not libraries: their
 * modules are checked, not their documentation.
 */
const root = new URL("../", import.meta.url);

/** The export modules of the package whose configuration is `config`, as paths. */
async function exportsOf(config: URL): Promise<string[]> {
  const { exports } = JSON.parse(await Deno.readTextFile(config));
  const targets: string[] = typeof exports === "string" ? [exports] : Object.values(exports);
  return targets.map((target) => new URL(target, config).pathname);
}

const configs = [new URL("deno.json", root), new URL("util/deno.json", root)];
for await (const entry of Deno.readDir(new URL("plugins/", root))) {
  if (entry.isDirectory) configs.push(new URL(`plugins/${entry.name}/deno.json`, root));
}
// Each package on its own: a type its exports name must be public in that package.
let failed = 0;
for (const config of configs) {
  const { code } = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--lint", ...await exportsOf(config)],
  }).spawn().status;
  if (code !== 0) failed++;
}
Deno.exit(failed === 0 ? 0 : 1);
