/**
 * Where a signed recall's time goes, stage by stage, in process: the embedded default's backends
 * (encrypted index, SQLite blobs, local cipher, GloVe embedder and re-ranker, keyed terms) over a
 * namespace of `--memories` short facts (`fact_workload.ts`), each stage timed alone over
 * `--runs` calls with the facts' questions. The whole recall and the whole signed request through
 * the relayer's handler are timed too, so the stages can be read against them. Figures are per
 * call, in microseconds. Prints a table and writes `bench/results/recall_stages.json`.
 *
 *   deno task bench:stages [--memories 1000,10000] [--runs 500] [--models-dir DIR]
 *                          [--model-dir DIR] [--out FILE]
 *
 * `--model-dir` embeds with that ONNX model directory instead of GloVe (the GloVe re-ranker
 * stays, as in the relayer).
 *
 * The throughput of the whole relayer, as users run it, is `bench/load.ts`.
 */
import { assembleRelayer } from "../src/relayer.ts";
import { MemoryAccountDirectory } from "../src/backends/memory.ts";
import { addressOf, generateKeyPair, sha256Hex } from "@svc/util/keys";
import { verifyEd25519 } from "@svc/util/ed25519";
import { signingMessage, signRequest } from "../src/auth/signing.ts";
import { SqliteBlobStore } from "../plugins/sqlite_blob/mod.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { OnnxEmbedder } from "../plugins/onnx_embedder/mod.ts";
import { TermHasher } from "../src/ranking/terms.ts";
import { LexicalIndex } from "../src/ranking/lexicon.ts";
import { openBenchVectors } from "./vector_store.ts";
import { factWorkload } from "./fact_workload.ts";
import { loadThroughBackends } from "./backend_load.ts";
import { machine, resultsFile, writeResults } from "./harness.ts";
import { flags, whole, wholes } from "./flags.ts";
import { KvStateStore, openKvStores } from "@svc/denokv";
import { StateReplayGuard } from "../src/auth/state_replay_guard.ts";

const { values } = flags({
  options: {
    memories: { type: "string", default: "1000,10000" },
    runs: { type: "string", default: "500" },
    "models-dir": { type: "string", default: "./data/models" },
    "model-dir": { type: "string" },
    out: { type: "string", default: resultsFile("recall_stages.json") },
  },
});
const SIZES = wholes(values.memories, "--memories");
const RUNS = whole(values.runs, "--runs");

/** Mean microseconds per call of `stage(i)` over `RUNS` calls, after 20 warm-up calls. */
async function time(stage: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < 20; i++) await stage(i);
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) await stage(i);
  return Math.round((performance.now() - started) * 1000 / RUNS);
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-stages-" });
const glove = await GloveEmbedder.open({ cacheDir: values["models-dir"] });
const embedder = values["model-dir"]
  ? await OnnxEmbedder.open({ dir: values["model-dir"] })
  : glove;
const reranker = glove.reranker();
const secret = crypto.getRandomValues(new Uint8Array(32));
const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
const vectors = await openBenchVectors("encrypted", dataDir, embedder, secret);
const cipher = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
const blobs = await SqliteBlobStore.open({ path: `${dataDir}/blobs/blobs.sqlite`, secret });
const hasher = await TermHasher.fromSecret(secret);
const directory = new MemoryAccountDirectory();
const relayer = await assembleRelayer({
  ...await openKvStores(kv, secret),
  secret,
  directory,
  cipher,
  blobs,
  vectors,
  embedder,
  reranker,
});
const key = await generateKeyPair();
const owner = addressOf((await generateKeyPair()).publicKey);
directory.add({ accountId: "0x01", owner, active: true }, [key.publicKey]);
const replayGuard = await StateReplayGuard.open(
  new KvStateStore(await Deno.openKv(`${dataDir}/replay.kv`)),
);

const rows: Record<string, number | string>[] = [];
for (const size of SIZES) {
  const namespace = `facts-${size}`;
  const facts = factWorkload(size);
  await loadThroughBackends(
    { embedder, cipher, blobs, vectors, hasher },
    owner,
    namespace,
    facts.map((fact) => fact.text),
  );
  const question = (i: number) => facts[(i * 104_729) % size].question;
  const lexicon = new LexicalIndex(vectors);
  const index = await lexicon.namespace(owner, namespace);
  const queryVector = (await embedder.embed([question(0)]))[0];
  const hits = await vectors.search(owner, namespace, queryVector, 40);
  const stored = await Promise.all(hits.map((hit) => blobs.get(hit.blobId)));
  const texts = await Promise.all(
    stored.map(async (bytes) => new TextDecoder().decode(await cipher.decrypt(owner, bytes!))),
  );
  const body = JSON.stringify({ query: question(0), namespace, limit: 10 });
  const message = signingMessage({
    timestamp: Math.floor(Date.now() / 1000),
    method: "POST",
    path: "/api/recall",
    bodySha256: await sha256Hex(body),
    nonce: "n",
    audience: "http://bench.test",
  });
  const signature = key.sign(new TextEncoder().encode(message)).toHex();
  const answer = await relayer.service.recall(owner, question(0), 10, namespace);
  const request = async (i: number) =>
    new Request("http://127.0.0.1/api/recall", {
      method: "POST",
      headers: {
        ...await signRequest({
          key,
          method: "POST",
          path: "/api/recall",
          body: JSON.stringify({ query: question(i), namespace, limit: 10 }),
          nonce: true,
          audience: "http://127.0.0.1",
          accountId: "0x01",
        }),
        "content-type": "application/json",
      },
      body: JSON.stringify({ query: question(i), namespace, limit: 10 }),
    });

  const stages: [string, (i: number) => unknown][] = [
    ["client: sign a request", (i) => request(i)],
    ["sha256 of the body", () => sha256Hex(body)],
    ["Ed25519 verify", () => verifyEd25519(key.publicKey, signature, message)],
    ["replay claim (Deno KV)", () => replayGuard.claim(crypto.randomUUID(), 60_000)],
    ["embed the query", (i) => embedder.embed([question(i)])],
    ["keyed terms of the query", (i) => hasher.hashQuery(owner, question(i))],
    [
      "lexical search (BM25)",
      async (i) => index.search(await hasher.hashQuery(owner, question(i)), 30),
    ],
    ["vector search (30)", () => vectors.search(owner, namespace, queryVector, 30)],
    ["40 blob reads", () => Promise.all(hits.map((hit) => blobs.get(hit.blobId)))],
    ["40 decryptions", () => Promise.all(stored.map((bytes) => cipher.decrypt(owner, bytes!)))],
    ["re-rank 40 texts", (i) => reranker.rerank(question(i), texts)],
    ["JSON of the answer", () => JSON.stringify(answer)],
    ["service recall (whole)", (i) => relayer.service.recall(owner, question(i), 10, namespace)],
    ["signed HTTP recall (handler)", async (i) => {
      const response = await relayer.handler(await request(i));
      if (!response.ok) throw new Error(await response.text());
      await response.arrayBuffer();
    }],
  ];
  for (const [stage, run] of stages) {
    rows.push({ memories: size, stage, us_per_call: await time(run) });
    console.log(JSON.stringify(rows.at(-1)));
  }
}

const result = {
  date: new Date().toISOString(),
  machine: machine(),
  embedder: embedder.model,
  runs: RUNS,
  stages: rows,
};
console.table(rows);
await writeResults(values.out!, result);
await relayer.close();
await blobs.close();
kv.close();
await Deno.remove(dataDir, { recursive: true });
Deno.exit(0);
