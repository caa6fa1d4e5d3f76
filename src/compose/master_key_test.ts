import assert from "node:assert/strict";
import { loadMasterKey } from "./master_key.ts";

Deno.test("the master key is created once, private to its owner, and read back", async () => {
  const dir = await Deno.makeTempDir();
  const key = await loadMasterKey(`${dir}/data`);
  assert.equal(key.byteLength, 32);
  assert.equal((await Deno.stat(`${dir}/data/master.key`)).mode! & 0o777, 0o600);
  assert.deepEqual(await loadMasterKey(`${dir}/data`), key);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a configured master key wins; a damaged key file is named", async () => {
  const dir = await Deno.makeTempDir();
  assert.deepEqual(await loadMasterKey(dir, "ab".repeat(32)), new Uint8Array(32).fill(0xab));
  await Deno.writeTextFile(`${dir}/master.key`, "not a key\n");
  await assert.rejects(loadMasterKey(dir), /Cannot read the master key: .*master\.key/);
  await Deno.remove(dir, { recursive: true });
});
