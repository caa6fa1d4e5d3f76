/**
 * What an attacker with a copy of the data directory finds of an erased memory: nothing. A
 * relayer process remembers texts and erases some through the API; as soon as each receipt is
 * answered the directory is copied, and every byte of every file of the copy is searched for the
 * erased memories' texts, wrapped data keys and ciphertexts (read from the live stores before the
 * erase). The kept memories' keys and ciphertexts are found in the same search, so it can find
 * what is there. The master key is not in the copy.
 *
 * While the relayer runs, `jobs.kv` (a Deno KV database, not rewritten while Deno KV has it open)
 * may still hold, in its log and free pages, the ciphertext a job kept for its retries, which
 * decrypts to nothing without the wiped key; the next start wipes it, and a copy taken after a
 * restart holds nothing of an erased memory in any file. Nor does any file name a namespace.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
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
    const ids: string[] = [];
    for (const text of texts) ids.push(jobIdOf(await client.remember(text, { namespace: "disk" })));
    for (const id of ids) assert.equal((await client.waitForJob(id)).status, "done");
    const stored = await storedOf(dataDir, owner, ids);
    for (const { keys, ciphertext } of stored) assert.ok(keys.length > 0 && ciphertext);

    // Erased one at a time, then the rest of a half at once; copied as each receipt arrives.
    const erased = stored.slice(0, 6);
    for (const { id } of erased.slice(0, 3)) {
      await client.forget(id);
      await Deno.remove(copy, { recursive: true }).catch(() => {});
      await new Deno.Command("cp", { args: ["-a", dataDir, copy] }).output();
      const files = await filesOf(copy);
      const { keys, ciphertext } = stored.find((memory) => memory.id === id)!;
      for (const key of keys) assert.deepEqual(holding(files, key), [], `a key of ${id}`);
      assert.deepEqual(holdingCiphertext(files, ciphertext), [], `the ciphertext of ${id}`);
    }
    await Promise.all(erased.slice(3).map(({ id }) => client.forget(id)));
    await new Deno.Command("cp", { args: ["-a", dataDir, `${copy}-2`] }).output();
    const files = await filesOf(`${copy}-2`);
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
    // Nor does the copy hold the key all of it is sealed under.
    const master = await testMasterKey(dataDir);
    assert.deepEqual(holding(files, new TextEncoder().encode(master.toHex())), []);
    assert.deepEqual(holding(files, master), []);
    await Deno.remove(`${copy}-2`, { recursive: true });

    // After a restart, no file at all holds an erased memory's ciphertext.
    await relayer.stop();
    await using again = await startRelayer(dataDir);
    assert.equal((await fetch(`${again.url}/health`)).status, 200);
    await new Deno.Command("cp", { args: ["-a", dataDir, `${copy}-3`] }).output();
    const restarted = await filesOf(`${copy}-3`);
    for (const { id, ciphertext } of erased) {
      assert.deepEqual(holding(restarted, ciphertext), [], `the ciphertext of ${id}`);
    }
    await Deno.remove(`${copy}-3`, { recursive: true });
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
