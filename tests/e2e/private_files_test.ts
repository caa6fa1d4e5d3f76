/**
 * The data directory is private to its owner: everything the relayer, its sidecar and the
 * operator CLI create there is 0600 (files) / 0700 (folders), and an older install's looser
 * files are tightened at start.
 */
import assert from "node:assert/strict";
import {
  jobIdOf,
  newAccountClient,
  startRelayer,
  TEST_KEYS_DIR,
  waitForSidecar,
} from "../relayer_process.ts";

/** Every entry under `dir` whose permission bits are not 0600 (files) / 0700 (folders). */
function looseEntries(dir: string): string[] {
  const loose: string[] = [];
  const walk = (path: string) => {
    for (const entry of Deno.readDirSync(path)) {
      const child = `${path}/${entry.name}`;
      const bits = Deno.lstatSync(child).mode! & 0o777;
      const wanted = entry.isDirectory ? 0o700 : entry.isFile ? 0o600 : bits;
      if (bits !== wanted) loose.push(`${child.slice(dir.length + 1)} ${bits.toString(8)}`);
      if (entry.isDirectory) walk(child);
    }
  };
  walk(dir);
  return loose;
}

Deno.test("private files: an older install is tightened at start; all the relayer writes is owner-only", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-private-" });
  try {
    // An install from before: folders 0755, a ledger and a file 0644.
    Deno.chmodSync(dataDir, 0o755);
    const legacy = await Deno.openKv(`${dataDir}/ledger.kv`);
    await legacy.set(["legacy"], true);
    legacy.close();
    Deno.chmodSync(`${dataDir}/ledger.kv`, 0o644);
    Deno.mkdirSync(`${dataDir}/legacy`);
    Deno.chmodSync(`${dataDir}/legacy`, 0o755);
    Deno.writeTextFileSync(`${dataDir}/legacy/notes.txt`, "x");
    Deno.chmodSync(`${dataDir}/legacy/notes.txt`, 0o644);
    assert.notDeepEqual(looseEntries(dataDir), []);

    await using relayer = await startRelayer(dataDir);
    await waitForSidecar(relayer.url); // it shares the ledger, under the relayer's umask
    const { client } = await newAccountClient(dataDir, relayer.url);
    const job_id = jobIdOf(await client.remember("My sister lives in Lisbon"));
    assert.equal((await client.waitForJob(job_id)).status, "done");
    const { results } = await client.recall("where does my sister live", { limit: 1 });
    assert.equal(results[0]?.text, "My sister lives in Lisbon");

    // While it runs: KV's write-ahead logs, the index, blobs, keys, the CLI's files.
    const names = [...Deno.readDirSync(dataDir)].map((entry) => entry.name);
    const kept = [
      "jobs.kv",
      "ledger.kv",
      "keys.sqlite",
      "svc.id",
      "blobs",
      "index.sqlite",
      "owner_keys",
    ];
    for (const name of kept) {
      assert.ok(names.includes(name), `${name} is in the data directory: ${names.join(", ")}`);
    }
    assert.deepEqual(looseEntries(dataDir), []);
    assert.equal(Deno.statSync(dataDir).mode! & 0o777, 0o700);
    // The master key is not in the data directory: its file, named by the directory's id, is
    // owner-only, elsewhere.
    assert.ok(!names.includes("master.key"));
    const id = Deno.readTextFileSync(`${dataDir}/svc.id`).trim();
    assert.equal(Deno.statSync(`${TEST_KEYS_DIR}/${id}.key`).mode! & 0o777, 0o600);
    const tightened = relayer.log().split("\n").filter((line) =>
      line.includes("made the data directory private")
    );
    assert.equal(tightened.length, 1, "logged once");
    // The folder, ledger.kv and the -wal/-shm files SQLite gave its mode, legacy/, notes.txt.
    assert.match(tightened[0], /"entries":6\b/);

    assert.equal((await relayer.stop()).code, 0);
    assert.deepEqual(looseEntries(dataDir), []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
