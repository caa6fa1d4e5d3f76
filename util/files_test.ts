import assert from "node:assert/strict";
import { writeCache, writeWhole } from "./files.ts";

Deno.test("writeWhole replaces a file with an owner-only one and leaves no temporary file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/record.json`;
    await Deno.writeTextFile(path, "old");
    await writeWhole(path, "new\n");
    assert.equal(await Deno.readTextFile(path), "new\n");
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    await writeWhole(path, new Uint8Array(100_000).fill(7), { sync: false });
    assert.equal((await Deno.readFile(path)).byteLength, 100_000);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), [
      "record.json",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeWhole throws where it cannot write, and writeCache says false", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await assert.rejects(writeWhole(`${dir}/missing/record.json`, "x"), Deno.errors.NotFound);
    await Deno.writeTextFile(`${dir}/file`, "");
    assert.equal(await writeCache(`${dir}/file/cache.bin`, new Uint8Array(1)), false);
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), ["file"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("writeWhole through a named temporary file replaces one a crash left", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/cache.bin`;
    await Deno.writeTextFile(`${path}.tmp`, "left by a crash");
    await writeWhole(path, "whole", { temporary: `${path}.tmp` });
    assert.equal(await Deno.readTextFile(path), "whole");
    assert.deepEqual((await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name), [
      "cache.bin",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
