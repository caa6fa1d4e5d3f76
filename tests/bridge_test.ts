/**
 * The stdio bridge in-process: an SDK client talks to it over a linked in-memory transport,
 * and it talks to a real (in-process) relayer and sidecar over SSE.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  type BridgeIdentity,
  createStdioBridge,
  type SignedOut,
  type StdioBridgeOptions,
} from "../cli/svc_mcp/bridge.ts";
import { SvcClient } from "../src/client/mod.ts";
import { heldEmbedder, type McpStack, startMcpStack, textOf } from "./mcp_fixtures.ts";
import { MAX_CALLS_IN_FLIGHT } from "../src/mcp/http.ts";
import type { Caller } from "./fixtures.ts";

async function bridged(
  identity: () => BridgeIdentity | SignedOut,
  options: Partial<Pick<StdioBridgeOptions, "namespace" | "connectTimeoutMs" | "logout">> = {},
) {
  const bridge = createStdioBridge({
    identity: () => Promise.resolve(identity()),
    login: (host) => Promise.resolve(`login link for ${host}`),
    logout: () => Promise.resolve("logged out"),
    debug: () => {},
    ...options,
  });
  const [near, far] = InMemoryTransport.createLinkedPair();
  await bridge.server.connect(far);
  const client = new Client({ name: "host", version: "1.0.0" });
  await client.connect(near);
  return {
    client,
    bridge,
    async [Symbol.asyncDispose]() {
      await client.close();
      await bridge.close();
    },
  };
}

const identityOf = (stack: McpStack, caller: Caller): BridgeIdentity => ({
  relayerUrl: stack.url,
  delegatePrivateKey: caller.key.privateKey,
  accountId: caller.accountId,
});

Deno.test("bridge: namespace precedence is call, then the configured default", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller), { namespace: "configured" });
  const remember = (args: Record<string, unknown>) =>
    host.client.callTool({ name: "svc_remember", arguments: args });
  assert.match(textOf(await remember({ text: "alpha fact" })), /namespace "configured"/);
  assert.match(textOf(await remember({ text: "beta fact", namespace: "" })), /"configured"/);
  assert.match(
    textOf(await remember({ text: "gamma fact", namespace: "explicit" })),
    /namespace "explicit"/,
  );
  const direct = await SvcClient.create({
    baseUrl: stack.url,
    privateKey: caller.key.privateKey,
    accountId: caller.accountId,
  });
  const texts = async (namespace: string) =>
    (await direct.recall("fact", { namespace })).results.map((r) => r.text).sort();
  assert.deepEqual(await texts("configured"), ["alpha fact", "beta fact"]);
  assert.deepEqual(await texts("explicit"), ["gamma fact"]);
  assert.deepEqual(await texts("default"), []);
});

Deno.test("bridge: a sign-out that cannot delete the credentials is an error, still signed in", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller), {
    logout: () => Promise.reject(new Error("Cannot sign out: ~/.svc/credentials.json is a folder")),
  });
  const out = await host.client.callTool({ name: "svc_logout", arguments: {} });
  assert.equal(out.isError, true);
  assert.equal(textOf(out), "Cannot sign out: ~/.svc/credentials.json is a folder");
  const after = await host.client.callTool({ name: "svc_list", arguments: {} });
  assert.equal(after.isError, undefined, textOf(after));
});

Deno.test("bridge: a key past its expiry is said to have expired, with the way to a new one", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller({ expiresAt: Date.now() - 1000 });
  await using host = await bridged(() => identityOf(stack, caller));
  const refused = await host.client.callTool({ name: "svc_recall", arguments: { query: "x" } });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /refused this computer's svc credentials: the key has expired/);
  assert.match(textOf(refused), /call svc_login/);
});

Deno.test("bridge: without a configured namespace the relayer's default applies", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller));
  const saved = await host.client.callTool({ name: "svc_remember", arguments: { text: "x y" } });
  assert.match(textOf(saved), /namespace "default"/);
  // An empty namespace is none, as with a configured one.
  const empty = await host.client.callTool({
    name: "svc_remember",
    arguments: { text: "y z", namespace: "" },
  });
  assert.match(textOf(empty), /namespace "default"/);
});

Deno.test("bridge: sessions lost on the server are re-opened and the call re-sent", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller));
  await host.client.callTool({ name: "svc_remember", arguments: { text: "kept across drops" } });
  for (let i = 0; i < 3; i++) {
    await stack.sidecar.sessions.closeAll(); // as if the sidecar had restarted
    const found = await host.client.callTool({
      name: "svc_recall",
      arguments: { query: "kept across drops" },
    });
    assert.match(textOf(found), /kept across drops/);
  }
});

Deno.test("bridge: a call made while the sidecar restarts waits for it and is sent", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller));
  await host.client.callTool({ name: "svc_remember", arguments: { text: "kept across restarts" } });
  await stack.sidecar.sessions.closeAll();
  stack.setSidecarUp(false); // the relayer answers 503 until its supervisor has it up again
  const found = host.client.callTool({
    name: "svc_recall",
    arguments: { query: "kept across restarts" },
  });
  // A restart: the process started again, its modules loaded, its port open (about 2 s).
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  stack.setSidecarUp(true);
  assert.match(textOf(await found), /kept across restarts/);
});

Deno.test("bridge: a relayer whose sidecar stays down is said to be running, with its reason", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller));
  stack.setSidecarUp(false);
  const answer = await host.client.callTool({ name: "svc_recall", arguments: { query: "x" } });
  assert.equal(answer.isError, true);
  assert.match(
    textOf(answer),
    /^The relayer at \S+ is running but cannot serve this now \(503: Cannot reach the MCP sidecar: it is not running; try again in a few seconds\)\. Try again shortly; if it lasts, see the relayer's log\.$/,
  );
});

Deno.test("bridge: signed out lists svc_login and refuses memory tools; then signs in", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  let current: BridgeIdentity | SignedOut = { reason: "The file is corrupt." };
  await using host = await bridged(() => current);
  const names = async () =>
    ((await host.client.listTools()) as { tools: { name: string }[] }).tools.map((t) => t.name);
  assert.deepEqual((await names()).sort(), [
    "svc_analyze",
    "svc_forget",
    "svc_get",
    "svc_list",
    "svc_login",
    "svc_namespaces",
    "svc_recall",
    "svc_remember",
    "svc_restore",
    "svc_update",
  ]);
  const refused = await host.client.callTool({ name: "svc_recall", arguments: { query: "x" } });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /^The file is corrupt\. Call the svc_login tool/);
  assert.equal(
    textOf(await host.client.callTool({ name: "svc_login", arguments: {} })),
    "login link for host", // the host's name, as it gave it, for the key's label
  );

  current = identityOf(stack, caller);
  await host.bridge.identityChanged();
  assert.ok((await names()).includes("svc_logout"));
  const found = await host.client.callTool({ name: "svc_recall", arguments: { query: "x" } });
  assert.equal(textOf(found), "No matching memories found");
});

Deno.test("bridge: credentials that appear or go outside the bridge tell the host the tools changed", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  let current: BridgeIdentity | SignedOut = {};
  await using host = await bridged(() => current);
  let changes = 0;
  host.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  const recall = () => host.client.callTool({ name: "svc_recall", arguments: { query: "x" } });
  const told = async (times: number) => {
    for (let i = 0; i < 500 && changes < times; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(changes, times);
  };
  await host.client.listTools();
  assert.equal((await recall()).isError, true);
  assert.equal(changes, 0);

  current = identityOf(stack, caller); // `svc-mcp login` in a terminal wrote them
  assert.equal(textOf(await recall()), "No matching memories found");
  await told(1);
  await recall();
  current = {}; // and `svc-mcp logout` deleted them
  assert.equal((await recall()).isError, true);
  await told(2);
  await host.client.listTools();
  await told(2); // once for each change
});

Deno.test("bridge: a relayer that takes the connection but never answers is reported, not tried again", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    const relayerUrl = `http://127.0.0.1:${listener.addr.port}`;
    const identity = { relayerUrl, delegatePrivateKey: "a".repeat(64), accountId: "0x1" };
    await using host = await bridged(() => identity, { connectTimeoutMs: 200 });
    const result = await host.client.callTool({ name: "svc_recall", arguments: { query: "x" } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /timed out/);
    assert.equal(held.length, 1, "one connection: the silence is not waited for again");
  } finally {
    listener.close();
    await accepting.catch(() => {});
    for (const conn of held) conn.close();
  }
});

Deno.test("bridge: sent again after a lost connection, an update that finds its work done says so, and an erase answers its receipt", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller));
  const sdk = await SvcClient.create({
    baseUrl: stack.url,
    privateKey: caller.key.privateKey,
    accountId: caller.accountId,
  });
  const saved = await sdk.remember("I keep bees");
  if (saved.status === "duplicate") throw new Error("unexpected duplicate");
  await sdk.waitForJob(saved.job_id);
  await host.client.callTool({ name: "svc_recall", arguments: { query: "bees" } }); // connected
  // As if the update had landed and its answer was lost with the connection.
  const updated = await sdk.update(saved.job_id, { text: "I keep wasps" });
  await sdk.waitForJob(updated.job_id);
  await stack.sidecar.sessions.closeAll();
  const update = await host.client.callTool({
    name: "svc_update",
    arguments: { id: saved.job_id, text: "I keep wasps" },
  });
  assert.equal(update.isError, true);
  assert.match(
    textOf(update),
    /^The connection to the relayer was lost while svc_update was sent, so it was sent again, and that answered: .+ The first attempt may have been done: check with svc_get or svc_recall\.$/s,
  );
  // The same for an erase: sent again, it answers the receipt of the erase that landed.
  const receipt = await sdk.forget(updated.job_id);
  await stack.sidecar.sessions.closeAll();
  const forget = await host.client.callTool({
    name: "svc_forget",
    arguments: { id: updated.job_id },
  });
  assert.equal(forget.isError, undefined, textOf(forget));
  assert.deepEqual(forget.structuredContent, receipt);
});

Deno.test("bridge: calls past the session's 64 wait for their turn; none is refused or sent twice", async () => {
  const { embedder, release, waiting } = heldEmbedder();
  await using stack = await startMcpStack({ relayer: { embedder } });
  const caller = await stack.test.newCaller();
  await using host = await bridged(() => identityOf(stack, caller));
  await host.client.listTools(); // connected before the calls race
  const calls = Array.from(
    { length: MAX_CALLS_IN_FLIGHT + 36 },
    (_, i) => host.client.callTool({ name: "svc_recall", arguments: { query: `query ${i}` } }),
  );
  while (waiting() < MAX_CALLS_IN_FLIGHT) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(waiting(), MAX_CALLS_IN_FLIGHT, "the others wait in the bridge");
  release();
  const answers = await Promise.all(calls);
  assert.equal(answers.filter((answer: { isError?: boolean }) => answer.isError).length, 0);
  assert.equal(waiting(), calls.length, "each sent once");
});
