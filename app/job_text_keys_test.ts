import assert from "node:assert/strict";
import { openKvStores } from "@svc/denokv";
import { SqliteKeyStore } from "@svc/local-cipher/key_store";
import { silentLogger } from "@svc/relayer/kit";
import { openBackends, readConfig } from "./mod.ts";

const OWNER = "0x" + "ab".repeat(32);
const MASTER_KEY = "cd".repeat(32);
const TEXT = "my bank PIN is 4321";

async function open(dataDir: string) {
  const config = readConfig({
    SVC_DATA_DIR: dataDir,
    SVC_MASTER_KEY: MASTER_KEY,
    SVC_EMBEDDER: "lexical",
    SVC_VECTOR_STORE: "memory",
    SVC_LLM: "none",
  });
  assert.ok(config.ok);
  return await openBackends(config.config, silentLogger);
}

/** A job's text read from copies of `jobs.kv` and `keys.sqlite` with the master key. */
async function readWithEverything(dataDir: string, jobId: string): Promise<string | null> {
  const copy = await Deno.makeTempDir({ prefix: "svc-copy-" });
  try {
    for (const name of ["jobs.kv", "keys.sqlite"]) {
      await Deno.copyFile(`${dataDir}/${name}`, `${copy}/${name}`);
    }
    const kv = await Deno.openKv(`${copy}/jobs.kv`);
    const keyStore = await SqliteKeyStore.open(`${copy}/keys.sqlite`);
    try {
      const secret = Uint8Array.fromHex(MASTER_KEY);
      return await (await openKvStores(kv, secret, { keyStore })).queue.payload(jobId);
    } finally {
      kv.close();
      await keyStore.close();
    }
  } finally {
    await Deno.remove(copy, { recursive: true });
  }
}

Deno.test("composition: a job's text waits in jobs.kv under a key in keys.sqlite, which erasing its memory with the local cipher destroys", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-job-keys-" });
  try {
    let backends = await open(dataDir);
    const [job] = await backends.relayer.queue!.accept([
      { owner: OWNER, namespace: "default", text: TEXT },
    ]);
    await backends.close();
    assert.equal(await readWithEverything(dataDir, job.job_id), TEXT, "before the erase");

    backends = await open(dataDir);
    assert.equal(await backends.relayer.queue!.payload(job.job_id), TEXT);
    await backends.relayer.cipher!.erase(OWNER, [job.job_id]);
    assert.equal(await backends.relayer.queue!.payload(job.job_id), null);
    await backends.close();
    assert.equal(await readWithEverything(dataDir, job.job_id), null);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
