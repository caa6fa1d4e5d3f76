import assert from "node:assert/strict";
import { concatBytes } from "@svc/util/sealing";
import { PipeCopy } from "./pipe_copy.ts";

Deno.test("a pipe's copy gives its start, then all of it twice, from a single read", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const pipe = `${dir}/pipe`;
    assert.equal((await new Deno.Command("mkfifo", { args: [pipe] }).output()).code, 0);
    const bytes = concatBytes(
      new TextEncoder().encode('{"format":"svc-export"}\n'),
      crypto.getRandomValues(new Uint8Array(65_536)),
      crypto.getRandomValues(new Uint8Array(65_536)),
      crypto.getRandomValues(new Uint8Array(10_000)),
    );
    const writing = Deno.writeFile(pipe, bytes);
    await using copy = await PipeCopy.open(pipe);
    assert.equal(new TextDecoder().decode(copy.start).split("\n")[0], '{"format":"svc-export"}');
    assert.deepEqual(await new Response(copy.stream()).bytes(), bytes);
    await writing;
    assert.deepEqual(await new Response(copy.again()).bytes(), bytes);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
