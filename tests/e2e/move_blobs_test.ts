/**
 * A data directory whose blobs an earlier version kept as files (`blobs/objects`, the fs store),
 * as an operator upgrades it: the relayer started on it moves them into `blobs/blobs.sqlite` by
 * itself and serves the same memories, ranked the same; `svc migrate-store --to sqlite` then
 * finds nothing to move. `svc upgrade`, the relayer stopped, moves them as a start would.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { pathExists } from "@svc/util/files";
import { SqliteBlobStore } from "../../plugins/sqlite_blob/mod.ts";
import { writeLegacyBlob } from "../fixtures/legacy_blob_files.ts";
import { taskCommand } from "../task_flags.ts";
import {
  jobIdOf,
  newAccountClient,
  startRelayer,
  svcCli,
  TEST_KEYS_DIR,
  testMasterKey,
} from "../relayer_process.ts";

const EMBEDDER = { SVC_EMBEDDER: "lexical" };
const TEXTS = ["My car is a blue Volvo", "My locker code is 4711", "I order a flat white"];
const QUERIES = ["blue car", "locker", "coffee"];

async function recalled(client: SvcClient): Promise<string[][]> {
  return await Promise.all(
    QUERIES.map(async (query) =>
      (await client.recall(query, { limit: 3 })).results.map((r) => `${r.id} ${r.text}`)
    ),
  );
}

/** Rewrites the blobs of `dataDir` as the files an earlier version's fs store kept them in. */
async function asBlobFiles(dataDir: string): Promise<number> {
  const path = `${dataDir}/blobs/blobs.sqlite`;
  const store = await SqliteBlobStore.open({ path, secret: await testMasterKey(dataDir) });
  let written = 0;
  try {
    for await (const { blobId, meta } of store.entries()) {
      assert.equal(
        await writeLegacyBlob(`${dataDir}/blobs`, (await store.get(blobId))!, meta),
        blobId,
      );
      written++;
    }
  } finally {
    await store.close();
  }
  for (const suffix of ["", "-wal", "-shm"]) await Deno.remove(`${path}${suffix}`).catch(() => {});
  return written;
}

Deno.test("a relayer started on an earlier version's blob files moves them into SQLite and serves them", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-move-blobs-" });
  try {
    const first = await startRelayer(dataDir, EMBEDDER);
    let before: string[][];
    let privateKey: string, accountId: string;
    try {
      let client;
      ({ client, privateKey, accountId } = await newAccountClient(dataDir, first.url));
      for (const text of TEXTS) await client.waitForJob(jobIdOf(await client.remember(text)));
      before = await recalled(client);
    } finally {
      await first.stop();
    }
    assert.equal(await asBlobFiles(dataDir), TEXTS.length);
    assert.equal(await pathExists(`${dataDir}/blobs/blobs.sqlite`), false);

    const relayer = await startRelayer(dataDir, EMBEDDER);
    try {
      const moved = relayer.log().split("\n").filter((l) => /"name":"blob files"/.test(l));
      assert.equal(moved.length, 1);
      assert.equal(JSON.parse(moved[0]).moved, TEXTS.length);
      assert.equal(await pathExists(`${dataDir}/blobs/objects`), false, "the files are gone");
      assert.equal(await pathExists(`${dataDir}/blobs/index`), false, "their listing too");
      const health = await (await fetch(`${relayer.url}/health`)).json();
      assert.equal(health.backends.blobStore, "sqlite");
      const client = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
      assert.deepEqual(await recalled(client), before, "the same memories, from blobs.sqlite");
    } finally {
      await relayer.stop();
    }

    assert.deepEqual(await svcCli(dataDir, ["migrate-store", "--to", "sqlite"]), {
      status: "moved",
      blobs: 0,
      unmovable: [],
      dataDir,
    });
    const again = await new Deno.Command(Deno.execPath(), {
      args: taskCommand("svc", ["migrate-store", "--to", "sqlite"]),
      env: { SVC_DATA_DIR: dataDir, SVC_KEYS_DIR: TEST_KEYS_DIR },
    }).output();
    const [out, err] = [again.stdout, again.stderr].map((bytes) => new TextDecoder().decode(bytes));
    assert.match(
      out,
      /^No blob files in .*: nothing to move\./,
      `exit ${again.code}: ${out}${err}`,
    );

    // `svc upgrade` does what a start does, without starting; run again, it finds nothing.
    assert.equal(await asBlobFiles(dataDir), TEXTS.length);
    const { upgrades } = await svcCli(dataDir, ["upgrade"]);
    assert.deepEqual(upgrades.find(({ name }: { name: string }) => name === "blob files"), {
      name: "blob files",
      moved: TEXTS.length,
    });
    assert.equal(await pathExists(`${dataDir}/blobs/objects`), false);
    const none = await svcCli(dataDir, ["upgrade"]);
    assert.ok(none.upgrades.every(({ moved }: { moved: number }) => moved === 0));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
