/**
 * Scoped delegate keys through every MCP tool, on the sidecar (Streamable HTTP and SSE) and
 * through the stdio bridge: a refusal is a tool error naming the missing scope, before any work.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createStdioBridge } from "../cli/svc_mcp/bridge.ts";
import { type McpStack, startMcpStack, textOf } from "./mcp_fixtures.ts";
import type { Caller } from "./fixtures.ts";

/** Every memory tool that names namespace `b`. */
const CALLS_ON_B: [string, Record<string, unknown>][] = [
  ["svc_remember", { text: "I keep goats", namespace: "b" }],
  ["svc_recall", { query: "sister", namespace: "b" }],
  ["svc_analyze", { text: "I moved to Porto last year.", namespace: "b" }],
  ["svc_restore", { namespace: "b" }],
  ["svc_list", { namespace: "b" }],
];

/** The tools that name a memory by its id. */
function callsById(id: string): [string, Record<string, unknown>][] {
  return [
    ["svc_get", { id }],
    ["svc_forget", { id }],
    ["svc_update", { id, text: "My sister lives in Porto" }],
  ];
}

/**
 * Asserts that each tool naming `inB` answers as for an unknown id: an error that does not tell
 * the memory's namespace.
 */
async function unknownToIt(client: Client, inB: string) {
  const unknown = callsById(crypto.randomUUID());
  for (const [i, [name, args]] of callsById(inB).entries()) {
    const result = await client.callTool({ name, arguments: args });
    const other = await client.callTool({ name, arguments: unknown[i][1] });
    assert.equal(result.isError, true, name);
    assert.equal(textOf(result), textOf(other).replace(unknown[i][1].id as string, inB), name);
    assert.doesNotMatch(textOf(result), /"b"/, name);
  }
}

/** Remembers `text` in `namespace` through MCP with `caller`'s key; returns its id. */
async function remember(stack: McpStack, caller: Caller, text: string, namespace = "default") {
  const client = await stack.connect(caller);
  const saved = await client.callTool({ name: "svc_remember", arguments: { text, namespace } });
  const { job_id, status } = saved.structuredContent as { job_id: string; status: string };
  assert.equal(status, "done");
  return job_id;
}

/** The texts of a namespace's memories, as `caller`'s key lists them. */
async function texts(stack: McpStack, caller: Caller, namespace: string): Promise<string[]> {
  const client = await stack.connect(caller);
  const page = await client.callTool({ name: "svc_list", arguments: { namespace } });
  return (page.structuredContent as { memories: { text: string }[] }).memories.map((m) => m.text);
}

/** An account with a memory in namespace b, and a key of it limited to namespace a. */
async function scopedToA(stack: McpStack) {
  const owner = await stack.test.newCaller();
  const inB = await remember(stack, owner, "My sister lives in Lisbon", "b");
  const scoped = await stack.test.addKey(owner, { label: "a only", scope: { namespaces: ["a"] } });
  return { owner, scoped, inB };
}

for (const sse of [false, true]) {
  Deno.test(`MCP scopes (${sse ? "SSE" : "Streamable HTTP"}): a key scoped to namespace a is refused on b by every tool, and knows no id of b`, async () => {
    await using stack = await startMcpStack();
    const { owner, scoped, inB } = await scopedToA(stack);
    const client = await stack.connect(scoped, { sse });
    for (const [name, args] of CALLS_ON_B) {
      const result = await client.callTool({ name, arguments: args });
      assert.equal(result.isError, true, name);
      assert.match(
        textOf(result),
        /^Refused \(missing scope: namespace "b"\): this delegate key may not use namespace "b"\. It may use only "a"\./,
        name,
      );
    }
    await unknownToIt(client, inB);
    assert.deepEqual(await texts(stack, owner, "b"), ["My sister lives in Lisbon"]);
    // Its namespaces are those it may use: b is not named.
    await remember(stack, scoped, "I keep bees", "a");
    const spaces = await client.callTool({ name: "svc_namespaces", arguments: {} });
    assert.deepEqual(spaces.structuredContent, { namespaces: [{ namespace: "a", count: 1 }] });
  });
}

Deno.test("MCP scopes: a read-only key recalls but cannot svc_remember or svc_forget", async () => {
  await using stack = await startMcpStack();
  const owner = await stack.test.newCaller();
  const id = await remember(stack, owner, "I am vegetarian");
  const reader = await stack.test.addKey(owner, { scope: { operations: ["read"] } });
  const client = await stack.connect(reader);

  const found = await client.callTool({ name: "svc_recall", arguments: { query: "vegetarian" } });
  assert.match(textOf(found), /I am vegetarian/);
  const saved = await client.callTool({ name: "svc_remember", arguments: { text: "I keep bees" } });
  assert.equal(saved.isError, true);
  assert.match(textOf(saved), /^Refused \(missing scope: write\): .*lacks the "write" operation/);
  assert.match(textOf(saved), /a new sign-in with `svc-mcp login --login --scope`/);
  const forgot = await client.callTool({ name: "svc_forget", arguments: { id } });
  assert.equal(forgot.isError, true);
  assert.match(textOf(forgot), /^Refused \(missing scope: erase\): .*may not erase memories/);
  assert.deepEqual(await texts(stack, owner, "default"), ["I am vegetarian"]);
});

Deno.test("MCP scopes: a key limited to namespaces without default works in its first one by default", async () => {
  await using stack = await startMcpStack();
  const owner = await stack.test.newCaller();
  const scoped = await stack.test.addKey(owner, { scope: { namespaces: ["work", "zoo"] } });
  const client = await stack.connect(scoped);
  const saved = await client.callTool({ name: "svc_remember", arguments: { text: "I keep bees" } });
  assert.match(textOf(saved), /^Saved to memory \(namespace "work"/);
  // A session that names its namespace keeps it, allowed or not.
  const named = await stack.connect(scoped, { namespace: "default" });
  const refused = await named.callTool({ name: "svc_list", arguments: {} });
  assert.match(textOf(refused), /missing scope: namespace "default"/);
});

Deno.test("stdio bridge: a scope refusal reaches the host as the relayer's tool error", async () => {
  await using stack = await startMcpStack();
  const { scoped, inB } = await scopedToA(stack);
  const bridge = createStdioBridge({
    identity: () =>
      Promise.resolve({
        relayerUrl: stack.url,
        delegatePrivateKey: scoped.key.privateKey,
        accountId: scoped.accountId,
      }),
    login: () => Promise.resolve("login link"),
    logout: () => Promise.resolve("logged out"),
    debug: () => {},
  });
  const [near, far] = InMemoryTransport.createLinkedPair();
  await bridge.server.connect(far);
  const host = new Client({ name: "host", version: "1.0.0" });
  await host.connect(near);
  try {
    for (const [name, args] of CALLS_ON_B) {
      const result = await host.callTool({ name, arguments: args });
      assert.equal(result.isError, true, name);
      assert.match(textOf(result), /^Refused \(missing scope: namespace "b"\)/, name);
    }
    await unknownToIt(host, inB);
  } finally {
    await host.close();
    await bridge.close();
  }
});
