/**
 * Benchmark: time from remember (202) to recallable, and recall latency at 10k memories, on
 * the embedded default (LanceDB, files, local cipher, lexical embedder) over real HTTP on
 * 127.0.0.1. Prints a summary and writes `bench/results/remember_recall.json`.
 *
 *   deno task bench [--samples 200] [--memories 10000]
 */
import { parseArgs } from "node:util";
import { createRelayer } from "../src/relayer.ts";
import { MemoryAccountDirectory } from "../src/backends/memory.ts";
import { addressOf, generateKeyPair } from "../src/auth/keys.ts";
import { SvcClient } from "../src/client/mod.ts";
import { LanceDbVectorStore } from "../plugins/lancedb/mod.ts";
import { FsBlobStore } from "../plugins/fs_blob/mod.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    samples: { type: "string", default: "200" },
    memories: { type: "string", default: "10000" },
  },
});
const SAMPLES = Number(values.samples);
const MEMORIES = Number(values.memories);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
function summary(ms: number[]) {
  const sorted = ms.toSorted((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    n: ms.length,
    p50_ms: round(percentile(sorted, 50)),
    p95_ms: round(percentile(sorted, 95)),
    max_ms: round(sorted.at(-1)!),
  };
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-bench-" });
const embedder = new LexicalEmbedder();
const vectors = await LanceDbVectorStore.open(`${dataDir}/lancedb`, embedder);
const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
const directory = new MemoryAccountDirectory();
const relayer = await createRelayer({
  kv,
  secret: crypto.getRandomValues(new Uint8Array(32)),
  directory,
  cipher: await LocalCipher.open({ dataDir }),
  blobs: await FsBlobStore.open(`${dataDir}/blobs`),
  vectors,
  embedder,
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
  const { job_id } = await client.remember(text, { namespace: "latency" });
  const accepted = performance.now();
  while (true) {
    const { results } = await client.recall(text, { namespace: "latency", limit: 3 });
    if (results.some((r) => r.id === job_id)) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  toRecallable.push(performance.now() - accepted);
}

// 2. recall latency with MEMORIES memories in one namespace.
const topics = ["coffee", "hiking", "python", "jazz", "gardening", "chess", "sushi", "cycling"];
const ingestStart = performance.now();
for (let i = 0; i < MEMORIES; i += 20) {
  const items = Array.from({ length: Math.min(20, MEMORIES - i) }, (_, j) => ({
    text: `memory ${i + j}: the user enjoys ${topics[(i + j) % topics.length]} on day ${
      (i + j) % 365
    }`,
    namespace: "large",
  }));
  const jobs = await relayer.service.remember(owner, items);
  if (i % 1000 === 0) {
    await Promise.all(jobs.map((j) => client.waitForJob(j.job_id, { timeoutMs: 120_000 })));
  }
}
while ((await vectors.count({ owner, namespace: "large" })) < MEMORIES) {
  await new Promise((r) => setTimeout(r, 100));
}
const ingestSeconds = (performance.now() - ingestStart) / 1000;
const recallMs: number[] = [];
for (let i = 0; i < SAMPLES; i++) {
  const started = performance.now();
  await client.recall(`does the user like ${topics[i % topics.length]}?`, {
    namespace: "large",
    limit: 10,
  });
  recallMs.push(performance.now() - started);
}

const result = {
  date: new Date().toISOString(),
  machine: `${navigator.hardwareConcurrency} cores, ${
    Math.round(Deno.systemMemoryInfo().total / 2 ** 30)
  } GiB, ${Deno.build.os}-${Deno.build.arch}, deno ${Deno.version.deno}`,
  backends: { vectorStore: "lancedb", blobStore: "fs", cipher: "local", embedder: embedder.model },
  remember_to_recallable: summary(toRecallable),
  recall_at_n: { memories: MEMORIES, ...summary(recallMs) },
  ingest_memories_per_second: Math.round(MEMORIES / ingestSeconds),
};
console.log(JSON.stringify(result, null, 2));
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(
  new URL("./results/remember_recall.json", import.meta.url),
  JSON.stringify(result, null, 2) + "\n",
);

await server.shutdown();
await relayer.close();
await vectors.close();
kv.close();
await Deno.remove(dataDir, { recursive: true });
