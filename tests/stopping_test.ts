/**
 * Stopping the relayer (Ctrl-C, SIGTERM) lets the requests it is handling finish, one whose body
 * is still arriving included, and refuses new ones meanwhile; then it exits.
 */
import assert from "node:assert/strict";
import { signRequest } from "../src/auth/signing.ts";
import { jobIdOf, newAccountClient, startRelayer } from "./relayer_process.ts";

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
