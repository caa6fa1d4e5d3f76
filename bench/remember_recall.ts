/**
 * Benchmark of the embedded default (the encrypted index, or LanceDB with `--store lancedb`;
 * SQLite blobs, local cipher, GloVe embedder, hybrid recall) over real HTTP on 127.0.0.1: time
 * from remember (202) to recallable; ingest rate through the job queue; recall latency and resident
 * memory at each namespace size; embedding rate; the embedder's start with a warm cache. Prints
 * a summary and writes `bench/results/remember_recall.json` (or `--out`).
 *
 *   deno task bench [--samples 200] [--memories 10000,100000] [--store encrypted|lancedb]
 *                   [--out FILE]
 */
import { fileURLToPath } from "node:url";
import { assembleRelayer } from "../src/relayer.ts";
import { MemoryAccountDirectory } from "../src/backends/memory.ts";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { SvcClient } from "../src/client/mod.ts";
import { type BenchStore, openBenchVectors } from "./vector_store.ts";
import { SqliteBlobStore } from "../plugins/sqlite_blob/mod.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { loadMasterKey } from "../app/master_key.ts";
import { masterKeyFileOf } from "../app/config.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { TermHasher } from "../src/ranking/terms.ts";
import { loadThroughBackends } from "./backend_load.ts";
import { percentile, resultsFile, round, writeResults } from "./harness.ts";
import { flags, whole, wholes } from "./flags.ts";
import { openKvStores } from "@svc/denokv";

const { values } = flags({
  options: {
    samples: { type: "string", default: "200" },
    memories: { type: "string", default: "10000,100000" },
    "models-dir": { type: "string", default: "./data/models" },
    store: { type: "string", default: "encrypted" },
    out: {
      type: "string",
      default: resultsFile("remember_recall.json"),
    },
  },
});
const SAMPLES = whole(values.samples, "--samples");
const SIZES = wholes(values.memories, "--memories");

function summary(ms: number[]) {
  const sorted = ms.toSorted((a, b) => a - b);
  return {
    n: ms.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    max_ms: round(sorted.at(-1)!),
  };
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-bench-" });
// Before any store: a data directory holding one already must hold its master key too.
const masterKey = await loadMasterKey(dataDir, masterKeyFileOf(Deno.env.toObject(), dataDir));
const embedder = await GloveEmbedder.open({ cacheDir: values["models-dir"] });
const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
const directory = new MemoryAccountDirectory();
const secret = crypto.getRandomValues(new Uint8Array(32));
const STORE = values.store as BenchStore;
const vectors = await openBenchVectors(STORE, dataDir, embedder, secret);
const cipher = await LocalCipher.open({
  masterKey,
  keyStorePath: `${dataDir}/keys.sqlite`,
});
const blobs = await SqliteBlobStore.open({ path: `${dataDir}/blobs/blobs.sqlite`, secret });
const relayer = await assembleRelayer({
  ...await openKvStores(kv, secret),
  secret,
  directory,
  cipher,
  blobs,
  vectors,
  embedder,
  reranker: embedder.reranker(),
});
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, relayer.handler);
const key = await generateKeyPair();
const owner = addressOf((await generateKeyPair()).publicKey);
directory.add({ accountId: "0x01", owner, active: true }, [key.publicKey]);
const client = await SvcClient.create({
  baseUrl: `http://127.0.0.1:${server.addr.port}`,
  privateKey: key.privateKey,
  accountId: "0x01",
});

// 1. remember (202) → recallable, one memory at a time, polling recall every 2 ms.
const toRecallable: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const text = `latency sample ${i} mentions token q${i}z${crypto.randomUUID().slice(0, 8)}`;
  const answer = await client.remember(text, { namespace: "latency" });
  if (answer.status === "duplicate") throw new Error("a sample text is a duplicate");
  const { job_id } = answer;
  const accepted = performance.now();
  while (true) {
    const { results } = await client.recall(text, { namespace: "latency", limit: 3 });
    if (results.some((r) => r.id === job_id)) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  toRecallable.push(performance.now() - accepted);
}

// 2. ingest through the job queue (bulk remember of 20), at most 2,000 memories.
const topics = ["coffee", "hiking", "python", "jazz", "gardening", "chess", "sushi", "cycling"];
const textOf = (i: number) =>
  `memory ${i}: the user enjoys ${topics[i % topics.length]} on day ${i % 365} with friend ${
    i % 997
  }`;
const queued = Math.min(2000, SIZES[0]);
const ingestStart = performance.now();
for (let i = 0; i < queued; i += 20) {
  await relayer.service.remember(
    owner,
    Array.from({ length: Math.min(20, queued - i) }, (_, j) => ({
      text: textOf(i + j),
      namespace: "ingest",
    })),
  );
}
while ((await vectors.count({ owner, namespace: "ingest" })) < queued) {
  await new Promise((r) => setTimeout(r, 50));
}
const ingestPerSecond = Math.round(queued / ((performance.now() - ingestStart) / 1000));

/** Memory use of a fresh relayer process serving `namespace` (see `resident_memory.ts`). */
async function residentMemory(namespace: string): Promise<unknown> {
  const script = fileURLToPath(new URL("./resident_memory.ts", import.meta.url));
  const { stdout, success } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--unstable-kv",
      script,
      dataDir,
      values["models-dir"]!,
      owner,
      namespace,
      STORE,
    ],
    env: { SVC_BENCH_SECRET: secret.toHex() },
    stdout: "piped",
  }).output();
  if (!success) throw new Error("the resident memory probe failed");
  return JSON.parse(new TextDecoder().decode(stdout).trim().split("\n").at(-1)!);
}

// 3. recall latency at each size, in a namespace of that size, bulk-loaded through the
// backends (encrypt, blob, embed, term hashes, index) rather than the job queue.
const hasher = await TermHasher.fromSecret(secret);
const recallAt: Record<string, unknown>[] = [];
for (const size of SIZES) {
  const namespace = `n${size}`;
  const texts = Array.from({ length: size }, (_, i) => textOf(i));
  await loadThroughBackends({ embedder, cipher, blobs, vectors, hasher }, owner, namespace, texts);
  await vectors.idle(); // steady state: the vector index is built
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES + 5; i++) {
    const started = performance.now();
    await client.recall(`does the user like ${topics[i % topics.length]} with friend ${i}?`, {
      namespace,
      limit: 10,
    });
    if (i >= 5) ms.push(performance.now() - started); // the first recalls load the BM25 index
  }
  recallAt.push({
    memories: size,
    ...summary(ms),
    bench_process_rss_mb: Math.round(Deno.memoryUsage().rss / 2 ** 20),
    relayer_process: await residentMemory(namespace),
  });
  console.log(JSON.stringify(recallAt.at(-1)));
}

// 4. embedding rate, and the embedder's start with a warm cache.
const sentences = Array.from({ length: 20_000 }, (_, i) => textOf(i));
const embedStart = performance.now();
await embedder.embed(sentences);
const embedPerSecond = Math.round(20_000 / ((performance.now() - embedStart) / 1000));
const openStart = performance.now();
await GloveEmbedder.open({ cacheDir: values["models-dir"] });
const warmOpenMs = Math.round(performance.now() - openStart);

const result = {
  date: new Date().toISOString(),
  machine: `${navigator.hardwareConcurrency} cores, ${
    Math.round(Deno.systemMemoryInfo().total / 2 ** 30)
  } GiB, ${Deno.build.os}-${Deno.build.arch}, deno ${Deno.version.deno}`,
  backends: { vectorStore: STORE, blobStore: "sqlite", cipher: "local", embedder: embedder.model },
  remember_to_recallable: summary(toRecallable),
  recall_at: recallAt,
  ingest_memories_per_second: ingestPerSecond,
  embed_sentences_per_second: embedPerSecond,
  embedder_warm_open_ms: warmOpenMs,
};
console.log(JSON.stringify(result, null, 2));
await writeResults(values.out!, result);

await server.shutdown();
await relayer.close();
await vectors.close();
await cipher.close();
await blobs.close();
kv.close();
await Deno.remove(dataDir, { recursive: true });
