/**
 * A hung sidecar (it accepts connections and never answers, as one stopped by SIGSTOP) does not
 * hold the MCP calls waiting on it: once its probes go unanswered, they get 503 at once.
 */
import assert from "node:assert/strict";
import type { SidecarLink } from "../src/sidecar/link.ts";
import { startSilentServer } from "./fixtures/silent_server.ts";
import { startTestRelayer } from "./fixtures.ts";

Deno.test("a call waiting on a sidecar found hung gets 503 as soon as it is found", async () => {
  await using silent = startSilentServer();
  let up = true;
  const unanswered = new AbortController();
  const sidecar: SidecarLink = {
    url: silent.url,
    token: "t",
    status: () => up ? "up" : "down",
    unanswered: unanswered.signal,
    sessions: () => 0,
  };
  await using t = await startTestRelayer({ sidecar });
  const call = t.send("POST", "/api/mcp", {
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  while (silent.accepted === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  up = false; // the supervisor's probes went unanswered
  unanswered.abort();
  let bound: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => bound = setTimeout(() => resolve("hung"), 30_000));
  const answer = await Promise.race([call, hung]);
  clearTimeout(bound);
  assert.notEqual(answer, "hung", "the call still waits on the hung sidecar");
  const response = answer as Response;
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "2");
  assert.match(JSON.stringify(await response.json()), /Cannot reach the MCP sidecar/);
});

Deno.test("a call waiting on a sidecar that is stopping, not hung, is left to be answered", async () => {
  const silent = startSilentServer();
  let up = true;
  const sidecar: SidecarLink = {
    url: silent.url,
    token: "t",
    status: () => up ? "up" : "down",
    unanswered: new AbortController().signal,
    sessions: () => 0,
  };
  await using t = await startTestRelayer({ sidecar });
  let settled = false;
  const call = t.send("POST", "/api/mcp", {
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  }).finally(() => settled = true);
  while (silent.accepted === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  up = false; // stopping: new calls are refused, this one waits for its answer
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal(settled, false);
  await silent[Symbol.asyncDispose]();
  await (await call).body?.cancel();
});
