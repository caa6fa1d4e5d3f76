/**
 * `GET /metrics` through the relayer's handler: what is counted and timed, that no label names
 * an owner, a key, a namespace or a memory, and who may read it.
 */
import assert from "node:assert/strict";
import { signRequest } from "../src/auth/signing.ts";
import { MemoryReranker } from "../src/testing/memory_reranker.ts";
import type { ConnectionInfo } from "../src/http/router.ts";
import { MemoryJobQueue } from "../src/testing/memory_job_queue.ts";
import { reconcileJobs } from "../src/jobs/reconciler.ts";
import { silentLogger } from "../src/log.ts";
import type { SidecarLink } from "../src/sidecar/link.ts";
import { BASE, jsonOf, rememberAll, startTestRelayer, type TestRelayer } from "./fixtures.ts";

/** A connection from `hostname`. */
function from(hostname: string): ConnectionInfo {
  return { remoteAddr: { transport: "tcp", hostname, port: 40_000 } };
}

async function scrape(t: TestRelayer, hostname = "127.0.0.1", headers?: HeadersInit) {
  return await t.relayer.handler(new Request(`${BASE}/metrics`, { headers }), from(hostname));
}

/** The metrics text, read from loopback. */
async function metricsOf(t: TestRelayer): Promise<string> {
  const res = await scrape(t);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  return await res.text();
}

/** The value of one series (`name{labels}` exactly as written), or `undefined`. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((line) => line.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

Deno.test("requests are counted by route pattern, method and status, never by path or caller", async () => {
  await using t = await startTestRelayer();
  const alice = await t.newCaller();
  const [id] = await rememberAll(t, alice, [
    { text: "My locker code is quokka-zebra", namespace: "private-diary" },
  ]);
  await jsonOf(await t.signed(alice, "GET", `/api/memories/${id}`));
  await jsonOf(await t.signed(alice, "GET", "/api/memories?namespace=private-diary"));
  await jsonOf(await t.signed(alice, "GET", `/api/memories/${crypto.randomUUID()}`), 404);
  await jsonOf(await t.signed(alice, "POST", "/api/recall", { query: 5 }), 400);
  await jsonOf(await t.send("GET", `/nothing/${id}`), 404);
  await jsonOf(await t.send("PROPFIND", "/health"), 405);
  await jsonOf(await t.send("DELETE", "/health"), 405);
  assert.equal((await t.send("HEAD", "/health")).status, 200);

  const text = await metricsOf(t);
  const count = (labels: string) => sample(text, `svc_http_requests_total{${labels}}`);
  assert.equal(count('method="GET",route="/api/memories/:id",status="200"'), 1);
  assert.equal(count('method="GET",route="/api/memories/:id",status="404"'), 1);
  assert.equal(count('method="GET",route="/api/memories",status="200"'), 1);
  assert.equal(count('method="POST",route="/api/remember",status="202"'), 1);
  assert.equal(count('method="POST",route="/api/recall",status="400"'), 1);
  assert.equal(count('method="GET",route="unmatched",status="404"'), 1);
  assert.equal(count('method="other",route="unmatched",status="405"'), 1);
  assert.equal(count('method="DELETE",route="unmatched",status="405"'), 1);
  // A HEAD the GET route answers is a HEAD.
  assert.equal(count('method="HEAD",route="/health",status="200"'), 1);
  assert.equal(count('method="GET",route="/health",status="200"'), undefined);
  const polls = count('method="POST",route="/api/remember/bulk/status",status="200"') ?? 0;
  assert.ok(polls >= 1);
  const latency = 'svc_http_request_duration_seconds_count{method="GET",route="/api/memories/:id"}';
  assert.equal(sample(text, latency), 2);
  assert.equal(
    sample(
      text,
      'svc_http_request_duration_seconds_bucket{method="GET",route="/api/memories/:id",le="+Inf"}',
    ),
    2,
  );

  for (
    const secret of [
      alice.owner,
      alice.accountId,
      alice.key.publicKey,
      "private-diary",
      id,
      "quokka-zebra", // digits could match a sample by chance
      "PROPFIND",
      "/nothing",
    ]
  ) {
    assert.ok(!text.includes(secret), `the metrics name ${secret}`);
  }
});

Deno.test("recall's stages are timed; jobs are counted by outcome with their durations", async () => {
  await using t = await startTestRelayer({ reranker: new MemoryReranker() });
  const alice = await t.newCaller();
  const res = await t.signed(alice, "POST", "/api/remember/bulk", {
    items: [{ text: "I keep bees" }, { text: "I keep bees" }, { text: "I live in Lisbon" }],
  });
  const { job_ids } = await jsonOf(res, 202);
  await t.settle(alice, job_ids);
  // A job is done in the queue before its batch lets go of it (the lease's heartbeat ends last).
  await t.relayer.worker.idle();
  await jsonOf(await t.signed(alice, "POST", "/api/recall", { query: "bees" }));
  await jsonOf(await t.signed(alice, "POST", "/api/recall", { query: "Lisbon" }));

  // Each job is delivered at least once: in process at once, and by the queue's message, which
  // may come after the job is done and run a batch that leases nothing. The worker's gauges must
  // be back at 0 once that batch ends.
  const busy = (text: string) =>
    sample(text, 'svc_worker_jobs{state="waiting"}')! +
    sample(text, 'svc_worker_jobs{state="running"}')!;
  let text = await metricsOf(t);
  for (let tries = 0; tries < 100 && busy(text) > 0; tries++) {
    await t.relayer.worker.idle();
    await new Promise((r) => setTimeout(r, 10));
    text = await metricsOf(t);
  }
  for (const stage of ["embed", "search", "lexical", "read", "rerank"]) {
    assert.equal(sample(text, `svc_recall_stage_seconds_count{stage="${stage}"}`), 2, stage);
    const sum = sample(text, `svc_recall_stage_seconds_sum{stage="${stage}"}`)!;
    assert.ok(sum >= 0 && Number.isFinite(sum), stage);
  }
  assert.equal(sample(text, 'svc_jobs_total{outcome="done"}'), 2);
  assert.equal(sample(text, 'svc_jobs_total{outcome="duplicate"}'), 1);
  assert.equal(sample(text, 'svc_jobs_total{outcome="failed"}'), 0);
  assert.equal(sample(text, 'svc_job_duration_seconds_count{outcome="done"}'), 2);
  assert.equal(sample(text, 'svc_job_duration_seconds_bucket{outcome="done",le="+Inf"}'), 2);
  assert.ok(sample(text, "svc_worker_batch_duration_seconds_count")! >= 1);
  assert.equal(sample(text, 'svc_worker_jobs{state="waiting"}'), 0);
  assert.equal(sample(text, 'svc_worker_jobs{state="running"}'), 0);
  assert.equal(sample(text, "svc_job_retries_total"), 0);
  assert.equal(sample(text, "svc_jobs_unfinished"), 0, "counted by the start-up pass");
  assert.equal(sample(text, "svc_lexicon_namespaces"), 1, "the namespace remembered into");
  assert.ok(sample(text, "svc_lexicon_bytes")! > 0);
});

Deno.test("the reconciler's pass counts the unfinished jobs", async () => {
  using queue = new MemoryJobQueue();
  await queue.accept(["a", "b"].map((text) => ({ owner: "o", namespace: "n", text })));
  let counted: number | undefined;
  await reconcileJobs(queue, silentLogger, {
    startup: false,
    counted: (unfinished) => counted = unfinished,
  });
  assert.equal(counted, 2);
});

Deno.test("the sidecar's state, restarts and MCP sessions come from its link", async () => {
  let up = true;
  const sidecar: SidecarLink = {
    url: "http://127.0.0.1:1",
    token: "t",
    status: () => up ? "up" : "down",
    sessions: () => 5,
    restarts: () => 3,
  };
  await using t = await startTestRelayer({ sidecar });
  let text = await metricsOf(t);
  assert.equal(sample(text, "svc_sidecar_up"), 1);
  assert.equal(sample(text, "svc_sidecar_restarts_total"), 3);
  assert.equal(sample(text, "svc_mcp_sessions"), 5);
  assert.match(text, /# TYPE svc_sidecar_restarts_total counter/);
  up = false;
  text = await metricsOf(t);
  assert.equal(sample(text, "svc_sidecar_up"), 0);
});

Deno.test("without SVC_METRICS_TOKEN the metrics answer loopback clients only", async () => {
  await using t = await startTestRelayer();
  for (const hostname of ["127.0.0.1", "127.8.0.3", "::1", "::ffff:127.0.0.1"]) {
    assert.equal((await scrape(t, hostname)).status, 200, hostname);
  }
  // A web page whose name was rebound to 127.0.0.1 reaches it from this machine: its Host tells.
  const rebound = await jsonOf(await scrape(t, "127.0.0.1", { host: "rebound.example:8000" }), 403);
  assert.equal(rebound.reason, "host_not_allowed");
  for (const hostname of ["10.0.0.7", "192.168.1.2", "::ffff:10.0.0.7", "fe80::1", "1.127.0.0"]) {
    const body = await jsonOf(await scrape(t, hostname), 403);
    assert.equal(body.reason, "not_loopback");
    assert.match(body.error, /SVC_METRICS_TOKEN/);
  }
  // A request without a connection (in process) is not known to be local.
  assert.equal((await t.send("GET", "/metrics")).status, 403);
});

Deno.test("behind a trusted proxy, the connection and the forwarded address must both be local", async () => {
  await using t = await startTestRelayer({ trustProxy: true });
  const forwarded = (address: string) => ({ "x-forwarded-for": address });
  // The proxy on this machine forwards a local client: allowed; a remote one: refused.
  assert.equal((await scrape(t, "127.0.0.1", forwarded("127.0.0.1"))).status, 200);
  assert.equal((await scrape(t, "127.0.0.1", forwarded("203.0.113.9"))).status, 403);
  // A remote client claiming to be local is refused.
  assert.equal((await scrape(t, "203.0.113.9", forwarded("127.0.0.1"))).status, 403);
});

Deno.test("with SVC_METRICS_TOKEN every client, loopback too, needs the bearer token", async () => {
  const token = "metrics-token-0123456789";
  await using t = await startTestRelayer({ metricsToken: token, authFailuresPerMinute: 3 });
  const tries: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-0123456789" }];
  for (const headers of tries) {
    const res = await scrape(t, "127.0.0.1", headers);
    const body = await jsonOf(res, 401);
    assert.equal(body.reason, "bad_token");
    assert.equal(res.headers.get("www-authenticate"), "Bearer");
    assert.ok(!JSON.stringify(body).includes(token));
  }
  const remote = await scrape(t, "203.0.113.9", { authorization: `Bearer ${token}` });
  assert.equal(remote.status, 200);
  assert.match(await remote.text(), /svc_http_requests_total/);
  assert.equal((await scrape(t, "203.0.113.9", { authorization: `bearer ${token}` })).status, 200);

  // Guessing is limited like failed signatures: past the limit even the right token waits.
  const guesser = "198.51.100.4";
  for (let i = 0; i < 3; i++) {
    assert.equal((await scrape(t, guesser, { authorization: `Bearer guess-${i}` })).status, 401);
  }
  const limited = await scrape(t, guesser, { authorization: `Bearer ${token}` });
  assert.equal(limited.status, 429);
  assert.ok(Number(limited.headers.get("retry-after")) > 0);
  await limited.body?.cancel();
  // The API's own signed requests from that address are counted apart, and still answered.
  const alice = await t.newCaller();
  const headers = await signRequest({
    key: alice.key,
    method: "GET",
    path: "/api/whoami",
    body: "",
    audience: BASE,
  });
  const api = await t.relayer.handler(
    new Request(`${BASE}/api/whoami`, { headers }),
    from(guesser),
  );
  assert.equal((await jsonOf(api, 200)).account_id, alice.accountId);
});
