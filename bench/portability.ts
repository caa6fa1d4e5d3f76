/**
 * Export and import as users run them: the relayer as its own process (`main.ts`, embedded
 * default, free ports, a temporary data directory) and one signing client on 127.0.0.1:
 *
 * - import: `--size` short facts through `POST /api/import` (the SDK's batches of 500), then
 *   the time until every one is stored;
 * - export: `GET /api/export` read through to the end (the SDK), memories per second, and the
 *   relayer's resident memory after it;
 * - `svc export -o FILE` (the CLI as its own process: the export encrypted under a passphrase,
 *   PBKDF2 included) and `svc import FILE` of that file again (every line a duplicate).
 *
 * Prints the figures and writes `bench/results/portability.json` (or `--out`).
 *
 *   deno task bench:portability [--size 10000] [--out FILE]
 */
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { taskCommand } from "../tests/task_flags.ts";
import { factWorkload } from "./fact_workload.ts";
import { allDone, machine, resultsFile, round, rssMb, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    size: { type: "string", default: "10000" },
    out: {
      type: "string",
      default: resultsFile("portability.json"),
    },
  },
});
const SIZE = whole(values.size, "--size");

const dataDir = await Deno.makeTempDir({ prefix: "svc-portability-" });
const relayer = await startRelayer(dataDir);
const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
const client = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId, retries: 0 });

/** Runs `svc <args>` against the relayer; its wall time in ms, and its JSON answer. */
async function svc(args: string[]) {
  const started = performance.now();
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc", [...args, "--json"]),
    env: {
      SVC_SERVER_URL: relayer.url,
      SVC_DELEGATE_KEY: privateKey,
      SVC_ACCOUNT_ID: accountId,
      SVC_EXPORT_PASSPHRASE: "a benchmark passphrase",
    },
  }).output();
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`svc ${args.join(" ")}: ${new TextDecoder().decode(stderr)}`);
  return { ms, json: JSON.parse(new TextDecoder().decode(stdout)) };
}

try {
  const facts = factWorkload(SIZE).map(({ text }) => ({ text, namespace: "facts" }));
  let started = performance.now();
  const imported = await client.import(facts);
  const acceptedMs = performance.now() - started;
  await allDone(client, imported.job_ids);
  const storedMs = performance.now() - started;

  started = performance.now();
  let exported = 0;
  for await (const _ of client.export()) exported++;
  const exportMs = performance.now() - started;
  const rssAfterExport = await rssMb(relayer.process.pid);

  const file = `${dataDir}/bench.svc`;
  const cliExport = await svc(["export", "-o", file]);
  const cliImport = await svc(["import", file]);

  const result = {
    date: new Date().toISOString(),
    machine: machine(),
    size: SIZE,
    import: {
      imported: imported.imported,
      duplicates: imported.duplicates,
      accepted_ms: round(acceptedMs),
      accepted_per_s: round(SIZE / (acceptedMs / 1000)),
      stored_ms: round(storedMs),
      stored_per_s: round(SIZE / (storedMs / 1000)),
    },
    export: {
      memories: exported,
      ms: round(exportMs),
      per_s: round(exported / (exportMs / 1000)),
      relayer_rss_mb: rssAfterExport,
    },
    cli_export: {
      memories: cliExport.json.memories,
      bytes: cliExport.json.bytes,
      ms: round(cliExport.ms),
    },
    cli_reimport: {
      imported: cliImport.json.imported,
      duplicates: cliImport.json.duplicates,
      ms: round(cliImport.ms),
    },
  };
  console.log(JSON.stringify(result, null, 2));
  await writeResults(values.out!, result);
} finally {
  await relayer.stop();
  await Deno.remove(dataDir, { recursive: true });
}
