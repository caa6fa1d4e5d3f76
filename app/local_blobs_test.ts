import assert from "node:assert/strict";
import { SqliteBlobStore } from "@svc/sqlite-blob";
import { writeLegacyBlob } from "../tests/fixtures/legacy_blob_files.ts";
import { createLogger, type Logger } from "@svc/relayer/kit";
import { pathExists } from "@svc/util/files";
import { VectorSeal } from "@svc/relayer/stored";
import { readConfig } from "./config.ts";
import { heldLocalBlobs, openLocalBlobs } from "./local_blobs.ts";
import { LegacyBlobFiles, moveBlobFiles, moveBlobsToSqlite, upgrade } from "@svc/upgrades";

/** The relayer's secret the stores' names are hashed and sealed with. */
const SECRET = new Uint8Array(32).fill(7);

const meta = { owner: "0xowner", namespace: "n1", memoryId: "m1", createdAt: 1 };
const enc = (text: string) => new TextEncoder().encode(text);

async function inTempDir(use: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await use(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Blobs of two owners and namespaces, one with sealed attributes and vector, as files. */
async function writeFiles(dir: string) {
  const metas = [
    meta,
    { ...meta, memoryId: "m2", createdAt: 2, sealedAttributes: "sa", sealedVector: "sv" },
    { owner: "0xother", namespace: "n2", memoryId: "m3", createdAt: 3 },
  ];
  const blobs = new Map<string, { bytes: Uint8Array<ArrayBuffer>; meta: typeof metas[number] }>();
  for (const [i, m] of metas.entries()) {
    const bytes = enc(`ciphertext ${i}`);
    blobs.set(await writeLegacyBlob(`${dir}/blobs`, bytes, m), { bytes, meta: m });
  }
  return blobs;
}

/** The data directory's blob store, as a start opens it: upgraded first. */
async function startBlobs(dir: string, logger?: Logger) {
  await upgrade({ dataDir: dir, secret: SECRET, logger });
  return await openLocalBlobs(dir, SECRET, logger);
}

const sorted = <T extends { blobId: string }>(entries: T[]) =>
  entries.sort((a, b) => a.blobId.localeCompare(b.blobId));

Deno.test("local blobs: a new data directory keeps its blobs in blobs/blobs.sqlite", async () => {
  await inTempDir(async (dir) => {
    const store = await openLocalBlobs(dir, SECRET);
    try {
      assert.equal(store.name, "sqlite");
      const blobId = await store.put(enc("x"), meta);
      assert.ok(await pathExists(`${dir}/blobs/blobs.sqlite`));
      assert.equal(await pathExists(`${dir}/blobs/objects`), false);
      assert.deepEqual((await Array.fromAsync(store.entries())).map((e) => e.blobId), [blobId]);
    } finally {
      await store.close?.();
    }
  });
});

Deno.test("local blobs: an earlier version's blob files are moved into blobs.sqlite at start", async () => {
  await inTempDir(async (dir) => {
    const blobs = await writeFiles(dir);
    assert.deepEqual(await heldLocalBlobs(dir), { fs: true, sqlite: false });
    const lines: string[] = [];
    const store = await startBlobs(dir, createLogger("info", (l) => lines.push(l)));
    try {
      assert.equal(store.name, "sqlite");
      const entries = await Array.fromAsync(store.entries());
      assert.deepEqual(
        sorted(entries),
        sorted([...blobs].map(([blobId, { meta }]) => ({ blobId, meta }))),
      );
      for (const [blobId, { bytes }] of blobs) assert.deepEqual(await store.get(blobId), bytes);
    } finally {
      await store.close?.();
    }
    assert.equal(await pathExists(`${dir}/blobs/objects`), false, "the files are gone");
    assert.equal(await pathExists(`${dir}/blobs/index`), false, "their listing too");
    assert.deepEqual(await heldLocalBlobs(dir), { fs: false, sqlite: true });
    assert.equal(lines.length, 1);
    assert.deepEqual(JSON.parse(lines[0]), {
      ...JSON.parse(lines[0]),
      name: "blob files",
      moved: 3,
    });
    assert.doesNotMatch(lines.join("\n"), /0xowner|0xother|n1|n2/, "names no owner or namespace");
  });
});

Deno.test("local blobs: a clear vector that 0.1.0 wrote in a blob's metadata is sealed on the way", async () => {
  await inTempDir(async (dir) => {
    const vector = [0.5, -0.25, 1];
    const blobId = await writeLegacyBlob(`${dir}/blobs`, enc("manual"), { ...meta, vector });
    const store = await startBlobs(dir);
    try {
      const [entry] = await Array.fromAsync(store.entries());
      assert.equal(entry.blobId, blobId);
      assert.equal(entry.meta.legacyVector, undefined);
      const seal = await VectorSeal.fromSecret(SECRET);
      assert.deepEqual(await seal.open(meta, entry.meta.sealedVector!), vector);
    } finally {
      await store.close?.();
    }
  });
});

Deno.test("local blobs: a move cut short is finished by the next start", async () => {
  await inTempDir(async (dir) => {
    const blobs = await writeFiles(dir);
    const ids = [...blobs.keys()].sort();
    const heldIds = async () => {
      const store = await startBlobs(dir);
      try {
        return (await Array.fromAsync(store.entries())).map((e) => e.blobId).sort();
      } finally {
        await store.close?.();
      }
    };
    // Cut short while copying: one blob is in the database already.
    const rows = await SqliteBlobStore.open({ path: `${dir}/blobs/blobs.sqlite`, secret: SECRET });
    const [, first] = [...blobs][0];
    await rows.put(first.bytes, first.meta);
    await rows.close();
    assert.deepEqual(await heldIds(), ids);
    assert.equal(await pathExists(`${dir}/blobs/objects`), false);
    // Cut short while deleting: every blob is in the database, the listing is gone, the bytes not.
    await writeFiles(dir);
    await Deno.remove(`${dir}/blobs/index`, { recursive: true });
    assert.deepEqual(await heldIds(), ids);
    assert.equal(await pathExists(`${dir}/blobs/objects`), false);
  });
});

Deno.test("local blobs: migrate-store --to sqlite moves the files, and finds none once moved", async () => {
  await inTempDir(async (dir) => {
    assert.equal(await moveBlobsToSqlite(dir, SECRET), null, "no blob files");
    const blobs = await writeFiles(dir);
    const told: number[] = [];
    assert.deepEqual(await moveBlobsToSqlite(dir, SECRET, (done) => told.push(done)), {
      moved: blobs.size,
      unmovable: [],
    });
    assert.equal(told.at(-1), blobs.size);
    assert.equal(await pathExists(`${dir}/blobs/objects`), false);
    assert.equal(await moveBlobsToSqlite(dir, SECRET), null, "moved already");
    assert.deepEqual(await heldLocalBlobs(dir), { fs: false, sqlite: true });
  });
});

Deno.test("local blobs: SVC_BLOB_STORE chooses, unset it is the default sqlite; fs is refused", () => {
  const blobStore = (env: Record<string, string>) => {
    const result = readConfig(env);
    return result.ok ? result.config.blobStore : result.problems;
  };
  assert.deepEqual(blobStore({}), { kind: "sqlite" });
  assert.deepEqual(blobStore({ SVC_BLOB_STORE: "sqlite" }), { kind: "sqlite" });
  assert.deepEqual(blobStore({ SVC_BLOB_STORE: "fs" }), [
    "SVC_BLOB_STORE=fs is no longer offered: the relayer moves a data directory's blob files " +
    "into blobs/blobs.sqlite by itself; unset SVC_BLOB_STORE, or set it to sqlite",
  ]);
  const problems = blobStore({
    SVC_STORE: "postgres",
    SVC_DATABASE_URL: "postgres://h/db",
    SVC_BLOB_STORE: "sqlite",
  });
  assert.ok(Array.isArray(problems) && problems.some((p) => /SVC_BLOB_STORE=postgres/.test(p)));
});

Deno.test("local blobs: each blob's files go once the store holds it, so a failed move keeps its progress", async () => {
  await inTempDir(async (dir) => {
    const blobs = await writeFiles(dir);
    const [failing] = [...blobs.keys()].sort();
    const target = await SqliteBlobStore.open({
      path: `${dir}/blobs/blobs.sqlite`,
      secret: SECRET,
    });
    const flaky = Object.assign(Object.create(target), {
      put: (bytes: Uint8Array<ArrayBuffer>, blobMeta: typeof meta) =>
        blobMeta.memoryId === blobs.get(failing)!.meta.memoryId
          ? Promise.reject(new Error("disk full"))
          : target.put(bytes, blobMeta),
    });
    const files = (await LegacyBlobFiles.find(`${dir}/blobs`))!;
    await assert.rejects(moveBlobFiles(files, flaky, SECRET), /disk full/);
    await target.close();
    const left = (await Array.fromAsync(files.entries())).map((blob) => blob.blobId);
    assert.deepEqual(left, [failing], "only the blob not moved keeps its files");
  });
});

Deno.test("local blobs: blob files that cannot be moved stay, are named, and block nothing", async () => {
  await inTempDir(async (dir) => {
    const blobs = await writeFiles(dir);
    const [altered, unreadable, missing] = [...blobs.keys()];
    const path = (id: string) => `${dir}/blobs/objects/${id.slice(0, 2)}/${id}`;
    await Deno.writeFile(path(altered), enc("not what its id hashes"));
    await Deno.writeTextFile(`${path(unreadable)}.json`, "{ not json");
    await Deno.remove(path(missing));
    const good = await writeLegacyBlob(`${dir}/blobs`, enc("fine"), { ...meta, memoryId: "m4" });
    for (let start = 0; start < 2; start++) {
      const lines: string[] = [];
      const store = await startBlobs(dir, createLogger("info", (l) => lines.push(l)));
      try {
        const held = (await Array.fromAsync(store.entries())).map((e) => e.blobId);
        assert.deepEqual(held, [good], "the good blob is moved, the others are not");
      } finally {
        await store.close?.();
      }
      const warning = lines.map((line) => JSON.parse(line)).find((line) => line.level === "warn");
      assert.equal(warning.level, "warn");
      assert.equal(warning.blobs, 3);
      assert.deepEqual(warning.blob_ids.sort(), [altered, unreadable, missing].sort());
      assert.doesNotMatch(lines.join("\n"), /0xowner|0xother/, "names no owner");
      assert.ok(await pathExists(`${path(unreadable)}.json`), "their files stay");
    }
  });
});
