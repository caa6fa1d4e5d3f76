/**
 * The same memories and query give the same ranking, whatever background index work ran: the
 * relayer ingests (one memory at a time, so the encrypted index merges its small blocks as it
 * goes), erases a few, recalls, then its index is loaded again from storage and its catalog
 * built again (as after a restart or a reload of an evicted namespace), and recall answers
 * exactly as before: the same memories, scores and explanations.
 */
import assert from "node:assert/strict";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { MemoryAccountDirectory, MemoryBlobStore } from "../src/backends/memory.ts";
import { SvcClient } from "../src/client/mod.ts";
import { assembleRelayer } from "../src/relayer.ts";
import { EncryptedVectorStore } from "../plugins/encrypted_index/mod.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { TEST_MODELS_DIR } from "./relayer_process.ts";
import { openKvStores } from "@svc/denokv";

const BASE = "http://relayer.test";

/** Turns of two conversations and loose facts, with texts that tie exactly. */
function memories() {
  const out: { text: string; thread?: string }[] = [];
  const topics = ["the garden", "the new puppy", "a trip to Lisbon", "the band", "work"];
  for (let i = 0; i < 60; i++) {
    out.push({
      text: `Turn ${i % 7}: we talked about ${topics[i % topics.length]} again`,
      thread: `call-${i % 3}`,
    });
  }
  for (let i = 0; i < 30; i++) out.push({ text: `Fact ${i}: I like ${topics[i % 5]} a lot` });
  // The same text in three threads of its own: equal vectors, terms and scores.
  for (const thread of ["solo-1", "solo-2", "solo-3"]) {
    out.push({ text: "Thanks, talk soon!", thread });
  }
  return out;
}

const QUERIES = [
  "what did we say about the garden?",
  "the puppy",
  "Lisbon trip",
  "thanks",
  "which band do I like?",
  "quantum physics",
];

Deno.test("recall ranks the same after the index is loaded again and the catalog rebuilt", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-determinism-" });
  const embedder = await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const shared = {
    secret,
    directory: new MemoryAccountDirectory(),
    cipher: await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) }),
    blobs: new MemoryBlobStore(),
    embedder,
    reranker: embedder.reranker(),
    audiences: new Set([BASE]),
    allowedHosts: [new URL(BASE).host],
  };
  const key = await generateKeyPair();
  const accountId = "0x" + "d1".repeat(32);
  shared.directory.add(
    { accountId, owner: addressOf((await generateKeyPair()).publicKey), active: true },
    [key.publicKey],
  );
  const open = async () => {
    const kv = await Deno.openKv(`${dir}/jobs.kv`);
    const vectors = await EncryptedVectorStore.open({
      path: `${dir}/index.sqlite`,
      secret,
      model: embedder.model,
      dimensions: embedder.dimensions,
      soleWriter: true,
    });
    const relayer = await assembleRelayer({
      ...shared,
      ...await openKvStores(kv, shared.secret),
      vectors,
    });
    const client = await SvcClient.create({
      baseUrl: BASE,
      privateKey: key.privateKey,
      accountId,
      retries: 0,
      fetch: (input, init) => relayer.handler(new Request(input, init)),
    });
    return {
      client,
      async close() {
        await relayer.close();
        await vectors.close();
        kv.close();
      },
    };
  };
  const recallAll = async (client: SvcClient) => {
    const out = [];
    for (const query of QUERIES) {
      for (const limit of [1, 2, 5, 20]) {
        out.push(await client.recall(query, { limit, minScore: 0, explain: true }));
      }
    }
    return out;
  };
  try {
    let relayer = await open();
    const ids: string[] = [];
    for (const memory of memories()) {
      const answer = await relayer.client.remember(memory.text, { thread: memory.thread });
      assert.notEqual(answer.status, "duplicate");
      if (answer.status === "duplicate") continue;
      assert.equal((await relayer.client.waitForJob(answer.job_id)).status, "done");
      ids.push(answer.job_id);
    }
    // Erased memories stay out of the term statistics, held in memory or built again.
    for (const id of [ids[3], ids[40], ids[70]]) await relayer.client.forget(id);
    const before = await recallAll(relayer.client);
    const thanks = before[QUERIES.indexOf("thanks") * 4 + 3].results;
    const tied = thanks.filter((r) => r.text === "Thanks, talk soon!");
    assert.equal(tied.length, 3, "the three equal texts are found");
    assert.deepEqual(tied.map((r) => r.id), tied.map((r) => r.id).toSorted(), "ties by id");
    await relayer.close();

    relayer = await open();
    const after = await recallAll(relayer.client);
    await relayer.close();
    assert.deepEqual(after, before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
