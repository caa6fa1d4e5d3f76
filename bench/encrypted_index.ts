/**
 * The encrypted vector index at 10k and 100k memories in one namespace (`deno task bench:index`):
 * build time, single-row upserts (what the job worker does), and, in a fresh process each time,
 * the cold load of the namespace from disk (open + first search), search latency (k = 30, the
 * recall pool's smallest size) and the process's resident memory. Vectors are random unit
 * vectors of 128 dimensions (the offline embedder's size) with 10 term hashes per row; the
 * figures are the store's own, without the HTTP, embedding and decryption steps of a recall.
 * Results go to `bench/results/encrypted_index.json`. With `--info`, every row also carries a
 * `MemoryInfo` as the lifecycle writes one (two tag hashes, sealed tags, a text digest, an
 * expiry on a quarter of the rows, a replaced id on a tenth), and results go to
 * `bench/results/encrypted_index_info.json`.
 *
 *   deno run -A --unstable-kv bench/encrypted_index.ts [--sizes 10000,100000] [--info] [--out FILE]
 */
import { EncryptedVectorStore } from "../plugins/encrypted_index/mod.ts";
import type { MemoryInfo, VectorRow } from "../src/kit.ts";
import { resultsFile, writeResults } from "./harness.ts";
import { flags, wholes } from "./flags.ts";

const DIMENSIONS = 128;
const OWNER = "0x" + "ab".repeat(32);
const NAMESPACE = "bench";
const K = 30;
const SEARCHES = 300;
const COLD_RUNS = 3;

const { values } = flags({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    cold: { type: "string" },
    info: { type: "boolean", default: false },
    out: { type: "string" },
  },
});

function randomUnit(): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  let norm = 0;
  for (let i = 0; i < DIMENSIONS; i++) {
    // Sum of uniforms: roughly Gaussian, so directions are spread evenly enough.
    v[i] = Math.random() + Math.random() + Math.random() - 1.5;
    norm += v[i] * v[i];
  }
  for (let i = 0; i < DIMENSIONS; i++) v[i] /= Math.sqrt(norm);
  return v;
}

const base64url = (bytes: Uint8Array) =>
  bytes.toBase64({ alphabet: "base64url", omitPadding: true });

/** About the size and shape of what the lifecycle keeps with a memory. */
function info(i: number): MemoryInfo {
  const out: MemoryInfo = {
    tags: [0, 1].map(() => crypto.getRandomValues(new Uint8Array(8)).toHex()),
    sealed: base64url(crypto.getRandomValues(new Uint8Array(48))),
    digest: base64url(crypto.getRandomValues(new Uint8Array(32))),
  };
  if (i % 4 === 0) out.expiresAt = 1_800_000_000_000 + i;
  if (i % 10 === 0) {
    out.supersedes = crypto.randomUUID();
    out.firstCreatedAt = 1_600_000_000_000 + i;
  }
  return out;
}

function row(i: number): VectorRow {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return {
    id: crypto.randomUUID(),
    owner: OWNER,
    namespace: NAMESPACE,
    blobId: bytes.toBase64({ alphabet: "base64url", omitPadding: true }),
    vector: randomUnit(),
    createdAt: 1_700_000_000_000 + i,
    terms: Array.from({ length: 10 }, () => crypto.getRandomValues(new Uint8Array(8)).toHex()),
    ...(values.info && { info: info(i) }),
  };
}

function stats(samples: number[]) {
  const sorted = samples.toSorted((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  const round = (x: number) => Math.round(x * 100) / 100;
  return { n: samples.length, p50_ms: round(at(0.5)), p95_ms: round(at(0.95)) };
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** A fresh process's view: open, cold load, searches, memory. Prints one JSON line. */
async function cold(path: string, secretHex: string) {
  const opened = performance.now();
  const store = await EncryptedVectorStore.open({
    path,
    secret: Uint8Array.fromHex(secretHex),
    model: "bench",
    dimensions: DIMENSIONS,
  });
  const openMs = performance.now() - opened;
  const first = performance.now();
  await store.search(OWNER, NAMESPACE, randomUnit(), K);
  const coldLoadMs = performance.now() - first;
  const searches: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    const query = randomUnit();
    const started = performance.now();
    await store.search(OWNER, NAMESPACE, query, K);
    searches.push(performance.now() - started);
  }
  const termsStarted = performance.now();
  await store.terms(OWNER, NAMESPACE);
  const termsMs = performance.now() - termsStarted;
  const usage = Deno.memoryUsage();
  console.log(JSON.stringify({
    open_ms: Math.round(openMs),
    cold_load_ms: Math.round(coldLoadMs),
    search: stats(searches),
    terms_ms: Math.round(termsMs),
    rss_mb: mb(usage.rss),
    js_heap_mb: mb(usage.heapUsed),
    index_mb: mb(store.memoryStats().bytes),
  }));
  await store.close();
}

async function diskBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const entry of Deno.readDir(dir)) {
    total += (await Deno.stat(`${dir}/${entry.name}`)).size;
  }
  return total;
}

async function measure(size: number) {
  const dir = await Deno.makeTempDir({ prefix: "svc-bench-index-" });
  const path = `${dir}/index.sqlite`;
  const secret = crypto.getRandomValues(new Uint8Array(32));
  try {
    const store = await EncryptedVectorStore.open({
      path,
      secret,
      model: "bench",
      dimensions: DIMENSIONS,
    });
    const built = performance.now();
    for (let i = 0; i < size; i += 1000) {
      await store.upsert(Array.from({ length: Math.min(1000, size - i) }, (_, j) => row(i + j)));
    }
    const buildSeconds = (performance.now() - built) / 1000;
    const singles: number[] = [];
    for (let i = 0; i < 200; i++) {
      const one = row(size + i);
      const started = performance.now();
      await store.upsert([one]);
      singles.push(performance.now() - started);
    }
    await store.close();
    const runs = [];
    for (let run = 0; run < COLD_RUNS; run++) {
      const { stdout, success } = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "--unstable-kv", import.meta.filename!, "--cold", path],
        env: { SVC_BENCH_SECRET: secret.toHex() },
        stderr: "inherit",
      }).output();
      if (!success) throw new Error("the cold-load process failed");
      runs.push(JSON.parse(new TextDecoder().decode(stdout)));
    }
    const coldLoads = runs.map((r) => r.cold_load_ms).sort((a, b) => a - b);
    const last = runs.at(-1);
    return {
      memories: size + 200,
      build_seconds: Math.round(buildSeconds * 10) / 10,
      build_rows_per_second: Math.round(size / buildSeconds),
      single_upsert: stats(singles),
      cold_load_ms_median: coldLoads[Math.floor(coldLoads.length / 2)],
      cold_load_ms_runs: coldLoads,
      search: last.search,
      terms_ms: last.terms_ms,
      fresh_process_rss_mb: last.rss_mb,
      fresh_process_js_heap_mb: last.js_heap_mb,
      resident_index_mb: last.index_mb,
      disk_mb: mb(await diskBytes(dir)),
    };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (values.cold) {
  await cold(values.cold, Deno.env.get("SVC_BENCH_SECRET")!);
} else {
  const results = [];
  for (const size of wholes(values.sizes, "--sizes")) {
    const result = await measure(size);
    console.log(JSON.stringify(result));
    results.push(result);
  }
  const memory = Math.round(Deno.systemMemoryInfo().total / 2 ** 30);
  const report = {
    date: new Date().toISOString(),
    machine: `${navigator.hardwareConcurrency} cores, ${memory} GiB, ${Deno.build.os}-` +
      `${Deno.build.arch}, deno ${Deno.version.deno}`,
    note: "Store level: search is EncryptedVectorStore.search (k = 30) in a fresh process " +
      "after the cold load, without embedding, blob reads or decryption; cold load is the " +
      "first search of a newly opened store (read + decrypt + decode of the namespace).",
    rows_carry_info: values.info,
    targets: {
      search_p50_ms: { "10k": 10, "100k": 40 },
      cold_load_100k_ms: 1000,
      rss_100k_mb: 600,
    },
    sizes: results,
  };
  await writeResults(
    values.out ?? resultsFile(`encrypted_index${values.info ? "_info" : ""}.json`),
    report,
  );
}
