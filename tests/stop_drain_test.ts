/**
 * A relayer behind a load balancer, stopped with `SVC_STOP_DRAIN_SECONDS`: its health check
 * fails at once, while every request is still served, and then it stops cleanly.
 */
import assert from "node:assert/strict";
import { jobIdOf, newAccountClient, startRelayer } from "./relayer_process.ts";

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
