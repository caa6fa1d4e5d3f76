import assert from "node:assert/strict";
import { LexicalEmbedder } from "@svc/lexical-embedder";
import { createLogger } from "@svc/relayer/kit";
import { openBackends, readConfig } from "./mod.ts";

const embedder = new LexicalEmbedder();

/** Opens the backends of `dataDir` with `store` (unset when undefined), remembers `add` rows. */
async function start(dataDir: string, store?: string, add = 0): Promise<number> {
  const env: Record<string, string> = { SVC_DATA_DIR: dataDir, SVC_EMBEDDER: "lexical" };
  if (store) env.SVC_VECTOR_STORE = store;
  const config = readConfig(env);
  assert.ok(config.ok);
  const backends = await openBackends(config.config, createLogger("error", () => {}));
  try {
    const { vectors } = backends.relayer;
    const before = await vectors.count();
    const ids = Array.from({ length: add }, (_, i) => before + i);
    const embedded = await embedder.embed(ids.map((i) => `memory ${i}`));
    await vectors.upsert(ids.map((i, n) => ({
      id: `m${i}`,
      owner: "0xowner",
      namespace: "home",
      blobId: `b${i}`,
      vector: embedded[n],
      createdAt: i,
    })));
    return await vectors.count();
  } finally {
    await backends.close();
  }
}

Deno.test("vector store: another store than the one holding the memories is refused", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-store-kind-" });
  try {
    assert.equal(await start(dataDir, undefined, 2), 2);
    for (const other of ["lancedb", "memory"]) {
      await assert.rejects(
        start(dataDir, other),
        new RegExp(
          `${dataDir} has 2 memories in the encrypted vector store's index; ` +
            `SVC_VECTOR_STORE=${other} keeps another index, which recall and list would ` +
            "answer from instead\\. Start with SVC_VECTOR_STORE unset \\(or encrypted\\)\\. To move to another " +
            "store, export",
        ),
      );
    }
    assert.equal(await start(dataDir, "encrypted"), 2, "the memories are still served");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("vector store: an empty index may be left for another store, and recorded", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-store-kind-" });
  try {
    assert.equal(await start(dataDir), 0);
    assert.equal(await start(dataDir, "lancedb", 1), 1, "nothing in the encrypted index to miss");
    await assert.rejects(
      start(dataDir, "encrypted"),
      /has 1 memory in the lancedb vector store's index;.*Start with SVC_VECTOR_STORE=lancedb, or unset to import it/,
    );
    await assert.rejects(start(dataDir, "memory"), /in the lancedb vector store's index/);
    assert.equal(await start(dataDir, "lancedb"), 1);
    // The upgrade: unset, the encrypted index imports LanceDB's rows, and serves from then on.
    assert.equal(await start(dataDir), 1);
    await assert.rejects(start(dataDir, "lancedb"), /in the encrypted vector store's index/);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
