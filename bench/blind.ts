/**
 * Operator-blind memory as users run it: the relayer as its own process (`deno task start`),
 * clients (`BlindMemory`) embedding with an ONNX model in this process and keeping vectors in the
 * encrypted index, in memory. One device remembers
 * `--memories` short facts (`fact_workload.ts`) in batches of 100. The benchmark then measures:
 * - a recall with a warm cache, the signed sync check included, p50 and p95 over `--recalls`
 *   questions, beside the model's own time for one query;
 * - a first sync of every memory to a new device;
 * - remember → recalled on another device (its recall syncs first), p95 over 50 more facts;
 * - the relayer's CPU per sync check (`GET /api/blind`, nothing changed);
 * - the data directory's growth per memory, against the same facts remembered in a normal
 *   namespace by a relayer embedding with the same model.
 * Writes `bench/results/blind.json`.
 *
 *   deno task bench:blind --model-dir DIR [--memories 10000] [--recalls 200] [--models-dir DIR]
 *
 * `--models-dir` holds the GloVe word vectors the relayer loads for its re-ranker; the clients
 * load the same re-ranker.
 */
import { blindDevices } from "./blind_devices.ts";
import {
  newAccountClient,
  startRelayer,
  svcCli,
  TEST_MODELS_DIR,
} from "../tests/relayer_process.ts";
import { factWorkload, spreadIndexes } from "./fact_workload.ts";
import { diskBytes, machine, percentiles, resultsFile, round, writeResults } from "./harness.ts";
import { ingest, processCpuMs } from "./load_generator.ts";
import { flags, usage, whole } from "./flags.ts";

const { values } = flags({
  options: {
    "model-dir": { type: "string" },
    "models-dir": { type: "string", default: TEST_MODELS_DIR },
    memories: { type: "string", default: "10000" },
    recalls: { type: "string", default: "200" },
    out: { type: "string", default: resultsFile("blind.json") },
  },
});
const modelDir = values["model-dir"] ?? usage("--model-dir DIR is required (an ONNX model)");
const MEMORIES = whole(values.memories, "--memories");
const RECALLS = whole(values.recalls, "--recalls");

const devices = await blindDevices(modelDir, values["models-dir"]!);
const { embedder } = devices;
const facts = factWorkload(MEMORIES);
const dataDir = await Deno.makeTempDir({ prefix: "svc-bench-blind-" });
const env = { SVC_EMBEDDER: "onnx", SVC_ONNX_MODEL_DIR: modelDir };
const relayer = await startRelayer(dataDir, env);
const account = await newAccountClient(dataDir, relayer.url);
/** A device of the account, reading the namespace "blind". */
const device = (privateKey: string) =>
  devices.device({ baseUrl: relayer.url, privateKey, accountId: account.accountId }, "blind");

const timed = async <T>(work: () => Promise<T>) => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

// One device remembers every fact.
const laptop = await device(account.privateKey);
await laptop.enable();
const emptyBytes = await diskBytes(dataDir);
const rememberMs = await timed(async () => {
  for (let i = 0; i < facts.length; i += 100) {
    await laptop.remember(facts.slice(i, i + 100).map(({ text }) => ({ text })));
  }
});
const blindBytes = (await diskBytes(dataDir)) - emptyBytes;

// Recall with a warm cache; the model alone on one query, for comparison.
const questions = spreadIndexes(facts.length, RECALLS).map((i) => facts[i]);
const recallMs: number[] = [];
const modelMs: number[] = [];
let hits = 0;
for (const { text, question } of questions) {
  modelMs.push(await timed(() => embedder.embed([question + " ?"])));
  const started = performance.now();
  const { results } = await laptop.recall(question, { limit: 3 });
  recallMs.push(performance.now() - started);
  if (results.some((result) => result.text === text)) hits++;
}

// A new device's first sync, then remember → recallable there.
const phoneKey = await svcCli(dataDir, ["key", "add", "--account", account.accountId]);
await laptop.letIn(phoneKey.publicKey);
const phone = await device(phoneKey.privateKey);
const firstSyncMs = await timed(() => phone.sync());
const seenMs: number[] = [];
let unseen = 0;
for (const { text, question } of factWorkload(MEMORIES + 50).slice(MEMORIES)) {
  const started = performance.now();
  await laptop.remember([{ text }]);
  const { results } = await phone.recall(question, { limit: 10 });
  seenMs.push(performance.now() - started);
  if (!results.some((result) => result.text === text)) unseen++;
}

// The relayer's CPU per sync check with nothing new, from one client and from 20 at once.
const CHECKS = 2000;
async function relayerCpu(clients: number, call: () => Promise<unknown>) {
  const cpuBefore = processCpuMs(relayer.process.pid);
  const ms = await timed(() =>
    Promise.all(Array.from({ length: clients }, async () => {
      for (let i = 0; i < CHECKS / clients; i++) await call();
    }))
  );
  const cpu = (processCpuMs(relayer.process.pid) - cpuBefore) / CHECKS;
  return { relayer_cpu_ms: round(cpu, 3), per_s: Math.round(CHECKS / (ms / 1000)) };
}
// A signed whoami, the floor of any signed request, for comparison.
const syncCheck = {
  one_client: await relayerCpu(1, () => phone.sync()),
  twenty_clients: await relayerCpu(20, () => phone.sync()),
  whoami_twenty_clients: await relayerCpu(20, () => account.client.whoami()),
};

// The same facts in a normal namespace, embedded by the relayer with the same model.
const beforeNormal = await diskBytes(dataDir);
await ingest(account.client, facts, "normal");
const normalBytes = (await diskBytes(dataDir)) - beforeNormal;
let normalHits = 0;
for (const { text, question } of questions) {
  const { results } = await account.client.recall(question, { namespace: "normal", limit: 3 });
  if (results.some((result) => result.text === text)) normalHits++;
}

const results = {
  machine: machine(),
  model: embedder.model,
  memories: MEMORIES,
  remember_per_s: round(MEMORIES / (rememberMs / 1000)),
  recall: {
    ...percentiles(recallMs),
    hit_at_3: round(hits / questions.length, 3),
    normal_hit_at_3: round(normalHits / questions.length, 3),
  },
  model_one_query: percentiles(modelMs),
  first_sync_s: round(firstSyncMs / 1000, 2),
  remember_to_other_device: { ...percentiles(seenMs), not_in_top_10: unseen },
  sync_check: syncCheck,
  bytes_per_memory: {
    blind: Math.round(blindBytes / MEMORIES),
    normal: Math.round(normalBytes / MEMORIES),
  },
};
console.log(JSON.stringify(results, null, 2));
await writeResults(values.out, results);
await relayer.stop();
await embedder.close();
await Deno.remove(dataDir, { recursive: true });
