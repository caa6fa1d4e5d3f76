/**
 * The Python SDK's operator-blind client runs `cli/blind_driver.ts` bundled
 * (`sdk/python/svc_memory/blind_driver.js`, made by `deno task bundle:python`): the committed
 * bundle is the one the task makes from the sources now, and it names no path of this machine.
 * (`sdk/python/tests/test_blind.py` runs it against a relayer.)
 */
import assert from "node:assert/strict";
import { denoTasks } from "./task_flags.ts";

const ROOT = new URL("../", import.meta.url);
const BUNDLE = "sdk/python/svc_memory/blind_driver.js";

Deno.test("the Python SDK's blind driver bundle is made from the sources as they are", async () => {
  const task = denoTasks()["bundle:python"];
  const words = task.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "bundle"]);
  assert.equal(words.at(-1), BUNDLE, "the task writes the bundle the SDK ships");
  const fresh = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const args = [...words.slice(1, -1), fresh];
    const made = await new Deno.Command(Deno.execPath(), { args, cwd: ROOT, stderr: "piped" })
      .output();
    assert.ok(made.success, new TextDecoder().decode(made.stderr));
    const shipped = await Deno.readTextFile(new URL(BUNDLE, ROOT));
    assert.ok(
      shipped === await Deno.readTextFile(fresh),
      `${BUNDLE} is stale: run deno task bundle:python`,
    );
    assert.ok(!shipped.includes(new URL(ROOT).pathname), "the bundle names this checkout");
  } finally {
    await Deno.remove(fresh);
  }
});
