/**
 * Stopping a relayer: behind a load balancer, with `SVC_STOP_DRAIN_SECONDS`, its health check
 * fails at once while every request is still served, and then it stops cleanly; the MCP tool
 * calls running when it is told to stop are answered before its sidecar closes their sessions.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  freePort,
  jobIdOf,
  newAccountClient,
  startRelayer,
  waitForSidecar,
} from "../relayer_process.ts";

/** An MCP client of a new account's key on the relayer at `url`, once its sidecar is up. */
async function mcpClient(dataDir: string, url: string): Promise<Client> {
  const { accountId, privateKey } = await newAccountClient(dataDir, url);
  await waitForSidecar(url);
  const client = new Client({ name: "stop-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
      requestInit: {
        headers: { authorization: `Bearer ${privateKey}`, "x-svc-account-id": accountId },
      },
    }),
  );
  return client;
}

Deno.test("stop with a drain: /health answers 503 stopping, requests are served, then a clean exit", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using relayer = await startRelayer(dataDir, { SVC_STOP_DRAIN_SECONDS: "5" });
    const { client } = await newAccountClient(dataDir, relayer.url);
    const before = await fetch(`${relayer.url}/health`);
    assert.deepEqual([before.status, (await before.json()).status], [200, "ok"]);

    relayer.process.kill("SIGTERM");
    for (let i = 0; i < 200 && !relayer.log().includes("relayer draining"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const draining = await fetch(`${relayer.url}/health`);
    assert.equal(draining.status, 503);
    assert.equal((await draining.json()).status, "stopping");
    const saved = await client.remember("I stopped the relayer gracefully");
    assert.equal((await client.waitForJob(jobIdOf(saved))).status, "done");
    assert.equal((await relayer.process.status).code, 0);
    assert.match(relayer.log(), /relayer draining[\s\S]*relayer stopping/);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("stop: MCP tool calls running at Ctrl-C are answered before the sidecar closes", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using relayer = await startRelayer(dataDir);
    const client = await mcpClient(dataDir, relayer.url);
    const calls = Array.from({ length: 40 }, (_, i) =>
      client.callTool(
        { name: "svc_remember", arguments: { text: `Fact ${i} told just before the stop` } },
        undefined,
        { timeout: 20_000 },
      ));
    // Stopped once the sidecar is answering the calls, sent at once: the others are in flight.
    await Promise.race(calls);
    relayer.process.kill("SIGINT");
    const answers = await Promise.allSettled(calls);
    // A call the stopping relayer no longer forwards is refused at once (503); any other
    // failure is a call left without an answer.
    const lost = answers.filter((answer) =>
      answer.status === "rejected" &&
      !(answer.reason.code === 503 &&
        /Cannot reach the MCP sidecar: it is not running/.test(answer.reason.message))
    );
    assert.deepEqual(lost, [], "calls left without an answer when the relayer stopped");
    assert.ok(answers.filter((answer) => answer.status === "fulfilled").length > 1);
    assert.equal((await relayer.process.status).code, 0);
    await client.close().catch(() => {});
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("stop with a drain, signalled to the whole process group: MCP is served until the stop", async () => {
  const dataDir = await Deno.makeTempDir();
  const sidecarUrl = `http://127.0.0.1:${freePort()}`;
  try {
    await using relayer = await startRelayer(
      dataDir,
      { SVC_STOP_DRAIN_SECONDS: "6", SIDECAR_URL: sidecarUrl },
      { processGroup: true },
    );
    const client = await mcpClient(dataDir, relayer.url);
    const recall = () => client.callTool({ name: "svc_recall", arguments: { query: "drain" } });

    // As a Ctrl-C in the terminal or `kill %1`: the relayer and its sidecar get the signal.
    Deno.kill(-relayer.process.pid, "SIGTERM");
    for (let i = 0; i < 500 && !relayer.log().includes("relayer draining"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.match(relayer.log(), /relayer draining/);
    for (const wait of [0, 500, 1_500]) {
      await new Promise((resolve) => setTimeout(resolve, wait));
      const health = await (await fetch(`${relayer.url}/health`)).json();
      assert.deepEqual([health.status, health.sidecar], ["stopping", "up"]);
      assert.equal((await recall()).isError, undefined, "a tool call during the drain");
    }
    assert.equal((await relayer.process.status).code, 0);
    assert.doesNotMatch(relayer.log(), /sidecar exited; restarting/);
    assert.match(relayer.log(), /relayer stopping[\s\S]*sidecar stopping/);
    await assert.rejects(fetch(sidecarUrl), TypeError, "the sidecar stopped with the relayer");
    await client.close().catch(() => {});
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("stop with a drain, signalled to the process group while the sidecar starts: it comes up and serves", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using relayer = await startRelayer(dataDir, { SVC_STOP_DRAIN_SECONDS: "6" }, {
      processGroup: true,
    });
    for (let i = 0; i < 500 && !relayer.log().includes("sidecar started"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.match(relayer.log(), /sidecar started/);
    Deno.kill(-relayer.process.pid, "SIGTERM");
    await waitForSidecar(relayer.url);
    assert.equal((await (await fetch(`${relayer.url}/health`)).json()).status, "stopping");
    assert.equal((await relayer.process.status).code, 0);
    assert.doesNotMatch(relayer.log(), /sidecar exited; restarting/);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
