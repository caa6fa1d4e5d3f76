/**
 * `svc migrate-store --to sqlite` as an operator runs it: a data directory whose blobs a relayer
 * wrote with the fs store, the relayer stopped, the blobs moved into `blobs/blobs.sqlite`, then a
 * relayer on the default store that serves the same memories, ranked the same.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { pathExists } from "../../src/files.ts";
import {
  jobIdOf,
  newAccountClient,
  ROOT,
  startRelayer,
  svcCli,
  TEST_KEYS_DIR,
} from "../relayer_process.ts";

const EMBEDDER = { SVC_EMBEDDER: "lexical" };
const TEXTS = ["My car is a blue Volvo", "My locker code is 4711", "I order a flat white"];

Deno.test("migrate-store --to sqlite moves an fs store's blobs; the relayer serves them after", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-move-blobs-" });
  try {
    const fs = await startRelayer(dataDir, { ...EMBEDDER, SVC_BLOB_STORE: "fs" });
    let before: string[][];
    let privateKey: string, accountId: string;
    try {
      let client;
      ({ client, privateKey, accountId } = await newAccountClient(dataDir, fs.url));
      for (const text of TEXTS) await client.waitForJob(jobIdOf(await client.remember(text)));
      before = await Promise.all(
        ["blue car", "locker", "coffee"].map(async (query) =>
          (await client.recall(query, { limit: 3 })).results.map((r) => `${r.id} ${r.text}`)
        ),
      );
    } finally {
      await fs.stop();
    }
    assert.ok(await pathExists(`${dataDir}/blobs/objects`));

    const moved = await svcCli(dataDir, ["migrate-store", "--to", "sqlite"]);
    assert.deepEqual(moved, { status: "moved", blobs: TEXTS.length, dataDir });
    assert.equal(await pathExists(`${dataDir}/blobs/objects`), false, "the files are gone");
    assert.equal(await pathExists(`${dataDir}/blobs/index`), false, "their listing too");
    assert.equal((await svcCli(dataDir, ["migrate-store", "--to", "sqlite"])).blobs, 0, "again");
    // A move cut short after its copy: the files are back beside the rows. Run again, it says so.
    await Deno.mkdir(`${dataDir}/blobs/objects`);
    await Deno.writeTextFile(`${dataDir}/blobs/objects/left-over`, "");
    const again = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--unstable-kv", `${ROOT}cli/svc.ts`, "migrate-store", "--to", "sqlite"],
      env: { SVC_DATA_DIR: dataDir, SVC_KEYS_DIR: TEST_KEYS_DIR },
    }).output();
    assert.match(
      new TextDecoder().decode(again.stdout),
      /^Moved 0 blobs .* \(none were left to move\) and deleted/,
    );
    assert.equal(await pathExists(`${dataDir}/blobs/objects`), false);

    const relayer = await startRelayer(dataDir, EMBEDDER);
    try {
      const health = await (await fetch(`${relayer.url}/health`)).json();
      assert.equal(health.backends.blobStore, "sqlite");
      const client = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
      const after = await Promise.all(
        ["blue car", "locker", "coffee"].map(async (query) =>
          (await client.recall(query, { limit: 3 })).results.map((r) => `${r.id} ${r.text}`)
        ),
      );
      assert.deepEqual(after, before, "the same memories, decrypted from the database");
    } finally {
      await relayer.stop();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
