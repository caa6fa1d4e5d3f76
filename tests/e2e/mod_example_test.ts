/** The library's example (`mod.ts`) runs: a relayer with a custom blob store remembers and recalls. */
import assert from "node:assert/strict";

Deno.test("the example of mod.ts builds a working relayer with custom backends", async () => {
  const root = new URL("../../", import.meta.url);
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--doc",
      "--node-modules-dir=auto",
      "--allow-all",
      "--unstable-kv",
      "--quiet",
      "mod.ts",
    ],
    cwd: root,
    stdin: "null",
  }).output();
  const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, output);
  assert.match(output, /mod\.ts\$\d+-\d+\.ts .* ok|1 passed/, output);
});
