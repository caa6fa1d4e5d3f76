import assert from "node:assert/strict";
import process from "node:process";
import { makeDataDir, makePrivate, restrictNewFiles } from "./private_files.ts";

const mode = (path: string) => Deno.lstatSync(path).mode! & 0o777;

Deno.test("makePrivate: loose files and folders lose group and other bits, deep and once", async () => {
  const dir = await Deno.makeTempDir();
  const outside = await Deno.makeTempDir();
  try {
    Deno.chmodSync(dir, 0o755);
    Deno.mkdirSync(`${dir}/a/b`, { recursive: true });
    Deno.chmodSync(`${dir}/a`, 0o755);
    Deno.chmodSync(`${dir}/a/b`, 0o775);
    for (const [path, bits] of [["top", 0o644], ["a/one", 0o666], ["a/b/two", 0o755]] as const) {
      Deno.writeTextFileSync(`${dir}/${path}`, "x");
      Deno.chmodSync(`${dir}/${path}`, bits);
    }
    Deno.writeTextFileSync(`${dir}/a/read_only`, "x");
    Deno.chmodSync(`${dir}/a/read_only`, 0o444);
    Deno.writeTextFileSync(`${outside}/target`, "x");
    Deno.chmodSync(`${outside}/target`, 0o644);
    Deno.symlinkSync(`${outside}/target`, `${dir}/a/link`);

    assert.equal(makePrivate(dir), 7);
    assert.equal(mode(dir), 0o700);
    assert.equal(mode(`${dir}/a`), 0o700);
    assert.equal(mode(`${dir}/a/b`), 0o700);
    assert.equal(mode(`${dir}/top`), 0o600);
    assert.equal(mode(`${dir}/a/one`), 0o600);
    assert.equal(mode(`${dir}/a/b/two`), 0o700, "the owner's bits are kept");
    assert.equal(mode(`${dir}/a/read_only`), 0o400, "never loosened");
    assert.equal(mode(`${outside}/target`), 0o644, "a symbolic link is not followed");
    assert.equal(makePrivate(dir), 0, "nothing left to change");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("makePrivate: the directory's own entries are checked even when it is private", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assert.equal(mode(dir), 0o700);
    Deno.writeTextFileSync(`${dir}/jobs.kv`, "x");
    Deno.chmodSync(`${dir}/jobs.kv`, 0o644);
    Deno.mkdirSync(`${dir}/blobs/objects`, { recursive: true });
    Deno.chmodSync(`${dir}/blobs`, 0o755);
    Deno.writeTextFileSync(`${dir}/blobs/objects/blob`, "x");
    Deno.chmodSync(`${dir}/blobs/objects/blob`, 0o644);
    assert.equal(makePrivate(dir), 4);
    assert.equal(mode(`${dir}/jobs.kv`), 0o600);
    assert.equal(mode(`${dir}/blobs`), 0o700);
    assert.equal(mode(`${dir}/blobs/objects/blob`), 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("restrictNewFiles: files, folders and Deno KV's files are created owner-only", async () => {
  const dir = await Deno.makeTempDir();
  const previous = restrictNewFiles();
  try {
    Deno.mkdirSync(`${dir}/folder/inner`, { recursive: true });
    Deno.writeTextFileSync(`${dir}/folder/file`, "x");
    const kv = await Deno.openKv(`${dir}/jobs.kv`);
    await kv.set(["k"], "v");
    const names = [...Deno.readDirSync(dir)].map((entry) => entry.name).sort();
    assert.deepEqual(names, ["folder", "jobs.kv", "jobs.kv-shm", "jobs.kv-wal"]);
    for (const name of names.filter((name) => name.startsWith("jobs.kv"))) {
      assert.equal(mode(`${dir}/${name}`), 0o600, name);
    }
    kv.close();
    assert.equal(mode(`${dir}/folder`), 0o700);
    assert.equal(mode(`${dir}/folder/inner`), 0o700);
    assert.equal(mode(`${dir}/folder/file`), 0o600);
  } finally {
    if (previous !== undefined) process.umask(previous);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("makeDataDir: made owner-only; a file in its place is refused naming SVC_DATA_DIR", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await makeDataDir(`${dir}/data/nested`);
    assert.equal((await Deno.stat(`${dir}/data/nested`)).mode! & 0o777, 0o700);
    assert.deepEqual([...Deno.readDirSync(`${dir}/data/nested`)], [], "no probe left behind");
    await Deno.writeTextFile(`${dir}/afile`, "");
    for (const path of [`${dir}/afile`, `${dir}/afile/sub`]) {
      await assert.rejects(
        makeDataDir(path),
        new RegExp(`^SvcError: SVC_DATA_DIR=${path} cannot be the data directory: it, or a folder`),
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
