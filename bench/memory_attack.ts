/**
 * The distinct-words memory attack against a relayer running as its own process (`deno task
 * start`'s flags, a temporary data directory): one registered key sends `--rounds` rounds of
 * `--texts` texts at once (in bulk requests of at most 20 texts and 1.5 MiB), each of up to `--kb`
 * KiB of random words, and waits until they are indexed; then a fresh relayer opens the same data
 * directory and recalls in that namespace. It reports the relayer's resident memory
 * (`/proc/PID/status` VmRSS) before, after each round and after the restart; the time of the first
 * recall after the restart (after one in a namespace of 20 facts, which pays the relayer's own
 * first-use costs) and of the next ones; how many texts were stored and how many refused (507
 * `namespace_full`); and, reading them back at once (6 listings of up to 500 and 6 recalls of up
 * to 100), the relayer's peak memory, how long it took and the largest answer. Prints and saves
 * JSON.
 *
 *   deno task bench:memory-attack [--rounds 3] [--texts 20] [--kb 1024]
 *     [--root <checkout whose relayer runs>] [--out bench/results/memory_attack.json]
 */
import { fileURLToPath } from "node:url";
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { allDone, machine, resultsFile, round, rssMb, writeResults } from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    rounds: { type: "string", default: "3" },
    texts: { type: "string", default: "20" },
    kb: { type: "string", default: "1024" },
    root: { type: "string", default: fileURLToPath(new URL("..", import.meta.url)) },
    out: { type: "string", default: resultsFile("memory_attack.json") },
  },
});
const ROUNDS = whole(values.rounds, "--rounds");
const TEXTS = whole(values.texts, "--texts");
const BYTES = whole(values.kb, "--kb") * 1024;
const NAMESPACE = "attack";

/** A text of about `BYTES` of random lower-case words, each 4 to 9 letters. */
function randomWords(): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const words: string[] = [];
  for (let size = 0; size + 10 < BYTES;) {
    const length = 4 + Math.floor(Math.random() * 6);
    let word = "";
    for (let i = 0; i < length; i++) word += letters[Math.floor(Math.random() * 26)];
    words.push(word);
    size += length + 1;
  }
  return words.join(" ");
}

/** The milliseconds one recall in `namespace` takes. */
async function timedRecall(client: SvcClient, namespace = NAMESPACE) {
  const started = performance.now();
  await client.recall("which words did I write down", { namespace, limit: 5 });
  return round(performance.now() - started);
}

/** Sends `texts` to the namespace in bulks of at most 20 and 1.5 MiB, at once; how many stored. */
async function rememberAll(client: SvcClient, texts: string[], namespace = NAMESPACE) {
  const bulks: { text: string; namespace: string }[][] = [[]];
  for (const text of texts) {
    const held = bulks.at(-1)!;
    if (held.length === 20 || (held.length + 1) * BYTES > 1.5 * 2 ** 20) bulks.push([]);
    bulks.at(-1)!.push({ text, namespace });
  }
  const answers = await Promise.allSettled(bulks.map((items) => client.rememberBulk(items)));
  for (const answer of answers) {
    // A namespace full (507) is the bound at work; anything else is a failure.
    if (answer.status === "rejected" && answer.reason?.status !== 507) throw answer.reason;
  }
  const jobIds = answers.flatMap((a) => a.status === "fulfilled" ? a.value.job_ids : []);
  await allDone(client, jobIds, 600_000);
  return jobIds.length;
}

/**
 * The relayer's peak memory (sampled every 50 ms) while 6 listings of up to 500 memories and 6
 * recalls of up to 100 read the namespace at once; the time they took and the largest answer.
 */
async function readBack(client: SvcClient, pid: number) {
  let peak = await rssMb(pid);
  const sampling = setInterval(async () => peak = Math.max(peak, await rssMb(pid)), 50);
  const started = performance.now();
  try {
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => client.list({ namespace: NAMESPACE, limit: 500 })),
      ...Array.from({ length: 6 }, () =>
        client.recall("which words did I write down", {
          namespace: NAMESPACE,
          limit: 100,
          minScore: 0,
        })),
    ]);
    const largest = Math.max(...answers.map((answer) => JSON.stringify(answer).length));
    return {
      peak_rss_mb: peak,
      seconds: round((performance.now() - started) / 1000),
      largest_answer_mb: round(largest / 2 ** 20),
    };
  } finally {
    clearInterval(sampling);
  }
}

const dataDir = await Deno.makeTempDir({ prefix: "svc-memory-attack-" });
const result: Record<string, unknown> = {
  machine: machine(),
  attack: { rounds: ROUNDS, texts_per_round: TEXTS, kib_per_text: BYTES / 1024 },
};
const rss: Record<string, number> = {};
let relayer = await startRelayer(dataDir, {}, { root: values.root });
try {
  const account = await newAccountClient(dataDir, relayer.url);
  // A namespace of ordinary facts: its first recall after the restart pays the relayer's own
  // first-use costs, so the attacked namespace's shows what its own index costs.
  const facts = Array.from({ length: 20 }, (_, i) => `Fact ${i}: I wrote down ${i} words today`);
  await rememberAll(account.client, facts, "control");
  rss.before = await rssMb(relayer.process.pid);
  let stored = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    stored += await rememberAll(account.client, Array.from({ length: TEXTS }, randomWords));
    rss[`after_round_${round}`] = await rssMb(relayer.process.pid);
    Object.assign(result, { stored, refused: round * TEXTS - stored, rss_mb: rss });
  }
  await timedRecall(account.client);
  rss.after_rounds_and_a_recall = await rssMb(relayer.process.pid);
  await relayer.stop();

  relayer = await startRelayer(dataDir, {}, { root: values.root });
  const restarted = await SvcClient.create({
    baseUrl: relayer.url,
    privateKey: account.privateKey,
    accountId: account.accountId,
  });
  rss.restart_listening = await rssMb(relayer.process.pid);
  result.restart_control_first_recall_ms = await timedRecall(restarted, "control");
  result.restart_first_recall_ms = await timedRecall(restarted);
  rss.restart_after_first_recall = await rssMb(relayer.process.pid);
  const nextRecallsMs = [];
  for (let i = 0; i < 5; i++) nextRecallsMs.push(await timedRecall(restarted));
  result.restart_next_recalls_ms = nextRecallsMs;
  result.read_back = await readBack(restarted, relayer.process.pid);
} catch (error) {
  // The relayer gave out (an earlier version ran out of memory): what it said last is the result.
  result.failed = String(error);
  result.relayer_log_tail = relayer.log().split("\n").slice(-5);
} finally {
  await relayer.kill();
  await Deno.remove(dataDir, { recursive: true });
}
console.log(JSON.stringify(result, null, 2));
await writeResults(values.out!, result);
