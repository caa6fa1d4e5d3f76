import assert from "node:assert/strict";
import { createLogger, silentLogger } from "@svc/relayer/kit";
import { lockIndex, openBackends, readConfig } from "./mod.ts";

/** How many of `values` the files of the database at `path` hold. */
async function held(path: string, values: string[]): Promise<number> {
  let text = "";
  for (const suffix of ["", "-wal"]) {
    text += new TextDecoder("latin1").decode(
      await Deno.readFile(path + suffix).catch(() => new Uint8Array()),
    );
  }
  return values.filter((value) => text.includes(value)).length;
}

/** A relayer's configuration on `dataDir`, without models. */
function configOf(dataDir: string, env: Record<string, string> = {}) {
  const result = readConfig({
    SVC_DATA_DIR: dataDir,
    SVC_MASTER_KEY: "ab".repeat(32),
    SVC_EMBEDDER: "lexical",
    SVC_LLM: "none",
    ...env,
  });
  assert.ok(result.ok);
  return result.config;
}

Deno.test("composition: a start wipes from jobs.kv what was deleted from it before", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    // What a relayer left: entries written, then deleted (a job's copy of a ciphertext, say).
    const path = `${dataDir}/jobs.kv`;
    const kv = await Deno.openKv(path);
    const deleted = Array.from({ length: 100 }, (_, i) => `gone-${i}-`.padEnd(120, "x"));
    for (const [i, value] of deleted.entries()) await kv.set(["job_ciphertext_chunk", i], value);
    for (let i = 0; i < deleted.length; i++) await kv.delete(["job_ciphertext_chunk", i]);
    kv.close();
    assert.ok(await held(path, deleted) > 0, "SQLite keeps deleted values in the file");

    const config = configOf(dataDir);
    const backends = await openBackends(config, silentLogger);
    await backends.close();
    assert.equal(await held(path, deleted), 0);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: a start seals what an earlier version kept in clear in jobs.kv, once", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const path = `${dataDir}/jobs.kv`;
    const kv = await Deno.openKv(path);
    await kv.set(["job", "j1"], {
      job_id: "j1",
      status: "done",
      owner: "0xfeedbeef",
      namespace: "oncology-notes",
      attempts: 1,
      created_at: "2026-01-01T00:00:00.000Z",
      updated_at: "2026-01-01T00:00:00.000Z",
    });
    await kv.set(["expiry", 5, "m1"], { owner: "0xfeedbeef", namespace: "dermatology" });
    kv.close();

    const config = configOf(dataDir);
    const start = async () => {
      const lines: string[] = [];
      const backends = await openBackends(config, createLogger("info", (l) => lines.push(l)));
      await backends.close();
      return lines.filter((line) => /"name":"jobs.kv records"/.test(line));
    };
    assert.equal((await start()).length, 1);
    assert.equal(await held(path, ["oncology-notes", "dermatology"]), 0);
    assert.deepEqual(await start(), [], "once");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("composition: a start beside a relayer holding the directory changes nothing in it", async () => {
  // The index in memory too: the directory's other files are the relayer's all the same.
  for (const store of ["encrypted", "memory"]) {
    const dataDir = await Deno.makeTempDir();
    try {
      // What an earlier version kept in clear, which a start's upgrades seal.
      const path = `${dataDir}/jobs.kv`;
      const kv = await Deno.openKv(path);
      await kv.set(["expiry", 5, "m1"], { owner: "0xfeedbeef", namespace: "dermatology" });
      kv.close();
      const config = configOf(dataDir, { SVC_VECTOR_STORE: store });
      // An older relayer serving from the directory holds its index lock.
      const serving = await lockIndex(dataDir, "start the relayer");
      try {
        await assert.rejects(openBackends(config, silentLogger), /another process holds/);
        assert.equal(await held(path, ["dermatology"]), 1, `the upgrades ran (${store})`);
      } finally {
        serving.release();
      }
      const backends = await openBackends(config, silentLogger);
      await backends.close();
      assert.equal(await held(path, ["dermatology"]), 0);
    } finally {
      await Deno.remove(dataDir, { recursive: true });
    }
  }
});
