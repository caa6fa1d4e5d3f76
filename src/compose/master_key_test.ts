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

Deno.test("a data directory holding what a master key sealed, but no master.key, is refused", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const name of ["keys.kv", "index.kv", "jobs.kv"]) {
      await Deno.writeTextFile(`${dir}/${name}`, "");
      await assert.rejects(
        loadMasterKey(dir),
        new RegExp(
          `its ${name.replace(".", "\\.")} was written under a master key.*no master\\.key`,
        ),
      );
      await assert.rejects(Deno.stat(`${dir}/master.key`), Deno.errors.NotFound, "no new key made");
      // The key it was sealed under, given, is taken.
      assert.deepEqual(await loadMasterKey(dir, "cd".repeat(32)), new Uint8Array(32).fill(0xcd));
      await Deno.remove(`${dir}/${name}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
