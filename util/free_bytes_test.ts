import assert from "node:assert/strict";
import { freeBytes } from "./free_bytes.ts";

Deno.test("freeBytes: a folder not made yet is measured on its nearest parent", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const free = await freeBytes(`${dir}/not/yet/made`);
    assert.ok(free > 0);
    assert.ok(Math.abs(free - await freeBytes(dir)) < 64 * 1024 * 1024);
  } finally {
    await Deno.remove(dir);
  }
});
