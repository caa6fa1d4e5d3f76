/**
 * What an attacker with a copy of the data directory finds of an erased memory: nothing, even
 * holding the master key too (a home backup has both). A relayer process, started as
 * `deno task start` starts it, remembers texts and erases some through the API. As soon as each
 * receipt is answered, and again a minute later, the directory is copied. Every byte of every file
 * of the copy, logs and free pages included, is searched for the erased memories' texts, their
 * wrapped keys (the data key's, and the key their job's copy of the text was sealed under) and
 * every version of the index blocks that held them (read from the live files while they were
 * written). Without those keys and blocks, the master key opens nothing of them: no ciphertext,
 * no job's copy of the text, no vector and no term hash. The kept memories' keys, ciphertexts
 * and blocks are found in the same search, so it can find what is there.
 *
 * While the relayer runs, `jobs.kv` (a Deno KV database) may still hold, in its log and free
 * pages, the ciphertext a job kept for its retries, which decrypts to nothing without the wiped
 * key; the next start rewrites it. Nor does any file name a namespace.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { DatabaseSync } from "node:sqlite";
import { SqliteKeyStore } from "../../plugins/local_cipher/key_store.ts";
import { SqliteBlobStore } from "../../plugins/sqlite_blob/mod.ts";
import { jobIdOf, newAccountClient, startRelayer, testMasterKey } from "../relayer_process.ts";

/** Every file under `dir`, with its bytes. */
async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) {
      for (const [name, bytes] of await filesOf(path)) files.set(name, bytes);
    } else if (entry.isFile) files.set(path, Buffer.from(await Deno.readFile(path)));
  }
  return files;
}

/** The files of `files` holding `needle`. */
const holding = (files: Map<string, Buffer>, needle: Uint8Array) =>
  [...files].filter(([, bytes]) => bytes.indexOf(needle) >= 0).map(([path]) => path);

/** The files holding a ciphertext, but the job queue's (see the module documentation). */
const holdingCiphertext = (files: Map<string, Buffer>, ciphertext: Uint8Array) =>
  holding(files, ciphertext).filter((path) => !/\/jobs\.kv(-wal|-shm)?$/.test(path));

/** A part of each sealed block of the live index at `dataDir`, by its hex. */
function indexBlocks(dataDir: string): Map<string, Uint8Array> {
  const db = new DatabaseSync(`${dataDir}/index.sqlite`, { readOnly: true });
  try {
    const rows = db.prepare("SELECT bytes FROM blocks").all() as { bytes: Uint8Array }[];
    // Past the magic and nonce: 64 bytes of ciphertext, within the block's first page.
    const parts = rows.map(({ bytes }) => bytes.slice(16, 80));
    return new Map(parts.map((part) => [Buffer.from(part).toString("hex"), part]));
  } finally {
    db.close();
  }
}

/** What the live stores hold of each memory: its wrapped keys and its ciphertext. */
async function storedOf(dataDir: string, owner: string, ids: string[]) {
  const keys = await SqliteKeyStore.open(`${dataDir}/keys.sqlite`);
  const blobs = await SqliteBlobStore.open({
    path: `${dataDir}/blobs/blobs.sqlite`,
    secret: await testMasterKey(dataDir),
  });
  try {
    const wrapped = new Map<string, Uint8Array[]>();
    for await (const { place, wrapped: key } of keys.entries()) {
      wrapped.set(place.memoryId, [...wrapped.get(place.memoryId) ?? [], key]);
    }
    const ciphertexts = new Map<string, Uint8Array>();
    for (const { blobId, meta } of await blobs.list(owner, "disk")) {
      ciphertexts.set(meta.memoryId, (await blobs.get(blobId))!);
    }
    return ids.map((id) => ({ id, keys: wrapped.get(id)!, ciphertext: ciphertexts.get(id)! }));
  } finally {
    await keys.close();
    await blobs.close();
  }
}

/** Copies `dataDir` to `to` as `cp -a` does, and reads every file of the copy. */
async function copyOf(dataDir: string, to: string): Promise<Map<string, Buffer>> {
  await Deno.remove(to, { recursive: true }).catch(() => {});
  await new Deno.Command("cp", { args: ["-a", dataDir, to] }).output();
  const files = await filesOf(to);
  await Deno.remove(to, { recursive: true });
  return files;
}

Deno.test("erase on disk: a copy of the data directory holds nothing of an erased memory", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-erase-disk-" });
  const copy = `${dataDir}-copy`;
  try {
    await using relayer = await startRelayer(dataDir);
    const { client, owner } = await newAccountClient(dataDir, relayer.url);
    const texts = Array.from(
      { length: 12 },
      (_, i) => `Secret number ${i}: the vault code is ${i}${i}${i}7`,
    );
    // One at a time, so that every version of the index's blocks is seen.
    const ids: string[] = [];
    const blocks = new Map<string, Uint8Array>();
    for (const text of texts) {
      const id = jobIdOf(await client.remember(text, { namespace: "disk" }));
      assert.equal((await client.waitForJob(id)).status, "done");
      ids.push(id);
      for (const [hex, part] of indexBlocks(dataDir)) blocks.set(hex, part);
    }
    const stored = await storedOf(dataDir, owner, ids);
    for (const { keys, ciphertext } of stored) assert.ok(keys.length > 0 && ciphertext);

    // Erased one at a time, then the rest of a half at once; copied as each receipt arrives.
    const erased = stored.slice(0, 6);
    for (const { id } of erased.slice(0, 3)) {
      await client.forget(id);
      const files = await copyOf(dataDir, copy);
      const { keys, ciphertext } = stored.find((memory) => memory.id === id)!;
      for (const key of keys) assert.deepEqual(holding(files, key), [], `a key of ${id}`);
      assert.deepEqual(holdingCiphertext(files, ciphertext), [], `the ciphertext of ${id}`);
    }
    await Promise.all(erased.slice(3).map(({ id }) => client.forget(id)));
    const live = indexBlocks(dataDir);
    const check = (files: Map<string, Buffer>) => {
      for (const [i, { id, keys, ciphertext }] of stored.entries()) {
        const found = [
          ...keys.flatMap((key) => holding(files, key)),
          ...holdingCiphertext(files, ciphertext),
        ];
        if (i < 6) {
          assert.deepEqual(found, [], `nothing of erased ${id}`);
          assert.deepEqual(holding(files, new TextEncoder().encode(texts[i])), []);
        } else {
          assert.ok(found.length >= 2, `the search finds kept ${id}'s key and ciphertext`);
        }
      }
      // No version of a block but the live ones: none that held an erased memory's row.
      for (const [hex, part] of blocks) {
        if (!live.has(hex)) assert.deepEqual(holding(files, part), [], `an earlier block ${hex}`);
      }
      for (const part of live.values()) assert.ok(holding(files, part).length > 0, "a live block");
    };
    check(await copyOf(dataDir, copy));
    // A minute later (the relayer's sweeps and checkpoints have run), the same.
    await new Promise((resolve) => setTimeout(resolve, 61_000));
    check(await copyOf(dataDir, copy));
    // The copy does not hold the key all of it is sealed under (the attacker's is another copy).
    const master = await testMasterKey(dataDir);
    const files = await copyOf(dataDir, copy);
    assert.deepEqual(holding(files, new TextEncoder().encode(master.toHex())), []);
    assert.deepEqual(holding(files, master), []);

    // After a restart, no file at all holds an erased memory's ciphertext.
    await relayer.stop();
    await using again = await startRelayer(dataDir);
    assert.equal((await fetch(`${again.url}/health`)).status, 200);
    const restarted = await copyOf(dataDir, copy);
    for (const { id, ciphertext } of erased) {
      assert.deepEqual(holding(restarted, ciphertext), [], `the ciphertext of ${id}`);
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(copy, { recursive: true }).catch(() => {});
  }
});

Deno.test("at rest: a copy of the data directory names no namespace", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-names-disk-" });
  const namespace = "oncology-notes-7f3a";
  const name = new TextEncoder().encode(namespace);
  try {
    await using relayer = await startRelayer(dataDir);
    const { client } = await newAccountClient(dataDir, relayer.url);
    const jobs = [
      jobIdOf(await client.remember("I see Dr. Lund on Tuesdays", { namespace })),
      jobIdOf(await client.remember("My scan is in May", { namespace, ttlSeconds: 3600 })),
      ...(await client.rememberBulk([{ text: "I take 5 mg daily", namespace }])).job_ids,
    ];
    for (const id of jobs) assert.equal((await client.waitForJob(id)).status, "done");
    assert.equal((await client.recall("when is my scan?", { namespace })).results.length > 0, true);
    assert.equal((await client.list({ namespace })).memories.length, 3);
    await client.forget(jobs[0]);

    const copy = async (suffix: string) => {
      await new Deno.Command("cp", { args: ["-a", dataDir, `${dataDir}-${suffix}`] }).output();
      const files = await filesOf(`${dataDir}-${suffix}`);
      await Deno.remove(`${dataDir}-${suffix}`, { recursive: true });
      return files;
    };
    assert.deepEqual(holding(await copy("running"), name), []);
    await relayer.stop();
    assert.deepEqual(holding(await copy("stopped"), name), []);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
