/**
 * The lifecycle routes as users run them: the relayer as its own process (`main.ts`, embedded
 * default, free ports, a temporary data directory), `--size` short facts remembered through the
 * public bulk API, then one signing client on 127.0.0.1 measures
 *
 * - list: a page of 50, newest first, paging on through the namespace (`GET /api/memories`);
 * - get: one memory by id;
 * - erase: `DELETE /api/memories/{id}`, receipt included;
 * - update → recallable: `PUT /api/memories/{id}`, then recall polled until the new version is
 *   found (and the old one is no longer returned).
 *
 * Prints the figures and writes `bench/results/lifecycle.json` (or `--out`).
 *
 *   deno task bench:lifecycle [--size 10000] [--samples 200] [--out FILE]
 */
import { signRequest } from "../src/auth/signing.ts";
import { SvcClient } from "../src/client/mod.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";
import { factWorkload } from "./fact_workload.ts";
import {
  allDone,
  machine,
  percentile,
  resultsFile,
  round,
  rssMb,
  writeResults,
} from "./harness.ts";
import { flags, whole } from "./flags.ts";

const { values } = flags({
  options: {
    size: { type: "string", default: "10000" },
    samples: { type: "string", default: "200" },
    out: {
      type: "string",
      default: resultsFile("lifecycle.json"),
    },
  },
});
const SIZE = whole(values.size, "--size");
const SAMPLES = whole(values.samples, "--samples");
const NAMESPACE = "facts";

const dataDir = await Deno.makeTempDir({ prefix: "svc-lifecycle-" });
const relayer = await startRelayer(dataDir);
const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
const client = await SvcClient.create({ baseUrl: relayer.url, privateKey, accountId, retries: 0 });

/** A signed request; its JSON answer, or an error naming the status. */
async function signed<T>(method: string, path: string, body?: unknown): Promise<T> {
  const payload = body === undefined ? "" : JSON.stringify(body);
  const headers = new Headers(
    await signRequest({ key: privateKey, method, path, body: payload, audience: relayer.url }),
  );
  headers.set("x-account-id", accountId);
  if (body !== undefined) headers.set("content-type", "application/json");
  const response = await fetch(relayer.url + path, {
    method,
    headers,
    body: body === undefined ? undefined : payload,
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${answer.code}`);
  return answer;
}

/** Milliseconds of each of `samples` calls, run one after another; p50 and p99. */
async function timed(samples: number, call: (i: number) => Promise<unknown>) {
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const started = performance.now();
    await call(i);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { samples, p50_ms: round(percentile(ms, 50)), p99_ms: round(percentile(ms, 99)) };
}

type Page = { memories: { id: string; text: string }[]; next_cursor: string | null };

try {
  const facts = factWorkload(SIZE);
  const started = performance.now();
  const jobIds: string[] = [];
  for (let i = 0; i < facts.length; i += 20) {
    const items = facts.slice(i, i + 20).map(({ text }) => ({ text, namespace: NAMESPACE }));
    jobIds.push(...(await client.rememberBulk(items)).job_ids);
  }
  await allDone(client, jobIds);
  const ingestS = round((performance.now() - started) / 1000, 1);
  console.log(JSON.stringify({ memories: SIZE, ingest_s: ingestS }));

  let cursor: string | null = null;
  const list = await timed(SAMPLES, async () => {
    const query: string = cursor ? `&cursor=${cursor}` : "";
    const page: Page = await signed("GET", `/api/memories?namespace=${NAMESPACE}&limit=50${query}`);
    if (page.memories.length !== 50) throw new Error("a short page");
    cursor = page.next_cursor;
  });
  console.log(JSON.stringify({ list_50: list }));

  const ids = jobIds.filter((_, i) => i % Math.floor(SIZE / (3 * SAMPLES) || 1) === 0);
  const get = await timed(SAMPLES, (i) => signed("GET", `/api/memories/${ids[i]}`));
  console.log(JSON.stringify({ get }));
  const erase = await timed(SAMPLES, (i) => signed("DELETE", `/api/memories/${ids[i]}`));
  console.log(JSON.stringify({ erase }));

  // Update → recallable: from the PUT until recall finds the new version.
  const ms: number[] = [];
  for (let i = 0; i < SAMPLES / 2; i++) {
    const id = ids[SAMPLES + i];
    const token = `q${crypto.randomUUID().slice(0, 8)}`;
    const text = `updated ${i}: the user now keeps the token ${token}`;
    const sent = performance.now();
    const { job_id } = await signed<{ job_id: string }>("PUT", `/api/memories/${id}`, { text });
    while (true) {
      const { results } = await client.recall(token, { namespace: NAMESPACE, limit: 10 });
      if (results.some((r) => r.id === job_id)) {
        if (results.some((r) => r.id === id)) throw new Error("recall returned both versions");
        break;
      }
      const job = await signed<{ status: string; error?: string }>(
        "GET",
        `/api/remember/${job_id}`,
      );
      if (job.status === "failed") throw new Error(`the update failed: ${job.error}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    ms.push(performance.now() - sent);
  }
  ms.sort((a, b) => a - b);
  const update = {
    samples: ms.length,
    p50_ms: round(percentile(ms, 50)),
    p95_ms: round(percentile(ms, 95)),
  };
  console.log(JSON.stringify({ update_to_recallable: update }));

  const result = {
    machine: machine(),
    date: new Date().toISOString(),
    memories: SIZE,
    ingest_s: ingestS,
    list_50: list,
    get,
    erase,
    update_to_recallable: update,
    relayer_rss_mb: await rssMb(relayer.process.pid),
  };
  await writeResults(values.out!, result);
} finally {
  await relayer.stop();
  await Deno.remove(dataDir, { recursive: true });
}
