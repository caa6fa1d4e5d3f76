import assert from "node:assert/strict";
import { EncryptedVectorStore } from "@svc/encrypted-index";
import { LanceDbVectorStore } from "@svc/lancedb";
import { LexicalEmbedder } from "@svc/lexical-embedder";
import { createLogger } from "@svc/relayer/kit";
import { TermHasher } from "@svc/relayer/stored";
import { carryImportNote } from "./lancedb_import.ts";
import { loadMasterKey } from "./master_key.ts";
import { masterKeyFileOf } from "./config.ts";
import { openBackends, readConfig } from "./mod.ts";

const embedder = new LexicalEmbedder();
async function row(i: number) {
  const [vector] = await embedder.embed([`memory number ${i}`]);
  const namespace = i % 2 ? "work" : "home";
  return { id: `m${i}`, owner: "0xowner", namespace, blobId: `b${i}`, vector, createdAt: i };
}

/** A data directory holding a LanceDB index of `n` rows, as an older install left it. */
async function olderInstall(n: number): Promise<string> {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-import-" });
  const lance = await LanceDbVectorStore.open({
    dir: `${dataDir}/lancedb`,
    model: embedder.model,
    dimensions: embedder.dimensions,
  });
  const rows = await Promise.all(Array.from({ length: n }, (_, i) => row(i)));
  await lance.upsert(rows.map((r, i) => ({ ...r, terms: [`t${i}`] })));
  await lance.close();
  return dataDir;
}

async function start(dataDir: string, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const logger = createLogger("info", (line) => lines.push(JSON.parse(line).msg));
  const config = readConfig({ SVC_DATA_DIR: dataDir, SVC_EMBEDDER: "lexical", ...env });
  assert.ok(config.ok);
  const backends = await openBackends(config.config, logger);
  return { backends, vectors: backends.relayer.vectors, lines };
}

Deno.test("upgrade: an older install's LanceDB index is imported once into the encrypted index", async () => {
  const dataDir = await olderInstall(1200);
  try {
    let { backends, vectors, lines } = await start(dataDir);
    assert.equal(vectors.name, "encrypted");
    assert.equal(await vectors.count(), 1200);
    assert.deepEqual(await vectors.namespaces("0xowner"), [
      { namespace: "home", count: 600 },
      { namespace: "work", count: 600 },
    ]);
    const [probe] = await embedder.embed(["memory number 7"]);
    assert.equal((await vectors.search("0xowner", "work", probe, 1))[0].id, "m7");
    assert.deepEqual(
      (await vectors.terms("0xowner", "work")).find((r) => r.id === "m7")?.terms,
      ["t7"],
    );
    assert.ok(lines.some((l) => /imported 1200 memories from LanceDB/.test(l)), lines.join("\n"));
    assert.ok(lines.some((l) => /still holds the memories' vectors in readable form/.test(l)));
    await backends.close();

    // The next start imports nothing, and says again that the old directory should go.
    ({ backends, vectors, lines } = await start(dataDir));
    assert.ok(!lines.some((l) => /imported/.test(l)), lines.join("\n"));
    assert.ok(lines.some((l) => /lancedb still holds .* delete it/.test(l)), lines.join("\n"));
    assert.equal(await vectors.count(), 1200);
    await backends.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("upgrade: an import cut short is finished; a chosen store imports nothing", async () => {
  const dataDir = await olderInstall(30);
  try {
    await assert.rejects(
      start(dataDir, { SVC_VECTOR_STORE: "encrypted" }),
      /has 30 memories in the lancedb vector store's index;.*unset to import it/,
    );
    let { backends, vectors } = await start(dataDir, { SVC_VECTOR_STORE: "lancedb" });
    assert.equal(await vectors.count(), 30, "SVC_VECTOR_STORE=lancedb keeps the old index");
    await backends.close();

    // A start that was killed part-way through its import.
    const encrypted = await EncryptedVectorStore.open({
      path: `${dataDir}/index.sqlite`,
      secret: await loadMasterKey(dataDir, masterKeyFileOf({}, dataDir)),
      model: embedder.model,
      dimensions: embedder.dimensions,
    });
    await encrypted.setNote("lancedb-import", "started");
    await encrypted.upsert([await row(3)]);
    await encrypted.close();
    ({ backends, vectors } = await start(dataDir));
    assert.equal(await vectors.count(), 30);
    await backends.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("upgrade: imported rows from before text digests gain them, and client-encrypted ones the manual mark", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-import-" });
  try {
    // An older install: LanceDB rows without a digest or a mark, over this directory's blobs.
    let { backends, vectors } = await start(dataDir, { SVC_VECTOR_STORE: "lancedb" });
    const { cipher, blobs, secret } = backends.relayer;
    const owner = "0xowner", namespace = "home";
    const [vector] = await embedder.embed(["I am vegetarian"]);
    const put = async (memoryId: string, bytes: Uint8Array<ArrayBuffer>, sealedVector?: string) => {
      const meta = { owner, namespace, memoryId, createdAt: 1, sealedVector };
      const blobId = await blobs.put(bytes, meta);
      await vectors.upsert([{ id: memoryId, owner, namespace, blobId, vector, createdAt: 1 }]);
    };
    const plaintext = new TextEncoder().encode("I am vegetarian");
    await put("m1", await cipher.encrypt(owner, plaintext, { memoryId: "m1" }));
    await put("m2", new Uint8Array([1, 2, 3]), "a vector its client sealed");
    await put("m3", await cipher.encrypt(owner, plaintext, { memoryId: "m3" }));
    await cipher.erase(owner, ["m3"]);
    await backends.close();

    let lines: string[];
    ({ backends, vectors, lines } = await start(dataDir));
    assert.ok(lines.some((l) => /imported memories whose blob could not be read/.test(l)));
    const info = new Map((await vectors.terms(owner, namespace)).map((row) => [row.id, row.info]));
    const hasher = await TermHasher.fromSecret(secret);
    assert.deepEqual(info.get("m1"), { digest: await hasher.digest(owner, "I am vegetarian") });
    assert.deepEqual(info.get("m2"), { manual: true });
    assert.equal(info.get("m3")?.digest, undefined, "a text that cannot be read stays as it was");
    await backends.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("upgrade: the index a reindex builds knows the LanceDB index was imported", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-import-" });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const open = (name: string) =>
    EncryptedVectorStore.open({ path: `${dir}/${name}.kv`, secret, model: "m", dimensions: 4 });
  const stores = [await open("index"), await open("index-2"), await open("a"), await open("b")];
  const [imported, built, never, rebuilt] = stores;
  try {
    await imported.setNote("lancedb-import", "done");
    await carryImportNote(imported, built);
    assert.equal(await built.note("lancedb-import"), "done");
    await carryImportNote(never, rebuilt);
    assert.equal(await rebuilt.note("lancedb-import"), null, "nothing imported: nothing noted");
  } finally {
    for (const store of stores) await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
