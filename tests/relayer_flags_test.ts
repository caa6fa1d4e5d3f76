/** The benchmarks and e2e tests run the relayer with the runtime flags `deno task start` gives it. */
import assert from "node:assert/strict";
import { RELAYER_FLAGS } from "./relayer_process.ts";

Deno.test("deno task start and deno task compile give the relayer the harness's runtime flags", async () => {
  const { tasks } = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const relayerBinary = tasks.compile.split(" && ").find((part: string) =>
    part.includes(" main.ts")
  );
  for (const command of [tasks.start, relayerBinary]) {
    const words = command.split(" ");
    for (const flag of RELAYER_FLAGS) assert.ok(words.includes(flag), `${flag} in: ${command}`);
  }
});
