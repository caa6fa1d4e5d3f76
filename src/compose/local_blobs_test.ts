import assert from "node:assert/strict";
import { FsBlobStore } from "../../plugins/fs_blob/mod.ts";
import { SvcError } from "../errors.ts";
import { createLogger } from "../log.ts";
import { pathExists } from "../files.ts";
import { readConfig } from "./config.ts";
import { heldLocalBlobs, openLocalBlobs } from "./local_blobs.ts";

/** The relayer's secret the stores' names are hashed and sealed with. */
const SECRET = new Uint8Array(32).fill(7);

const meta = { owner: "0xowner", namespace: "n1", memoryId: "m1", createdAt: 1 };

async function inTempDir(use: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("local blobs: a new data directory keeps its blobs in blobs/blobs.sqlite", async () => {
  await inTempDir(async (dir) => {
    const store = await openLocalBlobs(dir, SECRET);
    try {
      assert.equal(store.name, "sqlite");
      const blobId = await store.put(new TextEncoder().encode("x"), meta);
      assert.ok(await pathExists(`${dir}/blobs/blobs.sqlite`));
      assert.equal(await pathExists(`${dir}/blobs/objects`), false);
      assert.deepEqual((await Array.fromAsync(store.entries())).map((e) => e.blobId), [blobId]);
    } finally {
      await store.close?.();
    }
  });
});

Deno.test("local blobs: a data directory an fs store wrote keeps it unless told otherwise", async () => {
  await inTempDir(async (dir) => {
    const fs = await FsBlobStore.open({ dir: `${dir}/blobs` });
    const blobId = await fs.put(new TextEncoder().encode("x"), meta);
    const lines: string[] = [];
    const store = await openLocalBlobs(
      dir,
      SECRET,
      undefined,
      createLogger("info", (l) => lines.push(l)),
    );
    assert.equal(store.name, "fs");
    assert.deepEqual(await store.get(blobId), new TextEncoder().encode("x"));
    assert.equal(await pathExists(`${dir}/blobs/blobs.sqlite`), false);
    // Each start says how to move them into SQLite, as earlier versions' files should be.
    assert.equal(lines.length, 1);
    assert.match(JSON.parse(lines[0]).msg, /migrate-store --to sqlite/);
    // Asked for by name, the fs store is kept without a word.
    lines.length = 0;
    await openLocalBlobs(dir, SECRET, { kind: "fs" }, createLogger("info", (l) => lines.push(l)));
    assert.deepEqual(lines, []);
  });
});

Deno.test("local blobs: asking for the store that does not hold the directory's blobs is refused", async () => {
  await inTempDir(async (dir) => {
    const fs = await FsBlobStore.open({ dir: `${dir}/fs/blobs` });
    await fs.put(new TextEncoder().encode("x"), meta);
    await assert.rejects(
      openLocalBlobs(`${dir}/fs`, SECRET, { kind: "sqlite" }),
      (error: SvcError) =>
        error.code === "conflict" && /SVC_BLOB_STORE=fs/.test(error.message) &&
        error.message.includes("`deno task svc migrate-store --to sqlite`"),
    );
    const sqlite = await openLocalBlobs(`${dir}/sqlite`, SECRET);
    await sqlite.put(new TextEncoder().encode("x"), meta);
    await sqlite.close?.();
    await assert.rejects(
      openLocalBlobs(`${dir}/sqlite`, SECRET, { kind: "fs" }),
      (error: SvcError) =>
        error.code === "conflict" && /blobs\.sqlite/.test(error.message) &&
        !error.message.includes("migrate-store"),
    );
    assert.equal(await pathExists(`${dir}/fs/blobs/blobs.sqlite`), false, "nothing was created");
    assert.equal(await pathExists(`${dir}/sqlite/blobs/objects`), false, "nothing was created");
  });
});

Deno.test("local blobs: blobs in both stores (a move cut short) are named as such, unset", async () => {
  await inTempDir(async (dir) => {
    const fs = await FsBlobStore.open({ dir: `${dir}/blobs` });
    await fs.put(new TextEncoder().encode("x"), meta);
    const sqlite = await openLocalBlobs(dir, SECRET, { kind: "sqlite" }).catch(() => null);
    assert.equal(sqlite, null, "refused while the files hold blobs");
    const { SqliteBlobStore } = await import("../../plugins/sqlite_blob/mod.ts");
    const rows = await SqliteBlobStore.open({ path: `${dir}/blobs/blobs.sqlite`, secret: SECRET });
    await rows.put(new TextEncoder().encode("x"), meta);
    await rows.close();
    await assert.rejects(
      openLocalBlobs(dir, SECRET),
      (error: SvcError) =>
        error.code === "conflict" && /they are in both stores/.test(error.message) &&
        !/Cannot use SVC_BLOB_STORE/.test(error.message) &&
        error.message.includes("`deno task svc migrate-store --to sqlite`"),
    );
  });
});

Deno.test("local blobs: a store that holds no blob yet does not count", async () => {
  await inTempDir(async (dir) => {
    await FsBlobStore.open({ dir: `${dir}/blobs` }); // opened by an earlier version, never written
    const store = await openLocalBlobs(dir, SECRET);
    assert.equal(store.name, "sqlite");
    await store.close?.();
    const fs = await openLocalBlobs(dir, SECRET, { kind: "fs" }); // an empty blobs.sqlite is there now
    assert.equal(fs.name, "fs");
    assert.deepEqual(await heldLocalBlobs(dir), { fs: false, sqlite: false });
    await fs.put(new TextEncoder().encode("x"), meta);
    assert.deepEqual(await heldLocalBlobs(dir), { fs: true, sqlite: false });
  });
});

Deno.test("local blobs: SVC_BLOB_STORE chooses, unset it is the default sqlite", () => {
  const blobStore = (env: Record<string, string>) => {
    const result = readConfig(env);
    return "config" in result ? result.config.blobStore : result.problems;
  };
  assert.deepEqual(blobStore({}), { kind: "sqlite", byDefault: true });
  assert.deepEqual(blobStore({ SVC_BLOB_STORE: "sqlite" }), { kind: "sqlite", byDefault: false });
  assert.deepEqual(blobStore({ SVC_BLOB_STORE: "fs" }), { kind: "fs" });
  const problems = blobStore({
    SVC_STORE: "postgres",
    SVC_DATABASE_URL: "postgres://h/db",
    SVC_BLOB_STORE: "sqlite",
  });
  assert.ok(Array.isArray(problems) && problems.some((p) => /SVC_BLOB_STORE=postgres/.test(p)));
});
