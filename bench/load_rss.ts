/**
 * The relayer's resident memory, measured cleanly: for each of `--sizes`, a relayer process
 * (`main.ts`, embedded default, a temporary data directory) ingests that many short facts
 * through the public bulk API (as `load.ts` does) and stops; a FRESH relayer process then opens
 * the same data directory and serves the recall load of `load.ts` (closed-loop clients, every
 * request signed afresh) for `--seconds`. It reports, for the relayer process alone (not its
 * sidecar, a child process of its own), from `/proc/PID/status`: the resident memory once it
 * listens, sampled every 100 ms under the load (peak and at the end), and the kernel's peak over
 * the process's life (`VmHWM`), with the anonymous and file-backed shares. Prints a table and
 * writes `bench/results/load_rss.json` (or `--out`).
 *
 *   deno task bench:load-rss [--sizes 10000,100000] [--clients 20] [--seconds 10]
 *                            [--env NAME=VALUE,...] [--keep DIR] [--root CHECKOUT/] [--out FILE]
 *
 * `--env` adds settings to both relayer processes (to weigh one, such as `SVC_INDEX_MEMORY_MB`);
 * `--root` runs another checkout's relayer (a baseline) against the same harness. `--keep DIR`
 * keeps each size's ingested data directory in `DIR/<size>` and, when it is there already,
 * skips the ingest and measures a fresh relayer on it again.
 */
import { fileURLToPath } from "node:url";
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { factWorkload } from "./fact_workload.ts";
import { machine, resultsFile, round, writeResults } from "./harness.ts";
import { closedLoop, ingest, leanRecall, leanSigned, processCpuMs } from "./load_generator.ts";
import { flags, positive, wholes } from "./flags.ts";

const { values } = flags({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    clients: { type: "string", default: "20" },
    seconds: { type: "string", default: "10" },
    env: { type: "string", default: "" },
    keep: { type: "string" },
    root: { type: "string" },
    out: {
      type: "string",
      default: resultsFile("load_rss.json"),
    },
  },
});
const SIZES = wholes(values.sizes, "--sizes");
const CLIENTS = wholes(values.clients, "--clients");
const SECONDS = positive(values.seconds, "--seconds");
const ENV: Record<string, string> = Object.fromEntries(
  values.env!.split(",").filter(Boolean).map((pair) => {
    const at = pair.indexOf("=");
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);

/** Resident memory of a process from `/proc/PID/status`, in MB: now, peak, anonymous, files. */
function memoryOf(pid: number) {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const mb = (field: string) =>
    round(Number(status.match(new RegExp(`${field}:\\s+(\\d+)`))![1]) / 1024);
  return {
    rss_mb: mb("VmRSS"),
    peak_rss_mb: mb("VmHWM"),
    anon_mb: mb("RssAnon"),
    file_mb: mb("RssFile"),
  };
}

/** Samples `pid`'s resident memory every 100 ms until the returned function is called. */
function sampleRss(pid: number) {
  let peak = 0;
  const timer = setInterval(() => peak = Math.max(peak, memoryOf(pid).rss_mb), 100);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

const PROBE = fileURLToPath(new URL("./memory_probe.ts", import.meta.url));

/** The relayer's own memory lines written so far: the last, and the one of the highest RSS. */
function probed(file: string) {
  const lines = Deno.readTextFileSync(file).trim().split("\n").filter(Boolean).map((line) =>
    JSON.parse(line) as Record<string, number>
  );
  return {
    last: lines.at(-1),
    at_peak: lines.reduce((a, b) => b.rss_mb > a.rss_mb ? b : a, lines[0]),
  };
}

/** Starts a relayer on `dataDir` whose memory lines go to `file`. */
function relayerOn(dataDir: string, file: string) {
  return startRelayer(dataDir, { ...ENV, SVC_BENCH_MEMORY_FILE: file }, {
    root: values.root,
    flags: [`--preload=${PROBE}`],
  });
}

const runs = [];
for (const size of SIZES) {
  const dataDir = values.keep
    ? `${values.keep}/${size}`
    : await Deno.makeTempDir({ prefix: "svc-load-rss-" });
  const namespace = `facts-${size}`;
  const facts = factWorkload(size);
  const accountFile = `${dataDir}.account.json`;
  let account: { privateKey: string; accountId: string };
  let ingested, afterIngest;
  try {
    account = JSON.parse(await Deno.readTextFile(accountFile));
  } catch {
    // 1. Ingest in one process, then stop it.
    await Deno.mkdir(dataDir, { recursive: true });
    const writerFile = `${dataDir}.writer.jsonl`;
    const writer = await relayerOn(dataDir, writerFile);
    const { privateKey, accountId } = await newAccountClient(dataDir, writer.url);
    account = { privateKey, accountId };
    const writerClient = await SvcClient.create({ baseUrl: writer.url, ...account });
    ingested = await ingest(writerClient, facts, namespace);
    afterIngest = { ...memoryOf(writer.process.pid), inside: probed(writerFile).last };
    console.log(JSON.stringify({ memories: size, ingest: ingested, writer: afterIngest }));
    await writer.stop();
    await Deno.remove(writerFile);
    if (values.keep) await Deno.writeTextFile(accountFile, JSON.stringify(account));
  }
  const { privateKey, accountId } = account;

  // 2. A fresh process on the same data directory serves the recall load.
  const file = `${dataDir}.fresh.jsonl`;
  const relayer = await relayerOn(dataDir, file);
  const pid = relayer.process.pid;
  const listening = memoryOf(pid);
  await new Promise((r) => setTimeout(r, 300));
  const insideListening = probed(file).last;
  const recall = leanRecall(await leanSigned(relayer.url, privateKey, accountId));
  const cells = [];
  const stopSampling = sampleRss(pid);
  for (const clients of CLIENTS) {
    cells.push(
      await closedLoop(
        `recall ${size}`,
        clients,
        (w, i) => recall(facts[(w * 7919 + i * 104_729) % size].question, namespace),
        { seconds: SECONDS, cpu: { relayer: () => processCpuMs(pid) } },
      ),
    );
  }
  const sampledPeak = stopSampling();
  const atEnd = memoryOf(pid);
  await new Promise((r) => setTimeout(r, 300));
  const inside = probed(file);
  await relayer.stop();
  await Deno.remove(file);
  if (!values.keep) await Deno.remove(dataDir, { recursive: true });
  const run = {
    memories: size,
    ingest: ingested,
    writer_after_ingest: afterIngest,
    fresh_relayer: {
      listening_rss_mb: listening.rss_mb,
      load_sampled_peak_rss_mb: sampledPeak,
      peak_rss_mb: atEnd.peak_rss_mb,
      end: atEnd,
      inside: { listening: insideListening, ...inside },
    },
    cells,
  };
  console.log(JSON.stringify(run));
  runs.push(run);
}

const result = {
  date: new Date().toISOString(),
  machine: machine(),
  relayer: values.root ?? "this checkout",
  env: ENV,
  seconds_per_cell: SECONDS,
  runs,
};
console.table(runs.map((run) => ({
  memories: run.memories,
  "listening MB": run.fresh_relayer.listening_rss_mb,
  "peak MB": run.fresh_relayer.peak_rss_mb,
  "end MB": run.fresh_relayer.end.rss_mb,
  ...Object.fromEntries(
    run.cells.flatMap((cell) => [
      [`${cell.clients} clients /s`, cell.requests_per_s],
      [`${cell.clients} clients p50 ms`, cell.p50_ms],
    ]),
  ),
})));
await writeResults(values.out!, result);
