/**
 * Three relayer processes on one PostgreSQL database, SIGKILLed: a job a relayer accepted and
 * was working on when it died is finished by another, once; and clients remembering through the
 * balancer while random relayers are killed and restarted lose and duplicate nothing they were
 * acknowledged. What is checked is read back through the API (list, recall, job status) and in
 * the database's clear columns (blobs per memory, jobs not done).
 *
 * The kills' moments and the texts come from a seed, printed; `CHAOS_SEED` sets it.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";
import { Database } from "../../plugins/postgres/database.ts";
import { startFakeModelServer } from "../fakes/model_server.ts";
import { type Cluster, clusterAccount, startCluster } from "./relayer_cluster.ts";
import { seededRandom as random } from "@svc/util/seeded_random";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 100 ms until it holds; fails after `ms`. */
async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

/**
 * A relayer's own door to the fake Ollama server: embed requests whose texts carry `mark` wait
 * until `open()`, so the relayer's worker stays mid-job; every other request passes.
 */
function gatedModelServer(upstream: string, mark: string) {
  const gate = Promise.withResolvers<void>();
  let opened = false;
  const state = { held: 0 };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const body = await request.text();
    if (!opened && body.includes(mark)) {
      state.held++;
      await gate.promise;
    }
    const answer = await fetch(`${upstream}${new URL(request.url).pathname}`, {
      method: request.method,
      headers: { "content-type": "application/json" },
      body,
    });
    return new Response(await answer.arrayBuffer(), {
      status: answer.status,
      headers: { "content-type": answer.headers.get("content-type") ?? "application/json" },
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    get held() {
      return state.held;
    },
    open() {
      opened = true;
      gate.resolve();
    },
    async [Symbol.asyncDispose]() {
      this.open();
      await server.shutdown();
    },
  };
}

/** Every memory of a namespace, paged through `list`. */
async function listAll(client: SvcClient, namespace: string) {
  const memories: { id: string; text: string }[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.list({ namespace, limit: 500, cursor });
    memories.push(...page.memories.map((m) => ({ id: m.id, text: m.text ?? "" })));
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return memories;
}

/** The database's own view: blobs per memory (clear column), and jobs that are not done. */
async function databaseView(cluster: Cluster) {
  const database = await Database.open({
    url: cluster.database.url,
    pool: 1,
    migrate: false,
    logger: silentLogger,
  });
  try {
    const blobs = await database.sql<{ memory_id: string; copies: number }[]>`
      select memory_id, count(*)::int as copies from svc_blobs_objects group by memory_id`;
    const [{ unfinished }] = await database.sql<{ unfinished: number }[]>`
      select count(*)::int as unfinished from svc_jobs_job where status <> 'done'`;
    return { blobs: new Map(blobs.map((row) => [row.memory_id, row.copies])), unfinished };
  } finally {
    await database.close();
  }
}

/** The job statuses of `jobIds`, asked through `client` 100 at a time. */
async function statuses(client: SvcClient, jobIds: string[]) {
  const jobs = new Map<string, { status: string; memory: string; attempts: number }>();
  for (let i = 0; i < jobIds.length; i += 100) {
    for (const job of (await client.jobs(jobIds.slice(i, i + 100))).results) {
      const record = job as { status: string; memory_id?: string; attempts?: number };
      jobs.set(job.job_id, {
        status: record.status,
        memory: record.memory_id || job.job_id,
        attempts: record.attempts ?? 0,
      });
    }
  }
  return jobs;
}

Deno.test("a job accepted by a relayer SIGKILLed mid-job is finished exactly once by another", async () => {
  const mark = "Kestrel-mid-job";
  await using ollama = startFakeModelServer("ollama");
  const gates = [0, 1, 2].map(() => gatedModelServer(ollama.url, mark));
  try {
    await using cluster = await startCluster(
      3,
      {
        SVC_EMBEDDER: "ollama",
        SVC_EMBED_MODEL: "nomic-embed-text",
        SVC_JOB_LEASE_SECONDS: "5",
        SVC_WORKER_CONCURRENCY: "1",
      },
      (i) => ({ OLLAMA_HOST: gates[i].url }),
    );
    const account = await clusterAccount(cluster);
    const first = cluster.relayers[0]!;
    const direct = await SvcClient.create({
      baseUrl: first.url,
      privateKey: account.privateKey,
      accountId: account.accountId,
    });
    const namespace = "mid-job";
    // Bulks accepted by relayer 0, until its own worker is stuck inside one of them.
    const accepted: { text: string; jobId: string }[] = [];
    for (let bulk = 0; gates[0].held === 0; bulk++) {
      assert.ok(bulk < 4, "relayer 0 took one of the jobs it accepted");
      const texts = Array.from(
        { length: 8 },
        (_, i) => `${mark} ${bulk}.${i}: the owl counts ${i}`,
      );
      const { job_ids } = await direct.rememberBulk(texts.map((text) => ({ text, namespace })));
      texts.forEach((text, i) => accepted.push({ text, jobId: job_ids[i] }));
      await waitFor("a worker holds the bulk", () => gates.some((g) => g.held > bulk), 10_000)
        .catch(() => {});
      await waitFor("relayer 0's worker holds a bulk", () => gates[0].held > 0, 2_000)
        .catch(() => {});
    }
    await first.kill();
    for (const gate of gates) gate.open();

    // The others take the dead relayer's jobs over once its lease ran out.
    const client = await SvcClient.create({
      baseUrl: cluster.url,
      privateKey: account.privateKey,
      accountId: account.accountId,
    });
    const jobIds = accepted.map((a) => a.jobId);
    let jobs = new Map<string, { status: string; memory: string; attempts: number }>();
    await waitFor("every accepted job ended", async () => {
      jobs = await statuses(client, jobIds);
      return [...jobs.values()].every((job) => job.status === "done" || job.status === "failed");
    }, 60_000);
    assert.deepEqual([...jobs.values()].filter((j) => j.status !== "done"), []);
    assert.ok(
      [...jobs.values()].some((job) => job.attempts >= 2),
      "a job the dead relayer held was attempted again",
    );

    // Each text is stored once, under its own job's id, and recallable on each live relayer.
    const listed = await listAll(client, namespace);
    assert.deepEqual(
      listed.map((m) => m.text).sort(),
      accepted.map((a) => a.text).sort(),
    );
    for (const { text, jobId } of accepted) {
      assert.deepEqual(listed.filter((m) => m.text === text).map((m) => m.id), [jobId]);
    }
    const view = await databaseView(cluster);
    for (const { jobId } of accepted) assert.equal(view.blobs.get(jobId), 1, `blobs of ${jobId}`);
    assert.equal(view.unfinished, 0);
    const sample = accepted[accepted.length - 1];
    for (const relayer of cluster.relayers.slice(1)) {
      const own = await SvcClient.create({
        baseUrl: relayer!.url,
        privateKey: account.privateKey,
        accountId: account.accountId,
      });
      const { results } = await own.recall(sample.text, { namespace, limit: 3 });
      assert.equal(results.filter((r) => r.id === sample.jobId).length, 1);
    }
  } finally {
    for (const gate of gates) await gate[Symbol.asyncDispose]();
  }
});

/** A connection refused or cut, or no relayer up behind the balancer. */
function unreachable(error: unknown): boolean {
  return error instanceof SvcError && error.code === "backend_unavailable";
}

Deno.test("chaos: remembering through the balancer while random relayers are SIGKILLed and restarted loses and duplicates nothing acknowledged", async () => {
  const seed = Number(Deno.env.get("CHAOS_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`multi-relayer chaos seed ${seed} (CHAOS_SEED=${seed} replays the plan)`);
  const rand = random(seed);
  const KILLS = 5, SENDERS = 4;
  const namespaces = ["chaos", "chaos-b"];
  await using cluster = await startCluster(3, { SVC_JOB_LEASE_SECONDS: "5" });
  const account = await clusterAccount(cluster);
  const client = await SvcClient.create({
    baseUrl: cluster.url,
    privateKey: account.privateKey,
    accountId: account.accountId,
    retries: 0,
  });

  /** Acknowledged texts → their job and namespace. */
  const acknowledged = new Map<string, { jobId: string; namespace: string }>();
  /** Texts sent at least once without an acknowledgement. */
  const retried = new Set<string>();
  let serial = 0, requests = 0, retries = 0, stopping = false;

  /** Sends until acknowledged; a refused, cut or replay-refused request is signed afresh. */
  const deliver = async (texts: string[], namespace: string, bulk: boolean) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      requests++;
      try {
        if (bulk) {
          return (await client.rememberBulk(texts.map((text) => ({ text, namespace })))).job_ids;
        }
        const answer = await client.remember(texts[0], { namespace });
        // A retry of a remember that was accepted finds the text stored already.
        return [answer.status === "duplicate" ? answer.duplicate_of : answer.job_id];
      } catch (error) {
        // The balancer sends a request cut by a kill to the next relayer, which may find its
        // nonce spent: a replay, refused, as for any client sending twice.
        const replayed = error instanceof SvcError && error.code === "replayed_request";
        if (!(unreachable(error) || replayed) || Date.now() > deadline) throw error;
        retries++;
        for (const text of texts) retried.add(text);
        await sleep(100 + rand() * 100);
      }
    }
  };
  const sender = async () => {
    while (!stopping) {
      const bulk = rand() < 0.4;
      const texts = Array.from(
        { length: bulk ? 2 + Math.floor(rand() * 5) : 1 },
        () => `Cluster chaos note ${serial++}: ${Math.floor(rand() * 1e9).toString(36)}`,
      );
      const namespace = namespaces[Math.floor(rand() * namespaces.length)];
      const jobIds = await deliver(texts, namespace, bulk);
      assert.equal(jobIds.length, texts.length);
      texts.forEach((text, i) => acknowledged.set(text, { jobId: jobIds[i], namespace }));
      await sleep(50 + rand() * 100);
    }
  };

  const senders = Array.from({ length: SENDERS }, () => sender());
  try {
    for (let kill = 0; kill < KILLS; kill++) {
      await sleep(300 + rand() * 1000);
      const victim = Math.floor(rand() * cluster.relayers.length);
      await cluster.relayers[victim]!.kill();
      await sleep(rand() * 300);
      await cluster.restart(victim);
    }
  } finally {
    stopping = true;
    await Promise.all(senders);
  }

  // Every acknowledged job ends done (a retry that reached a worker after its first try was
  // stored is done as a duplicate: its memory is the first try's).
  const jobIds = [...acknowledged.values()].map((a) => a.jobId);
  let jobs = new Map<string, { status: string; memory: string; attempts: number }>();
  await waitFor("every acknowledged job ended", async () => {
    jobs = await statuses(client, jobIds);
    return [...jobs.values()].every((job) => job.status === "done" || job.status === "failed");
  }, 60_000);
  const problems: string[] = [];
  for (const [jobId, job] of jobs) {
    if (job.status !== "done") problems.push(`job ${jobId} ended ${job.status}`);
  }

  // A job accepted by a relayer killed before it answered was never acknowledged, so nobody
  // waited on it above; another relayer finishes it once its lease or the next poll is due.
  let view!: Awaited<ReturnType<typeof databaseView>>;
  const waited = Date.now();
  await waitFor("no job left unfinished", async () => {
    view = await databaseView(cluster);
    return view.unfinished === 0;
  }, 60_000).catch((error) => {
    // Past the wait, the assertion below reports what is left; anything else is a failure.
    if (!/^timed out/.test(error.message)) throw error;
  });
  const waitedMs = Date.now() - waited;

  // Each acknowledged text is listed once, under its job's memory; any other memory is a text
  // sent again after a lost acknowledgement.
  let lost = 0, duplicated = 0;
  for (const namespace of namespaces) {
    const listed = await listAll(client, namespace);
    const byText = new Map<string, string[]>();
    for (const m of listed) byText.set(m.text, [...byText.get(m.text) ?? [], m.id]);
    for (const [text, ids] of byText) {
      if (ids.length > 1) {
        duplicated++;
        problems.push(`listed ${ids.length} times: ${text}`);
      }
      const mine = acknowledged.get(text);
      if (!mine && !retried.has(text)) problems.push(`a memory nobody sent: ${text}`);
      if (mine && mine.namespace !== namespace) problems.push(`in the wrong namespace: ${text}`);
    }
    for (const [text, { jobId, namespace: where }] of acknowledged) {
      if (where !== namespace) continue;
      const ids = byText.get(text) ?? [];
      const memory = jobs.get(jobId)?.memory;
      if (ids.length === 0) {
        lost++;
        problems.push(`lost: ${text} (job ${jobId})`);
      } else if (!ids.includes(memory!)) {
        problems.push(`${text} is listed under ${ids}, not its job's memory ${memory}`);
      }
      if (memory && view.blobs.get(memory) !== 1) {
        problems.push(`memory ${memory} has ${view.blobs.get(memory) ?? 0} blobs`);
      }
    }
  }
  for (const [memory, copies] of view.blobs) {
    if (copies > 1) {
      duplicated++;
      problems.push(`memory ${memory} has ${copies} blobs`);
    }
  }
  console.log(
    `multi-relayer chaos: ${KILLS} kills; ${acknowledged.size} texts acknowledged in ` +
      `${requests} requests (${retries} sent again); forwarded ${cluster.forwarded}; ` +
      `${[...jobs.values()].filter((job) => job.attempts >= 2).length} jobs attempted again; ` +
      `lost ${lost}, duplicated ${duplicated}, jobs not done ${view.unfinished} ` +
      `(after waiting ${waitedMs} ms for unacknowledged ones)`,
  );
  assert.ok(acknowledged.size > 0);
  assert.deepEqual(problems.slice(0, 20), []);
  assert.deepEqual({ lost, duplicated, unfinished: view.unfinished }, {
    lost: 0,
    duplicated: 0,
    unfinished: 0,
  });
});
