/**
 * Resident memory of a relayer serving a namespace that `remember_recall.ts` built: a fresh
 * process opens the data directory as `main.ts` would (the vector store it was built with, SQLite
 * blobs, local cipher, GloVe, the lexical index), runs recalls, and prints one JSON line with its
 * memory use. The parent benchmark starts it; the term-hash secret comes in `SVC_BENCH_SECRET`
 * (hex).
 *
 *   deno run -A --unstable-kv bench/resident_memory.ts <data dir> <models dir> <owner> <namespace> <encrypted|lancedb>
 */
import { assembleRelayer } from "../src/relayer.ts";
import { MemoryAccountDirectory } from "../src/backends/memory.ts";
import { type BenchStore, openBenchVectors } from "./vector_store.ts";
import { SqliteBlobStore } from "../plugins/sqlite_blob/mod.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { loadMasterKey } from "../app/master_key.ts";
import { masterKeyFileOf } from "../app/config.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { openKvStores } from "@svc/denokv";

const [dataDir, modelsDir, owner, namespace, store] = Deno.args;
const secret = Uint8Array.fromHex(Deno.env.get("SVC_BENCH_SECRET")!);
const masterKey = await loadMasterKey(dataDir, masterKeyFileOf(Deno.env.toObject(), dataDir));
const embedder = await GloveEmbedder.open({ cacheDir: modelsDir });
const vectors = await openBenchVectors(store as BenchStore, dataDir, embedder, secret);
const kv = await Deno.openKv(":memory:");
const blobs = await SqliteBlobStore.open({ path: `${dataDir}/blobs/blobs.sqlite`, secret });
const relayer = await assembleRelayer({
  ...await openKvStores(kv, secret),
  secret,
  directory: new MemoryAccountDirectory(),
  cipher: await LocalCipher.open({
    masterKey,
    keyStorePath: `${dataDir}/keys.sqlite`,
  }),
  blobs,
  vectors,
  embedder,
  reranker: embedder.reranker(),
  processJobs: false,
});
const topics = ["coffee", "hiking", "python", "jazz", "gardening", "chess", "sushi", "cycling"];
let found = 0;
for (let i = 0; i < 100; i++) {
  const query = `does the user like ${topics[i % topics.length]} with friend ${i}?`;
  found += (await relayer.service.recall(owner, query, 10, namespace)).total;
}
const usage = Deno.memoryUsage();
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
console.log(JSON.stringify({
  rss_mb: mb(usage.rss),
  js_heap_mb: mb(usage.heapUsed),
  external_mb: mb(usage.external),
  results: found,
}));
await relayer.close();
await vectors.close();
await blobs.close();
kv.close();
