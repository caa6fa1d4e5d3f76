/**
 * Stopping the relayer (Ctrl-C, SIGTERM) lets the requests it is handling finish, one whose body
 * is still arriving included, and refuses new ones meanwhile; it lets the job batch running
 * finish, for a while, and leaves the jobs not yet started for the next start; then it exits.
 */
import assert from "node:assert/strict";
import { signRequest } from "../../src/auth/signing.ts";
import { SvcClient } from "../../src/client/mod.ts";
import { startFakeModelServer } from "../fakes/model_server.ts";
import { jobIdOf, newAccountClient, startRelayer } from "../relayer_process.ts";

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
};

Deno.test("stopping: a request still sending its body is answered; a new one is refused", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-stopping-" });
  try {
    await using relayer = await startRelayer(dataDir);
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    await client.waitForJob(jobIdOf(await client.remember("I keep bees")));

    // A signed recall whose body comes in two parts, Ctrl-C between them.
    const body = JSON.stringify({ query: "what do I keep?" });
    const headers = await signRequest({
      key: privateKey,
      method: "POST",
      path: "/api/recall",
      body,
      nonce: true,
      accountId,
    });
    const { hostname, port } = new URL(relayer.url);
    const conn = await Deno.connect({ hostname, port: Number(port) });
    const head = Object.entries({
      ...headers,
      host: `${hostname}:${port}`,
      "content-type": "application/json",
      "content-length": String(body.length),
      connection: "close",
    }).map(([name, value]) => `${name}: ${value}\r\n`).join("");
    const send = (text: string) => conn.write(new TextEncoder().encode(text));
    await send(`POST /api/recall HTTP/1.1\r\n${head}\r\n${body.slice(0, 10)}`);
    relayer.process.kill("SIGINT");
    await until(() => relayer.log().includes("relayer stopping"));

    // Once its sidecar has stopped (whose calls still running reach the relayer), new requests
    // are refused.
    let refused: Response;
    while ((refused = await fetch(`${relayer.url}/api/whoami`)).status !== 503) {
      assert.equal(refused.status, 401, "served as before, unsigned");
      await refused.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await refused.json()).code, "server_busy");
    assert.equal(refused.headers.get("retry-after"), "1");

    await send(body.slice(10));
    const answer = await new Response(conn.readable).text();
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /I keep bees/);
    assert.equal((await relayer.process.status).code, 0);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("stopping: the jobs not yet started wait for the next start; a batch that hangs is cut short", async () => {
  await using ollama = startFakeModelServer("ollama");
  const env = {
    SVC_EMBEDDER: "ollama",
    SVC_EMBED_MODEL: "nomic-embed-text",
    OLLAMA_HOST: ollama.url,
    SVC_WORKER_CONCURRENCY: "1",
    SVC_WORKER_BATCH: "4",
  };
  const dataDir = await Deno.makeTempDir({ prefix: "svc-stopping-" });
  try {
    const relayer = await startRelayer(dataDir, env);
    const { privateKey, accountId, client } = await newAccountClient(dataDir, relayer.url);
    const before = ollama.requests.length;
    const release = ollama.holdNext(60_000);
    const texts = Array.from({ length: 40 }, (_, i) => `the heron counts ${i}`);
    const job_ids: string[] = [];
    for (let i = 0; i < texts.length; i += 20) {
      const items = texts.slice(i, i + 20).map((text) => ({ text }));
      job_ids.push(...(await client.rememberBulk(items)).job_ids);
    }
    await until(() => ollama.requests.length > before);

    assert.equal((await relayer.stop()).code, 0);
    assert.match(relayer.log(), /jobs still running; stopping without them/);
    assert.equal(ollama.requests.length, before + 1, "no batch started after the stop");
    release();

    await using again = await startRelayer(dataDir, env);
    const resumed = await SvcClient.create({ baseUrl: again.url, privateKey, accountId });
    for (const jobId of job_ids) assert.equal((await resumed.waitForJob(jobId)).status, "done");
    const found = await resumed.recall("heron counts 17", { limit: 1 });
    assert.equal(found.results[0]?.text, texts[17]);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
