import assert from "node:assert/strict";
import { loadMasterKey, type MasterKeySource } from "./master_key.ts";
import { createLogger } from "@svc/relayer/kit";

/** A data directory and a keys directory beside it, removed after `fn`. */
async function withDirs(fn: (data: string, source: MasterKeySource) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await fn(`${dir}/data`, { keysDir: `${dir}/keys` });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const keyFiles = async (keysDir: string) =>
  (await Array.fromAsync(Deno.readDir(keysDir))).map((entry) => `${keysDir}/${entry.name}`);

Deno.test("the master key is created once outside the data directory, private, and read back", async () => {
  await withDirs(async (data, source) => {
    const key = await loadMasterKey(data, source);
    assert.equal(key.byteLength, 32);
    const [file] = await keyFiles(source.keysDir);
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(source.keysDir)).mode! & 0o777, 0o700);
    assert.equal((await Deno.readTextFile(file)).trim(), key.toHex());
    assert.deepEqual(await loadMasterKey(data, source), key);
    // Nothing in the data directory holds it.
    for await (const entry of Deno.readDir(data)) {
      assert.ok(!(await Deno.readFile(`${data}/${entry.name}`)).toHex().includes(key.toHex()));
    }
    // Moved elsewhere, the data directory keeps its key (its id goes with it).
    await Deno.rename(data, `${data}-moved`);
    assert.deepEqual(await loadMasterKey(`${data}-moved`, source), key);
    assert.equal((await keyFiles(source.keysDir)).length, 1);
  });
});

Deno.test("a master.key inside the data directory moves out at the next start, once", async () => {
  await withDirs(async (data, source) => {
    await Deno.mkdir(data);
    const key = "ab".repeat(32);
    await Deno.writeTextFile(`${data}/master.key`, key + "\n");
    await Deno.writeTextFile(`${data}/jobs.kv`, "");
    const lines: string[] = [];
    const logger = createLogger("info", (line) => lines.push(line));
    assert.equal((await loadMasterKey(data, source, logger)).toHex(), key);
    await assert.rejects(Deno.stat(`${data}/master.key`), Deno.errors.NotFound);
    const [file] = await keyFiles(source.keysDir);
    assert.equal((await Deno.readTextFile(file)).trim(), key);
    assert.deepEqual(lines.map((line) => JSON.parse(line).file), [file]);
    assert.equal((await loadMasterKey(data, source, logger)).toHex(), key);
    assert.equal(lines.length, 1, "said once");
    // A master.key put back that differs from the key file is refused, not picked; the likely
    // cause (an older version started on the directory) and its fix are named.
    await Deno.writeTextFile(`${data}/master.key`, "cd".repeat(32) + "\n");
    await assert.rejects(
      loadMasterKey(data, source),
      /master\.key differs from the key file .*older version's.*remove it, and the keys\.kv/,
    );
  });
});

Deno.test("a configured master key or key file wins; a damaged key file is named", async () => {
  await withDirs(async (data, source) => {
    const hex = { ...source, hex: "ab".repeat(32) };
    assert.deepEqual(await loadMasterKey(data, hex), new Uint8Array(32).fill(0xab));
    const file = `${data}-key`;
    await Deno.writeTextFile(file, "not a key\n");
    await assert.rejects(
      loadMasterKey(data, { ...source, file }),
      /Cannot read the master key: .*data-key is not 64 hex/,
    );
    await Deno.writeTextFile(file, "ef".repeat(32) + "\n");
    assert.equal((await loadMasterKey(data, { ...source, file })).toHex(), "ef".repeat(32));
  });
});

Deno.test("a data directory holding what a master key sealed, but no key file, is refused", async () => {
  await withDirs(async (data, source) => {
    await Deno.mkdir(data);
    for (const name of ["keys.sqlite", "keys.kv", "index.sqlite", "index.kv", "jobs.kv"]) {
      await Deno.writeTextFile(`${data}/${name}`, "");
      await assert.rejects(
        loadMasterKey(data, source),
        new RegExp(`its ${name.replace(".", "\\.")} was written under a master key.*no key file`),
      );
      await assert.rejects(Deno.stat(source.keysDir), Deno.errors.NotFound, "no new key made");
      // The key it was sealed under, given, is taken.
      const given = { ...source, hex: "cd".repeat(32) };
      assert.deepEqual(await loadMasterKey(data, given), new Uint8Array(32).fill(0xcd));
      await Deno.remove(`${data}/${name}`);
    }
  });
});

Deno.test("a keys directory that cannot be written names the settings to use", async () => {
  await withDirs(async (data, source) => {
    await Deno.writeTextFile(source.keysDir, "a file, not a directory");
    await assert.rejects(
      loadMasterKey(data, source),
      /Cannot use the master key file .*: set SVC_KEYS_DIR or SVC_MASTER_KEY_FILE/,
    );
  });
});

Deno.test("a key file set to the data directory's own master.key, however spelled, stays where it is", async () => {
  await withDirs(async (data, source) => {
    await Deno.mkdir(data);
    const key = "ab".repeat(32);
    await Deno.writeTextFile(`${data}/master.key`, key + "\n");
    await Deno.writeTextFile(`${data}/jobs.kv`, "");
    for (const file of [`${data}/./master.key`, `${data}//master.key`]) {
      assert.equal((await loadMasterKey(data, { ...source, file })).toHex(), key);
      assert.equal((await Deno.readTextFile(`${data}/master.key`)).trim(), key, file);
    }
  });
});

Deno.test("a key file on a read-only mount, or not ours to change, is read as it is", async () => {
  await withDirs(async (data, source) => {
    const file = `${data}-secret`;
    await Deno.writeTextFile(file, "cd".repeat(32) + "\n", { mode: 0o400 });
    assert.equal((await loadMasterKey(data, { ...source, file })).toHex(), "cd".repeat(32));
    assert.equal((await Deno.stat(file)).mode! & 0o777, 0o400, "left as it was");
    await Deno.remove(file);
  });
});
