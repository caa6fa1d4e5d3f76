import assert from "node:assert/strict";
import { silentLogger } from "../log.ts";
import { openBackends, readConfig } from "./mod.ts";

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

    const config = readConfig({
      SVC_DATA_DIR: dataDir,
      SVC_MASTER_KEY: "ab".repeat(32),
      SVC_EMBEDDER: "lexical",
      SVC_LLM: "none",
    });
    assert.ok(config.ok);
    const backends = await openBackends(config.config, silentLogger);
    await backends.close();
    assert.equal(await held(path, deleted), 0);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
