/**
 * The many-namespaces attack against a relayer running as its own process (`deno task start`'s
 * flags, a temporary data directory): one registered key stores `--namespaces` memories, each in
 * a namespace of its own (bulk requests of 20), then lists its namespaces with `GET
 * /api/namespaces` and a first page of `GET /v1/owners/:owner/namespaces` twice, warm and after
 * a restart. It reports each listing's time and the relayer's resident memory (`/proc/PID/status`
 * VmRSS) around it. Prints and saves JSON.
 *
 *   deno task bench:namespace-attack [--namespaces 10000] [--cpu-prof DIR]
 *     [--root <checkout whose relayer runs>] [--out bench/results/namespace_attack.json]
 *
 * `--cpu-prof DIR` writes the restarted relayer's V8 CPU profile there when it stops.
 */
import { fileURLToPath } from "node:url";
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { allDone, machine, resultsFile, round, rssMb, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    namespaces: { type: "string", default: "10000" },
    "cpu-prof": { type: "string" },
    root: { type: "string", default: fileURLToPath(new URL("..", import.meta.url)) },
    out: { type: "string", default: resultsFile("namespace_attack.json") },
  },
});
const NAMESPACES = whole(values.namespaces, "--namespaces");

/** Stores one memory in each of `NAMESPACES` namespaces, a few bulks at a time. */
async function fill(client: SvcClient) {
  const bulks = [];
  for (let at = 0; at < NAMESPACES; at += 20) {
    const size = Math.min(20, NAMESPACES - at);
    bulks.push(Array.from({ length: size }, (_, i) => ({
      text: `Note ${at + i}: the spare key is under pot ${at + i}`,
      namespace: `ns-${at + i}`,
    })));
  }
  for (let at = 0; at < bulks.length; at += 8) {
    const answers = await Promise.all(
      bulks.slice(at, at + 8).map((items) => client.rememberBulk(items)),
    );
    await allDone(client, answers.flatMap((a) => a.job_ids), 600_000);
  }
}

/** Times `list` and the relayer's RSS after it. */
async function listing(pid: number, list: () => Promise<number>) {
  const started = performance.now();
  const listed = await list();
  return { ms: round(performance.now() - started), listed, rss_mb: await rssMb(pid) };
}

/** How many namespaces a first page of `GET /v1/owners/:owner/namespaces` lists. */
async function page(client: SvcClient, owner: string) {
  const response = await client.send("GET", `/v1/owners/${owner}/namespaces?limit=100`);
  return (await response.json()).namespaces.length;
}

/** The listings: all namespaces, then a first page twice (the reference SDKs page so). */
async function listings(client: SvcClient, owner: string, pid: number) {
  return {
    rss_before_mb: await rssMb(pid),
    api_namespaces: await listing(pid, async () => (await client.namespaces()).namespaces.length),
    v1_first_page: await listing(pid, () => page(client, owner)),
    v1_second_page: await listing(pid, () => page(client, owner)),
  };
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-namespace-attack-" });
const result: Record<string, unknown> = { machine: machine(), namespaces: NAMESPACES };
let relayer = await startRelayer(dataDir, {}, { root: values.root });
try {
  const account = await newAccountClient(dataDir, relayer.url);
  const { owner } = await account.client.whoami();
  const filling = performance.now();
  await fill(account.client);
  result.fill_s = round((performance.now() - filling) / 1000);
  result.warm = await listings(account.client, owner, relayer.process.pid);
  await relayer.stop();
  const flags = values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${values["cpu-prof"]}`] : [];
  relayer = await startRelayer(dataDir, {}, { root: values.root, flags });
  const restarted = await SvcClient.create({
    baseUrl: relayer.url,
    privateKey: account.privateKey,
    accountId: account.accountId,
  });
  result.after_restart = await listings(restarted, owner, relayer.process.pid);
  await relayer.stop();
} catch (error) {
  result.failed = String(error);
  result.relayer_log_tail = relayer.log().split("\n").slice(-5);
} finally {
  await relayer.kill();
  await Deno.remove(dataDir, { recursive: true });
}
console.log(JSON.stringify(result, null, 2));
await writeResults(values.out!, result);
