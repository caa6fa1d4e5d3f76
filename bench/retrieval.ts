/**
 * Retrieval quality on LoCoMo (Maharana et al., 2024): recall@k of the evidence turns.
 *
 *   deno task bench:retrieval ../shared/bench/locomo10.json [--embedder glove|lexical|ollama|openai]
 *                             [--store encrypted|lancedb] [--out FILE]
 *
 * Each dialogue turn is remembered as one memory, "<speaker>: <text>" (plus the shared image's
 * caption), in a namespace per conversation, through the relayer's own service layer (the
 * configured embedder with its re-ranker if it has one, the vector store — the encrypted index
 * by default, as in the relayer — and the recall ranking). Every question of categories 1–4 with evidence is then recalled with limit 20.
 * Conversations conv-26, -30, -41, -42 and -43 are the tuning split; the other five are held
 * out. The data file is not part of the project. Writes `bench/results/retrieval.json`.
 */
import { parseArgs } from "node:util";
import { assembleRelayer } from "../src/relayer.ts";
import type { Embedder, Reranker } from "../src/backends/types.ts";
import { MemoryAccountDirectory, MemoryBlobStore } from "../src/backends/memory.ts";
import { type BenchStore, openBenchVectors } from "./vector_store.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    embedder: { type: "string", default: "glove" },
    "models-dir": { type: "string", default: "./data/models" },
    store: { type: "string", default: "encrypted" },
    out: { type: "string", default: new URL("./results/retrieval.json", import.meta.url).pathname },
  },
});
if (positionals.length !== 1) {
  console.error("usage: deno task bench:retrieval <path/to/locomo10.json> [--embedder glove]");
  Deno.exit(2);
}

const TUNING = new Set(["conv-26", "conv-30", "conv-41", "conv-42", "conv-43"]);
const CATEGORIES: Record<number, string> = {
  1: "multi-hop",
  2: "temporal",
  3: "open-domain",
  4: "single-hop",
};
const KS = [5, 10, 20];

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Conversation {
  sample_id: string;
  conversation: Record<string, Turn[] | string>;
  qa: { question: string; evidence: string[]; category: number }[];
}

/** The embedder, and its re-ranker when it has one (GloVe's word-level soft match). */
async function openEmbedder(name: string): Promise<{ embedder: Embedder; reranker?: Reranker }> {
  if (name === "lexical") return { embedder: new LexicalEmbedder() };
  if (name === "glove") {
    const embedder = await GloveEmbedder.open({ cacheDir: values["models-dir"] });
    return { embedder, reranker: embedder.reranker() };
  }
  if (name === "ollama") {
    const { OllamaEmbedder, DEFAULT_OLLAMA_EMBED_MODEL } = await import("../plugins/ollama/mod.ts");
    const embedder = await OllamaEmbedder.open({
      host: Deno.env.get("OLLAMA_HOST"),
      model: Deno.env.get("SVC_EMBED_MODEL") ?? DEFAULT_OLLAMA_EMBED_MODEL,
    });
    return { embedder };
  }
  if (name === "openai") {
    const { OpenAiEmbedder, DEFAULT_OPENAI_EMBED_MODEL } = await import("../plugins/openai/mod.ts");
    const embedder = await OpenAiEmbedder.open({
      apiKey: Deno.env.get("OPENAI_API_KEY"),
      baseURL: Deno.env.get("OPENAI_BASE_URL"),
      model: Deno.env.get("SVC_EMBED_MODEL") ?? DEFAULT_OPENAI_EMBED_MODEL,
    });
    return { embedder };
  }
  throw new Error(`unknown embedder ${name}`);
}

const data: Conversation[] = JSON.parse(await Deno.readTextFile(positionals[0]));
const { embedder, reranker } = await openEmbedder(values.embedder!);
const dataDir = await Deno.makeTempDir({ prefix: "svc-retrieval-" });
const secret = crypto.getRandomValues(new Uint8Array(32));
const vectors = await openBenchVectors(values.store as BenchStore, dataDir, embedder, secret);
const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
const relayer = await assembleRelayer({
  kv,
  secret,
  directory: new MemoryAccountDirectory(),
  cipher: await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) }),
  blobs: new MemoryBlobStore(),
  vectors,
  embedder,
  reranker,
  concurrency: 8,
});
const owner = "0x" + "ab".repeat(32);

// Remember every turn; map memory ids back to dialogue ids (a turn equal to an earlier one of its
// conversation is stored once: that memory stands for both).
const jobTurns = new Map<string, string>();
const started = performance.now();
for (const conversation of data) {
  const turns = Object.entries(conversation.conversation)
    .filter(([key, value]) => /^session_\d+$/.test(key) && Array.isArray(value))
    .flatMap(([, value]) => value as Turn[]);
  for (let i = 0; i < turns.length; i += 20) {
    const batch = turns.slice(i, i + 20);
    const jobs = await relayer.service.remember(
      owner,
      batch.map((turn) => ({
        text: `${turn.speaker}: ${turn.text}` +
          (turn.blip_caption ? ` [shares ${turn.blip_caption}]` : ""),
        namespace: conversation.sample_id,
      })),
    );
    jobs.forEach((job, j) => jobTurns.set(job.job_id, batch[j].dia_id));
  }
}
const turnsOf = new Map<string, Set<string>>();
for (const jobIds of Map.groupBy(jobTurns.keys(), (_, i) => Math.floor(i / 100)).values()) {
  let jobs = await relayer.service.jobs(owner, jobIds);
  while (jobs.some((job) => job.status !== "done" && job.status !== "failed")) {
    await new Promise((r) => setTimeout(r, 200));
    jobs = await relayer.service.jobs(owner, jobIds);
  }
  for (const job of jobs) {
    const memoryId = "memory_id" in job && job.memory_id ? job.memory_id : job.job_id;
    if (!turnsOf.has(memoryId)) turnsOf.set(memoryId, new Set());
    turnsOf.get(memoryId)!.add(jobTurns.get(job.job_id)!);
  }
}
const total = jobTurns.size;
const ingestSeconds = (performance.now() - started) / 1000;

// Ask every question of categories 1-4 with evidence.
type Sums = { n: number; recall: number[] };
const sums: Record<string, Record<string, Sums>> = {};
const add = (split: string, category: string, recall: number[]) => {
  const slot = ((sums[split] ??= {})[category] ??= { n: 0, recall: KS.map(() => 0) });
  slot.n++;
  recall.forEach((r, i) => slot.recall[i] += r);
};
const latencies: number[] = [];
for (const conversation of data) {
  const split = TUNING.has(conversation.sample_id) ? "tuning" : "held-out";
  for (const qa of conversation.qa) {
    if (!CATEGORIES[qa.category]) continue;
    const evidence = new Set(qa.evidence.flatMap((e) => e.split(/[;,]\s*/)).filter(Boolean));
    if (evidence.size === 0) continue;
    const asked = performance.now();
    const { results } = await relayer.service.recall(
      owner,
      qa.question,
      20,
      conversation.sample_id,
    );
    latencies.push(performance.now() - asked);
    const recall = KS.map((k) =>
      results.slice(0, k).flatMap((r) => [...turnsOf.get(r.id) ?? []])
        .filter((id) => evidence.has(id)).length / evidence.size
    );
    add(split, CATEGORIES[qa.category], recall);
    add(split, "all", recall);
  }
}

const report: Record<string, Record<string, Record<string, number>>> = {};
for (const [split, categories] of Object.entries(sums)) {
  for (const [category, { n, recall }] of Object.entries(categories)) {
    (report[split] ??= {})[category] = {
      n,
      ...Object.fromEntries(
        KS.map((k, i) => [`recall@${k}`, Math.round((recall[i] / n) * 1000) / 1000]),
      ),
    };
  }
}
latencies.sort((a, b) => a - b);
const result = {
  date: new Date().toISOString(),
  machine: `${navigator.hardwareConcurrency} cores, ${
    Math.round(Deno.systemMemoryInfo().total / 2 ** 30)
  } GiB, ${Deno.build.os}-${Deno.build.arch}, deno ${Deno.version.deno}`,
  embedder: embedder.model,
  vector_store: values.store,
  memories: total,
  ingest_seconds: Math.round(ingestSeconds),
  recall_p50_ms: Math.round(latencies[Math.floor(latencies.length / 2)] * 10) / 10,
  results: report,
};
for (const split of ["tuning", "held-out"]) {
  console.log(`\n${split} (${embedder.model})`);
  console.log("category      n     R@5    R@10   R@20");
  for (const category of [...Object.values(CATEGORIES), "all"]) {
    const row = report[split]?.[category];
    if (!row) continue;
    console.log(
      `${category.padEnd(12)} ${String(row.n).padStart(4)}  ${
        KS.map((k) => row[`recall@${k}`].toFixed(3)).join("  ")
      }`,
    );
  }
}
await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
await Deno.writeTextFile(values.out!, JSON.stringify(result, null, 2) + "\n");
await relayer.close();
await vectors.close();
kv.close();
await Deno.remove(dataDir, { recursive: true });
