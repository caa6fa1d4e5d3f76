/**
 * Chaos: a signing client remembers texts, one at a time and in bulk, while other clients keep
 * recalling as fast as they are answered, and the relayer's process group (relayer and sidecar)
 * is SIGKILLed again and again at random moments and restarted on the same data directory. A
 * request that was not acknowledged is sent again, signed afresh, as a client does. Once the last
 * relayer has drained its queue, every acknowledged text must be stored exactly once, done and
 * recallable, no job may be left unfinished, and every blob in the data directory must decrypt
 * with the data directory's key. After every restart, recalls answered before the kill are sent
 * again byte for byte: each must be refused as a replay.
 *
 * The texts and the moments of the kills come from a seed, printed; `CHAOS_SEED` sets it (the
 * scheduler still decides what is in flight at each kill).
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { keyPairFromSeed } from "@svc/util/keys";
import { signRequest } from "../../src/auth/signing.ts";
import { SvcError } from "../../src/errors.ts";
import { SqliteBlobStore } from "../../plugins/sqlite_blob/mod.ts";
import { LocalCipher } from "../../plugins/local_cipher/mod.ts";
import {
  freePort,
  newAccountClient,
  type RelayerProcess,
  startRelayer,
  testMasterKey,
} from "../relayer_process.ts";
import { seededRandom as random } from "@svc/util/seeded_random";

const KILLS = 10;
const SENDERS = 2;
/** Clients recalling back to back while the senders remember. */
const READERS = 8;
/** About how many acknowledged texts are recalled one by one at the end. */
const RECALL_SAMPLE = 25;
const NAMESPACES = ["chaos", "chaos-b"];
const WORDS = (
  "apple harbour violin copper meadow lantern pepper glacier saddle orbit tulip canyon " +
  "walnut falcon marble ribbon cactus puzzle anchor velvet thunder basket comet pillow " +
  "mango cobalt feather island jigsaw kettle lemon nutmeg oyster parrot quartz rocket " +
  "salmon teapot umbrella vanilla wizard yogurt zebra bamboo cinder dagger ember fjord"
).split(" ");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One remember request: a single text, or a bulk of several, in one namespace. */
interface Send {
  texts: string[];
  namespace: string;
  bulk: boolean;
}

/** A connection refused or cut: the relayer is down, or was killed while answering. */
function unreachable(error: unknown): boolean {
  return error instanceof SvcError && error.code === "backend_unavailable" &&
    error.details.request_id === undefined;
}

Deno.test("chaos: remembers, bulks and recalls under repeated SIGKILL of the relayer's process group lose, duplicate, strand and replay nothing", async () => {
  const seed = Number(Deno.env.get("CHAOS_SEED") ?? Math.floor(Math.random() * 2 ** 31));
  console.log(`chaos seed ${seed} (CHAOS_SEED=${seed} replays the plan)`);
  const rand = random(seed);
  const dataDir = await Deno.makeTempDir({ prefix: "svc-chaos-" });
  // One port for every restart: the client's URL (and the origin it signs for) never changes.
  // After each kill up to 50 recalls are replayed on purpose, each a failed authentication, often
  // before any request has succeeded on the new relayer: past the default 30 failures a minute
  // the address's signed requests would get 429, so the limit is lifted here.
  const env = { SVC_PORT: String(freePort()), SVC_AUTH_FAILURES_PER_MIN: "1000000" };
  const start = async (): Promise<RelayerProcess> => {
    for (let attempt = 0;; attempt++) {
      try {
        return await startRelayer(dataDir, env, { processGroup: true });
      } catch (error) {
        // A port still held by the killed process group frees itself in a moment.
        if (attempt >= 20 || !/port is in use/.test(String(error))) throw error;
        await sleep(100);
      }
    }
  };
  let relayer = await start();
  try {
    const account = await newAccountClient(dataDir, relayer.url);
    const client = await SvcClient.create({
      baseUrl: relayer.url,
      privateKey: account.privateKey,
      accountId: account.accountId,
      retries: 0,
    });

    let serial = 0;
    const plan = (): Send => {
      const bulk = rand() < 0.4;
      const count = bulk ? 2 + Math.floor(rand() * 5) : 1;
      const texts = Array.from({ length: count }, () => {
        const words = Array.from({ length: 4 }, () => WORDS[Math.floor(rand() * WORDS.length)]);
        return `Chaos note ${serial++}: ${words.join(" ")}`;
      });
      return { texts, namespace: NAMESPACES[Math.floor(rand() * NAMESPACES.length)], bulk };
    };

    /** Acknowledged texts → their job (= memory) id and namespace. */
    const acknowledged = new Map<string, { jobId: string; namespace: string }>();
    /** Texts sent at least once without an acknowledgement. */
    const retriedTexts = new Set<string>();
    let requests = 0, retries = 0, stopping = false;

    /** Sends until acknowledged: a refused or cut request is signed and sent again. */
    const deliver = async ({ texts, namespace, bulk }: Send): Promise<string[]> => {
      const deadline = Date.now() + 30_000;
      for (;;) {
        requests++;
        try {
          if (bulk) {
            // A retry of a bulk that was accepted finds its texts stored already: their ids
            // are those of the memories holding them.
            return (await client.rememberBulk(texts.map((text) => ({ text, namespace })))).job_ids;
          }
          return [
            await client.remember(texts[0], { namespace }).then((answer) =>
              // A retry of a remember that was accepted finds the text stored already.
              answer.status === "duplicate" ? answer.duplicate_of : answer.job_id
            ),
          ];
        } catch (error) {
          if (!unreachable(error) || Date.now() > deadline) throw error;
          retries++;
          for (const text of texts) retriedTexts.add(text);
          await sleep(100 + rand() * 100);
        }
      }
    };

    const sender = async () => {
      while (!stopping) {
        const send = plan();
        const jobIds = await deliver(send);
        assert.equal(jobIds.length, send.texts.length);
        send.texts.forEach((text, i) => {
          acknowledged.set(text, { jobId: jobIds[i], namespace: send.namespace });
        });
        await sleep(100 + rand() * 200);
      }
    };

    // Recalls signed here, so that an answered one can be sent again exactly as it was.
    const key = await keyPairFromSeed(account.privateKey);
    const signedRecall = async () => {
      const body = JSON.stringify({ query: `note ${WORDS[Math.floor(rand() * WORDS.length)]}` });
      const headers = await signRequest({
        key,
        method: "POST",
        path: "/api/recall",
        body,
        audience: relayer.url,
        accountId: account.accountId,
      });
      return { headers: { ...headers, "content-type": "application/json" }, body };
    };
    const send = (request: { headers: Record<string, string>; body: string }) =>
      fetch(`${relayer.url}/api/recall`, { method: "POST", ...request });
    /** The last recalls answered by the relayer running now; sent again once it is killed. */
    let answered: Awaited<ReturnType<typeof signedRecall>>[] = [];
    let recalls = 0, replaysRefused = 0;
    const replaysAccepted: string[] = [];
    const reader = async () => {
      while (!stopping) {
        const request = await signedRecall();
        try {
          const response = await send(request);
          await response.body?.cancel();
          if (response.ok) {
            recalls++;
            // The last ones answered before a kill are the likeliest to be lost.
            if (answered.push(request) > 50) answered.shift();
          }
        } catch {
          await sleep(50); // the relayer is down
        }
      }
    };

    const senders = Array.from({ length: SENDERS }, () => sender());
    const readers = Array.from({ length: READERS }, () => reader());
    try {
      for (let kill = 0; kill < KILLS; kill++) {
        await sleep(300 + rand() * 1200);
        await relayer.kill();
        const before = answered;
        answered = [];
        await sleep(rand() * 200);
        relayer = await start();
        for (const request of before) {
          const response = await send(request);
          const { code } = await response.json();
          if (response.status === 409 && code === "replayed_request") replaysRefused++;
          else replaysAccepted.push(`${response.status} ${code ?? ""}`);
        }
      }
    } finally {
      stopping = true;
      await Promise.all([...senders, ...readers]);
    }
    assert.ok(retries > 0, "the kills must catch requests unacknowledged");
    assert.ok(recalls > 0 && replaysRefused > 0, "recalls were answered, and replayed");
    assert.deepEqual(replaysAccepted, [], "a recall answered before a kill is a replay after it");

    // The last relayer drains the queue: every acknowledged job ends, done or failed.
    const jobIds = [...acknowledged.values()].map((a) => a.jobId);
    const statuses = new Map<string, string>();
    // A retry that reached the worker after its first try was stored is done as a duplicate
    // of it: its memory is the first try's.
    const memoryOf = new Map<string, string>();
    const drainDeadline = Date.now() + 60_000;
    while (Date.now() < drainDeadline) {
      for (let i = 0; i < jobIds.length; i += 100) {
        for (const job of (await client.jobs(jobIds.slice(i, i + 100))).results) {
          statuses.set(job.job_id, job.status);
          memoryOf.set(job.job_id, ("memory_id" in job && job.memory_id) || job.job_id);
        }
      }
      if ([...statuses.values()].every((s) => s === "done" || s === "failed")) break;
      await sleep(200);
    }
    const notDone = jobIds.filter((id) => statuses.get(id) !== "done");

    // Every stored memory is in the index: restore finds none of the namespace's blobs
    // missing from it (one it re-indexes was not recallable before).
    let lost = 0, duplicated = 0;
    const problems: string[] = [];
    for (const namespace of NAMESPACES) {
      const { restored } = await client.restore(namespace, { limit: 500 });
      lost += restored;
      if (restored) problems.push(`${restored} memories of "${namespace}" were not indexed`);
    }
    // A sample of the acknowledged texts, recalled by their own words: once, under their id.
    const sample = [...acknowledged].filter(() => rand() < RECALL_SAMPLE / acknowledged.size);
    for (const [text, { jobId, namespace }] of sample) {
      const { results } = await client.recall(text, { namespace, limit: 5 });
      const mine = results.filter((r) => r.id === memoryOf.get(jobId));
      if (mine.length !== 1 || mine[0].text !== text) {
        problems.push(`recalled ${mine.length} times: ${text} (job ${jobId})`);
      }
      if (mine.length === 0) lost++;
      if (mine.length > 1) duplicated++;
    }
    await relayer.stop();

    // The data directory, with its own key: every blob decrypts, one blob per acknowledged
    // text; a blob of an unacknowledged job is a retried text whose first try was accepted.
    const stored = await inspectBlobs(dataDir, account.owner);
    problems.push(...stored.problems);
    const { byMemory } = stored;
    const jobOf = new Map(
      [...acknowledged].map(([text, { jobId }]) => [memoryOf.get(jobId) ?? jobId, text]),
    );
    let unacknowledgedCopies = 0;
    for (const [memoryId, texts] of byMemory) {
      if (texts.length > 1) {
        duplicated++;
        problems.push(`memory ${memoryId} has ${texts.length} blobs`);
      }
      const text = jobOf.get(memoryId);
      if (text === undefined) {
        unacknowledgedCopies++;
        if (!texts.every((t) => retriedTexts.has(t))) {
          problems.push(`blob of memory ${memoryId} matches no retried request`);
        }
      } else if (texts[0] !== text) {
        problems.push(`memory ${memoryId} holds another text`);
      }
    }
    for (const [jobId, text] of jobOf) {
      if (!byMemory.has(jobId)) {
        lost++;
        problems.push(`no blob: ${text} (job ${jobId})`);
      }
    }

    // No job of any request, acknowledged or not, is left unfinished in the queue.
    const kv = await Deno.openKv(`${dataDir}/jobs.kv`);
    let stuck = 0;
    for await (const entry of kv.list<{ status: string }>({ prefix: ["job"] })) {
      if (entry.value.status !== "done") stuck++;
    }
    kv.close();

    console.log(
      `chaos: ${KILLS} kills; ${acknowledged.size} texts acknowledged in ${requests} requests ` +
        `(${retries} unacknowledged, sent again), ${recalls} recalls answered (${replaysRefused} ` +
        `replayed after a restart, all refused); lost ${lost}, duplicated ${duplicated}, ` +
        `stuck ${stuck}; ${stored.count} blobs (${unacknowledgedCopies} of retried requests ` +
        `whose acknowledgement was lost, ${stored.unlisted} unlisted, ${stored.undecryptable} ` +
        `undecryptable)`,
    );
    assert.deepEqual(problems.slice(0, 20), []);
    assert.deepEqual(notDone, []);
    assert.deepEqual({ lost, duplicated, stuck }, { lost: 0, duplicated: 0, stuck: 0 });
    assert.equal(stored.undecryptable, 0);
    assert.equal(stored.unlisted, 0, "every blob is found by listing its namespace (for restore)");
    assert.equal(stored.count, acknowledged.size + unacknowledgedCopies);
  } finally {
    await relayer.kill();
    await Deno.remove(dataDir, { recursive: true });
  }
});

/**
 * Every blob the data directory's blob store (the default, SQLite) holds, decrypted with the
 * data directory's master key: the texts of each memory, and what is wrong (not listed in its
 * namespace, not decrypting).
 */
async function inspectBlobs(dataDir: string, owner: string) {
  const masterKey = await testMasterKey(dataDir);
  await using cipher = await LocalCipher.open({
    masterKey,
    keyStorePath: `${dataDir}/keys.sqlite`,
  });
  const blobs = await SqliteBlobStore.open({
    path: `${dataDir}/blobs/blobs.sqlite`,
    secret: masterKey,
  });
  try {
    const listed = new Set<string>();
    for (const namespace of NAMESPACES) {
      for (const { blobId } of await blobs.list(owner, namespace)) listed.add(blobId);
    }
    const byMemory = new Map<string, string[]>();
    const problems: string[] = [];
    let count = 0, unlisted = 0, undecryptable = 0;
    for await (const { blobId, meta } of blobs.entries()) {
      count++;
      if (!listed.has(blobId)) unlisted++;
      try {
        const plaintext = await cipher.decrypt(meta.owner, (await blobs.get(blobId))!);
        const text = new TextDecoder().decode(plaintext);
        byMemory.set(meta.memoryId, [...byMemory.get(meta.memoryId) ?? [], text]);
      } catch (error) {
        undecryptable++;
        problems.push(`blob ${blobId} does not decrypt: ${error}`);
      }
    }
    return { byMemory, problems, count, unlisted, undecryptable };
  } finally {
    blobs.close();
  }
}
