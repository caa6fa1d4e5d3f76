/**
 * Peers: the same short-fact workload (`fact_workload.ts`) on svc, on mem0 OSS, on the reference
 * MCP memory server and on mcp-memory-service, side by side, at each of `--sizes` memories. For
 * each system and size, fresh: ingest the facts in batches of 20 (memories/s until all are
 * searchable), then after three untimed searches ask `--questions` facts' questions (spread
 * through the facts) one at a time (p50/p95, limit 10, hit@1 and hit@10), remember `--singles`
 * more facts one per call (memories/s until all are searchable), time `--probes` single writes
 * from the write call until a search for the text (limit 3) finds it, then read the resident
 * memory of the process that holds the memories; with `--rest`, read it again after that many
 * seconds without calls. One caller throughout, one call at a time.
 *
 * - svc: the relayer (`main.ts`, embedded default) as its own Deno process, over the public HTTP
 *   API with a signing `SvcClient` (no retries); timed at the client.
 * - mem0: `mem0ai/oss` `Memory` in a Node process of its own (in-memory store, `infer: false`,
 *   svc's GloVe vectors served by an OpenAI-compatible endpoint in this process, no LLM call);
 *   timed around the mem0 calls in that process. See `peers_mem0.ts`.
 * - mcp-memory: `@modelcontextprotocol/server-memory` under Node over stdio; timed at the MCP
 *   client. See `peers_mcp.ts`.
 * - mcp-memory-service: the Python package's HTTP server (sqlite-vec, all-MiniLM-L6-v2 through
 *   ONNX from local files) as its own process, one write per memory (it has no batch call);
 *   timed at the client. Skipped, with the reason, when its Python or the model is not there.
 *   See `peers_mcp_memory_service.ts`.
 *
 * Prints a table per size and writes `bench/results/peers.json` (or `--out`).
 *
 *   deno task bench:peers [--sizes 1000,10000] [--systems svc,mem0,mcp-memory,mcp-memory-service]
 *                         [--questions 200] [--singles 200] [--probes 50] [--rest SECONDS]
 *                         [--root CHECKOUT/] [--out FILE]
 *
 * `--root` runs another checkout's relayer as svc (a baseline), against the same harness.
 *
 * **Fact-set mode.** With `--facts FILE` (a fact set of `bench/facts/`, such as `probe.json`), the
 * size-based workload above is left out; instead, on each of svc, mem0 and mcp-memory-service,
 * fresh and with the same embedding model files (all-MiniLM-L6-v2, `--model-dir`), every fact's
 * text and every distractor is remembered in one namespace (batches of 20), then every fact's
 * question (limit 10) and every unanswerable question is asked: hit@1, hit@3 and hit@10 all
 * together and by the facts' kind, how many unanswerable questions found nothing, and search p50.
 * See `peers_facts.ts`. Prints a table (a row per figure, a column per system) and writes
 * `bench/results/peers_facts.json` (or `--out`).
 *
 *   deno task bench:peers --facts bench/facts/probe.json [--systems svc,mem0,mcp-memory-service]
 *                         [--model-dir DIR] [--root CHECKOUT/] [--out FILE]
 *
 * - svc: the relayer as above, with `SVC_EMBEDDER=onnx` and `SVC_ONNX_MODEL_DIR` the model
 *   directory; recall with its defaults (its default `min_score`, abstaining as it does).
 * - mem0: as above, but the endpoint serves the model directory's vectors through svc's ONNX
 *   embedder (`plugins/onnx_embedder`) in this process; mem0's search with its defaults.
 * - mcp-memory-service: as above, with the model directory's files.
 *
 * `--model-dir` is a sentence-transformers model directory (default `SVC_BENCH_MMS_MODEL`, else
 * `models/all-MiniLM-L6-v2`, which `python3 tests/models/fetch.py` fetches); in the size-based
 * mode it is mcp-memory-service's only.
 */
import { resolve } from "node:path";
import { OnnxEmbedder, readModelDirectory } from "../plugins/onnx_embedder/mod.ts";
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { factWorkload, spreadIndexes } from "./fact_workload.ts";
import {
  allDone,
  machine,
  percentiles,
  resultsFile,
  round,
  rssMb,
  tableOf,
  writeResults,
} from "./harness.ts";
import { installedVersion, prepareNode, startMem0 } from "./peers_mem0.ts";
import { startMcpMemory } from "./peers_mcp.ts";
import {
  mcpMemoryServiceVersion,
  MINILM_DIR,
  startMcpMemoryService,
} from "./peers_mcp_memory_service.ts";
import { factsTable, measureFacts } from "./peers_facts.ts";
import type { FactFile } from "./retrieval_sets.ts";
import { flags, oneOf, usage, whole, wholes } from "./flags.ts";

/** A memory system under measurement, driven by one caller. */
export interface PeerSystem {
  name: string;
  /** What holds the memories, in words. */
  holder: string;
  /** The process whose resident memory is reported. */
  pid: number;
  /** The embedding model, where the benchmark chose it. */
  embedder?: string;
  /** Adds each text as its own memory, in one call (or the closest the system offers). */
  addBatch(texts: string[], namespace: string): Promise<void>;
  /** Adds one memory. */
  addOne(text: string, namespace: string): Promise<void>;
  /** Resolves once everything added to `namespace` is searchable. */
  settle(namespace: string): Promise<void>;
  /** The texts of the best `limit` matches, best first, and the call's milliseconds. */
  search(query: string, namespace: string, limit: number): Promise<{ ms: number; texts: string[] }>;
  /** Milliseconds from writing `text` until a search for it finds it. */
  probe(text: string, namespace: string, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

const SYSTEMS = ["svc", "mem0", "mcp-memory", "mcp-memory-service"];
/** The systems of the fact-set mode: those that embed, each with the same model files. */
const FACT_SYSTEMS = ["svc", "mem0", "mcp-memory-service"];
const { values } = flags({
  options: {
    sizes: { type: "string", default: "1000,10000" },
    systems: { type: "string" },
    questions: { type: "string", default: "200" },
    singles: { type: "string", default: "200" },
    probes: { type: "string", default: "50" },
    rest: { type: "string", default: "0" },
    root: { type: "string" },
    facts: { type: "string" },
    "model-dir": { type: "string", default: MINILM_DIR },
    out: { type: "string" },
  },
});
const FACTS = values.facts;
const KNOWN = FACTS ? FACT_SYSTEMS : SYSTEMS;
const CHOSEN = oneOf(values.systems ?? KNOWN.join(","), "--systems", KNOWN);
const OUT = values.out ?? resultsFile(FACTS ? "peers_facts.json" : "peers.json");
const MODEL_DIR = resolve(values["model-dir"]!);
if (FACTS) await readModelDirectory({ dir: MODEL_DIR }).catch((error) => usage(error.message));
const FACT_FILE: FactFile | undefined = FACTS
  ? JSON.parse(await Deno.readTextFile(FACTS).catch((error) => usage(`--facts: ${error}`)))
  : undefined;
const SIZES = wholes(values.sizes, "--sizes");
const QUESTIONS = whole(values.questions, "--questions", 0);
const SINGLES = whole(values.singles, "--singles", 0);
const PROBES = whole(values.probes, "--probes", 0);
const REST_S = whole(values.rest, "--rest", 0);
const BATCH = 20;
const SETTLE_MS = 30 * 60_000;
const PROBE_MS = 30_000;

/** The relayer as users run it (with `env` added), over signed HTTP. */
async function startSvc(env: Record<string, string> = {}): Promise<PeerSystem> {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-peers-" });
  const relayer = await startRelayer(dataDir, env, { root: values.root });
  const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
  const client = await SvcClient.create({
    baseUrl: relayer.url,
    privateKey,
    accountId,
    retries: 0,
  });
  const pending = new Map<string, string[]>();
  const queued = (namespace: string, ids: string[]) =>
    pending.set(namespace, [...pending.get(namespace) ?? [], ...ids]);
  const search = async (query: string, namespace: string, limit: number) => {
    const started = performance.now();
    const { results } = await client.recall(query, { namespace, limit });
    return { ms: performance.now() - started, texts: results.map((r) => r.text) };
  };
  const how = env.SVC_EMBEDDER ? `SVC_EMBEDDER=${env.SVC_EMBEDDER}` : "embedded default";
  return {
    name: "svc",
    holder: `the relayer (main.ts, ${how}) in its own Deno process, over signed HTTP`,
    pid: relayer.process.pid,
    embedder: (await (await fetch(`${relayer.url}/health`)).json()).backends?.embedder,
    async addBatch(texts, namespace) {
      const { job_ids } = await client.rememberBulk(texts.map((text) => ({ text, namespace })));
      queued(namespace, job_ids);
    },
    async addOne(text, namespace) {
      const answer = await client.remember(text, { namespace });
      if (answer.status !== "duplicate") queued(namespace, [answer.job_id]);
    },
    async settle(namespace) {
      await allDone(client, pending.get(namespace) ?? [], SETTLE_MS);
      pending.delete(namespace);
    },
    search,
    async probe(text, namespace, timeoutMs) {
      const started = performance.now();
      await client.remember(text, { namespace });
      while (!(await search(text, namespace, 3)).texts.includes(text)) {
        if (performance.now() - started > timeoutMs) throw new Error("not searchable in time");
        await new Promise((r) => setTimeout(r, 2));
      }
      return performance.now() - started;
    },
    async close() {
      await relayer.stop();
      await Deno.remove(dataDir, { recursive: true });
    },
  };
}

/** The workload on a fresh `system` at `size` memories. */
async function measure(system: PeerSystem, size: number) {
  const facts = factWorkload(size + SINGLES + PROBES);
  const stored = facts.slice(0, size);
  const log = (what: string) => console.log(`${system.name} ${size}: ${what}`);

  let started = performance.now();
  for (let i = 0; i < size; i += BATCH) {
    await system.addBatch(stored.slice(i, i + BATCH).map((fact) => fact.text), "facts");
  }
  const acceptedS = (performance.now() - started) / 1000;
  await system.settle("facts");
  const batchS = (performance.now() - started) / 1000;
  log(`ingested ${size} in batches of ${BATCH} in ${round(batchS, 2)} s`);

  for (const fact of stored.slice(0, 3)) await system.search(fact.question, "facts", 10);
  const searchMs: number[] = [];
  let at1 = 0, at10 = 0;
  for (const i of spreadIndexes(size, QUESTIONS)) {
    const { ms, texts } = await system.search(stored[i].question, "facts", 10);
    searchMs.push(ms);
    const rank = texts.indexOf(stored[i].text);
    if (rank === 0) at1++;
    if (rank >= 0) at10++;
  }
  log(`searched ${searchMs.length} questions`);

  started = performance.now();
  for (const fact of facts.slice(size, size + SINGLES)) await system.addOne(fact.text, "singles");
  await system.settle("singles");
  const singleS = (performance.now() - started) / 1000;
  log(`ingested ${SINGLES} one at a time in ${round(singleS, 2)} s`);

  const probeMs: number[] = [];
  for (const fact of facts.slice(size + SINGLES)) {
    probeMs.push(await system.probe(fact.text, "probes", PROBE_MS));
  }
  return {
    system: system.name,
    memories: size,
    holder: system.holder,
    ingest_batch: {
      memories: size,
      accepted_per_s: Math.round(size / acceptedS),
      searchable_per_s: Math.round(size / batchS),
    },
    ingest_single: { memories: SINGLES, searchable_per_s: Math.round(SINGLES / singleS) },
    search: { questions: searchMs.length, limit: 10, ...percentiles(searchMs) },
    hit_at_1: round(at1 / searchMs.length, 3),
    hit_at_10: round(at10 / searchMs.length, 3),
    write_to_searchable: { samples: probeMs.length, ...percentiles(probeMs) },
    rss_mb: await rssMb(system.pid),
    ...REST_S > 0 && { rss_at_rest_mb: await rssAfterRest(system.pid) },
  };
}

/** The resident memory of `pid` after `REST_S` seconds without calls. */
async function rssAfterRest(pid: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, REST_S * 1000));
  return await rssMb(pid);
}

type Row = Awaited<ReturnType<typeof measure>>;
type Failed = { system: string; error: string };

const starts: Record<string, () => Promise<PeerSystem>> = FACTS
  ? {
    "svc": () => startSvc({ SVC_EMBEDDER: "onnx", SVC_ONNX_MODEL_DIR: MODEL_DIR }),
    "mem0": () => startMem0(() => OnnxEmbedder.open({ dir: MODEL_DIR })),
    "mcp-memory-service": () => startMcpMemoryService(MODEL_DIR),
  }
  : {
    "svc": () => startSvc(),
    "mem0": () => startMem0(),
    "mcp-memory": startMcpMemory,
    "mcp-memory-service": () => startMcpMemoryService(MODEL_DIR),
  };
const versions: Record<string, string> = { deno: Deno.version.deno };
if (CHOSEN.includes("mem0") || CHOSEN.includes("mcp-memory")) versions.node = await prepareNode();
if (CHOSEN.includes("mem0")) {
  versions.mem0ai = await installedVersion("mem0ai");
  versions["better-sqlite3"] = await installedVersion("better-sqlite3");
}
if (CHOSEN.includes("mcp-memory")) {
  versions["@modelcontextprotocol/server-memory"] = await installedVersion(
    "@modelcontextprotocol/server-memory",
  );
}
if (FACTS) versions["onnxruntime-node"] = await installedVersion("onnxruntime-node");

const skipped = new Set<string>();
if (CHOSEN.includes("mcp-memory-service")) {
  try {
    versions["mcp-memory-service"] = await mcpMemoryServiceVersion(MODEL_DIR);
  } catch (error) {
    console.warn(`mcp-memory-service: skipped, ${(error as Error).message}`);
    skipped.add("mcp-memory-service");
  }
}

let running: PeerSystem | undefined;
Deno.addSignalListener("SIGINT", () => {
  (running?.close() ?? Promise.resolve()).finally(() => Deno.exit(130));
});

/** What mem0's embeddings endpoint served; throws if mem0 asked it for a completion. */
function endpointOf(system: PeerSystem) {
  if (!("counts" in system)) return {};
  const counts = system.counts as { llm_calls: number };
  if (counts.llm_calls) throw new Error(`mem0 called the LLM ${counts.llm_calls} times`);
  return { endpoint: counts };
}

/**
 * `measureOn` on a fresh system `name`, closed after: its row, or the error it ended with (and
 * `context`, such as the size).
 */
async function runOn<R extends object, C extends object = Record<never, never>>(
  name: string,
  measureOn: (system: PeerSystem) => Promise<R>,
  context = {} as C,
): Promise<R | Failed & C> {
  let system: PeerSystem | undefined;
  try {
    running = system = await starts[name]();
    const row = { ...await measureOn(system), ...endpointOf(system) };
    console.log(JSON.stringify(row));
    return row;
  } catch (error) {
    console.error(`${[name, ...Object.values(context)].join(" ")}: ${error}`);
    return { system: name, ...context, error: String(error) };
  } finally {
    await system?.close();
    running = undefined;
  }
}

const ready = () => CHOSEN.filter((name) => !skipped.has(name));

/** The size-based workload on each system at each size, and its tables. */
async function bySize() {
  const rows: (Row | Failed & { memories: number })[] = [];
  for (const size of SIZES) {
    for (const name of ready()) {
      rows.push(await runOn(name, (system) => measure(system, size), { memories: size }));
    }
    console.log(`\n${size} memories`);
    console.table(tableOf<Row>(rows.filter((r) => r.memories === size), [
      ["ingest, batches of 20, memories/s", (r) => r.ingest_batch.searchable_per_s],
      ["ingest, one at a time, memories/s", (r) => r.ingest_single.searchable_per_s],
      ["search p50 / p95 ms", (r) => `${r.search.p50_ms} / ${r.search.p95_ms}`],
      ["hit@1 / hit@10", (r) => `${r.hit_at_1} / ${r.hit_at_10}`],
      [
        "write → searchable p50 / p95 ms",
        (r) => `${r.write_to_searchable.p50_ms} / ${r.write_to_searchable.p95_ms}`,
      ],
      ["RSS MB", (r) => r.rss_mb],
      ...REST_S > 0
        ? [[`RSS MB after ${REST_S} s at rest`, (r: Row) => r.rss_at_rest_mb ?? "–"] as const]
        : [],
    ]));
  }
  return {
    workload: {
      sizes: SIZES,
      batch: BATCH,
      questions: QUESTIONS,
      singles: SINGLES,
      probes: PROBES,
      rest_s: REST_S,
      callers: 1,
    },
    results: rows,
  };
}

/** The fact set on each system, and its table. */
async function byFacts(file: FactFile) {
  const rows = [];
  for (const name of ready()) rows.push(await runOn(name, (s) => measureFacts(s, file, BATCH)));
  console.log(`\n${FACTS}, hit@1 / hit@3 / hit@10`);
  console.table(factsTable(rows, file));
  return {
    facts: FACTS,
    model_dir: MODEL_DIR,
    workload: {
      facts: file.facts.length,
      distractors: file.distractors.length,
      unanswerable: file.unanswerable.length,
      batch: BATCH,
      limit: 10,
      callers: 1,
    },
    results: rows,
  };
}

await writeResults(OUT, {
  date: new Date().toISOString(),
  machine: machine(),
  versions,
  svc_relayer: values.root ?? "this checkout",
  ...FACT_FILE ? await byFacts(FACT_FILE) : await bySize(),
});
