/**
 * Changing the embedder of a real relayer process: refused without `SVC_REINDEX=1`; with it,
 * reindexed in the background while serving, killed (SIGKILL) part-way, restarted, resumed and
 * completed; then back again offline with `svc reindex`, which refuses to run beside a relayer.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { taskCommand } from "../task_flags.ts";
import {
  newAccountClient,
  type RelayerProcess,
  ROOT,
  startRelayer,
  TEST_KEYS_DIR,
  TEST_MODELS_DIR,
} from "../relayer_process.ts";

const GLOVE = "svc-glove100-sif-oov28-v1";
const LEXICAL = "svc-lexical-hash-v1-384";

type LogEntry = Record<string, unknown> & { msg: string };

/** The first log entry of the relayer that `matches`, waiting for it (a minute at most). */
async function waitForLog(
  relayer: RelayerProcess,
  matches: (entry: LogEntry) => boolean,
): Promise<LogEntry> {
  for (let i = 0; i < 1200; i++) {
    for (const line of relayer.log().split("\n")) {
      if (!line.startsWith("{")) continue;
      const entry = JSON.parse(line) as LogEntry;
      if (matches(entry)) return entry;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no such log entry; the log:\n${relayer.log()}`);
}

/** Every memory id of the caller's namespace, page by page. */
async function listIds(client: SvcClient, namespace: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list({ namespace, limit: 100, cursor });
    ids.push(...page.memories.map((m) => m.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return ids.sort();
}

async function waitForJobs(client: SvcClient, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    for (let tries = 0; tries < 600; tries++) {
      const { results } = await client.jobs(chunk);
      if (results.every((j) => j.status === "done")) break;
      assert.ok(!results.some((j) => j.status === "failed"), JSON.stringify(results));
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** `svc reindex --embedder NAME --json`: its exit code and its one JSON object. */
async function cliReindex(dataDir: string, embedder: string) {
  const { code, stdout } = await new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc", ["reindex", "--embedder", embedder, "--json"]),
    env: { SVC_DATA_DIR: dataDir, SVC_MODELS_DIR: TEST_MODELS_DIR, SVC_KEYS_DIR: TEST_KEYS_DIR },
    cwd: ROOT,
  }).output();
  return { code, json: JSON.parse(new TextDecoder().decode(stdout)) };
}

Deno.test("e2e reindex: refused without SVC_REINDEX; with it, SIGKILL part-way, restart, resume, complete; back offline with svc reindex", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-reindex-e2e-" });
  let relayer = await startRelayer(dataDir, { SVC_EMBEDDER: "lexical" });
  const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
  const accepted: string[] = [];
  for (let b = 0; b < 20; b++) {
    const items = Array.from({ length: 20 }, (_, i) => ({
      text: `fact ${b * 20 + i}: my ${["bicycle", "sister", "garden", "piano"][i % 4]} ${b}`,
      namespace: b % 2 ? "work" : "default",
    }));
    accepted.push(...(await client.rememberBulk(items)).job_ids);
  }
  await waitForJobs(client, accepted);
  const vector = Array.from({ length: 384 }, (_, i) => (i === 7 ? 1 : 0));
  const manual = await client.rememberManual(new Uint8Array([1, 2, 3]), vector);
  const before = {
    default: await listIds(client, "default"),
    work: await listIds(client, "work"),
  };
  assert.equal(before.default.length + before.work.length, 401);
  await relayer.stop();

  await assert.rejects(
    startRelayer(dataDir, { SVC_EMBEDDER: "local" }),
    (error: Error) =>
      error.message.includes(`built with embedder "${LEXICAL}"`) &&
      error.message.includes("configure the original embedder (SVC_EMBEDDER=lexical)") &&
      error.message.includes("SVC_REINDEX=1") && error.message.includes("svc reindex"),
  );

  const env = { SVC_EMBEDDER: "local", SVC_REINDEX: "1" };
  relayer = await startRelayer(dataDir, { ...env, SVC_REINDEX_RATE: "40" }, {
    processGroup: true,
  });
  let at = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
  // Served from the old index meanwhile.
  assert.ok((await at.recall("what about my piano?")).results.length > 0);
  assert.equal((await at.health()).backends.embedder, LEXICAL);
  const progress = await waitForLog(
    relayer,
    (e) => e.msg === "reindex progress" && e.phase === "copying" && Number(e.done) > 0,
  );
  await relayer.kill();
  assert.ok(Number(progress.done) < 401, "killed part-way");

  relayer = await startRelayer(dataDir, env, { processGroup: true });
  at = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
  const more = (await at.rememberBulk([
    { text: "remembered while the reindex resumed: I play the cello" },
    { text: "remembered while the reindex resumed: my dog is called Nemo", namespace: "work" },
  ])).job_ids;
  const complete = await waitForLog(
    relayer,
    (e) => e.msg === "reindex complete: the new index is active",
  );
  assert.ok(Number(complete.resumed) >= Number(progress.done), JSON.stringify(complete));
  assert.ok(Number(complete.written) < 401, "resumed, not started over");
  assert.deepEqual(complete.skipped, { manualDimensions: 1, unreadable: 0 });
  await waitForLog(relayer, (e) => e.msg === "removed the old index");
  await waitForJobs(at, more);
  assert.equal((await at.health()).backends.embedder, GLOVE);
  assert.equal(await exists(`${dataDir}/index.sqlite`), false);
  assert.equal(await exists(`${dataDir}/index-2.sqlite`), true);
  assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dataDir}/index.active`)), {
    name: "index-2",
  });
  const after = { default: await listIds(at, "default"), work: await listIds(at, "work") };
  const without = (ids: string[]) => ids.filter((id) => id !== manual.id);
  assert.deepEqual(after.default, [...without(before.default), more[0]].sort());
  assert.deepEqual(after.work, [...without(before.work), more[1]].sort());
  const { results } = await at.recall("who is Nemo?", { namespace: "work" });
  assert.equal(results[0].id, more[1]);

  // Offline: refused beside a relayer, then done with it stopped.
  const beside = await cliReindex(dataDir, "lexical");
  assert.equal(beside.code, 1);
  assert.equal(beside.json.code, "conflict");
  assert.match(beside.json.error, /another process holds the vector index.*SVC_REINDEX=1/);
  await relayer.stop();
  const offline = await cliReindex(dataDir, "lexical");
  assert.equal(offline.code, 0, JSON.stringify(offline.json));
  assert.equal(offline.json.status, "reindexed");
  assert.equal(offline.json.memories, 402);
  assert.deepEqual(offline.json.to, { index: "index-3", model: LEXICAL, dimensions: 384 });
  assert.equal((await cliReindex(dataDir, "lexical")).json.status, "unchanged");
  const mistyped = await cliReindex(`${dataDir}-typo`, "lexical");
  assert.equal(mistyped.code, 2);
  assert.match(mistyped.json.error, /data directory .*-typo does not exist/);
  assert.equal(await exists(`${dataDir}-typo`), false, "no new data directory");

  relayer = await startRelayer(dataDir, { SVC_EMBEDDER: "lexical" });
  try {
    at = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId });
    assert.deepEqual(await listIds(at, "work"), after.work);
    const { results } = await at.recall("who is Nemo?", { namespace: "work" });
    assert.equal(results[0].id, more[1]);
  } finally {
    await relayer.stop();
  }
  await Deno.remove(dataDir, { recursive: true });
});
