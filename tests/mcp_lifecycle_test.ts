/**
 * The lifecycle tools (svc_list, svc_namespaces, svc_get, svc_forget, svc_update; svc_remember's tags and
 * duplicates; the ids in svc_recall) through the sidecar, over Streamable HTTP and SSE, and
 * through the stdio bridge with its namespace injection.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createStdioBridge } from "../cli/svc_mcp/bridge.ts";
import { SvcClient, verifyReceipt } from "../src/client/mod.ts";
import type { Caller } from "./fixtures.ts";
import { type McpStack, startMcpStack, textOf } from "./mcp_fixtures.ts";

type Call = (name: string, args: Record<string, unknown>) => Promise<{
  text: string;
  isError?: boolean;
  structured: Record<string, unknown>;
}>;

function caller(client: Client): Call {
  return async (name, args) => {
    const result = await client.callTool({ name, arguments: args });
    return {
      text: textOf(result),
      isError: result.isError as boolean | undefined,
      structured: result.structuredContent as Record<string, unknown>,
    };
  };
}

const sdkOf = (stack: McpStack, who: Caller) =>
  SvcClient.create({
    baseUrl: stack.url,
    privateKey: who.key.privateKey,
    accountId: who.accountId,
  });

const ID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";

for (const sse of [false, true]) {
  const transport = sse ? "SSE" : "Streamable HTTP";
  Deno.test(`MCP over ${transport}: list, get, update and forget memories by id`, async () => {
    await using stack = await startMcpStack();
    const who = await stack.test.newCaller();
    const call = caller(await stack.connect(who, { sse, namespace: "food" }));

    const saved = await call("svc_remember", {
      text: "I am vegetarian and I never eat fish",
      tags: ["diet"],
    });
    assert.match(saved.text, /^Saved to memory \(namespace "food", job/);
    const id = saved.structured.job_id as string;
    await call("svc_remember", { text: "I drink my coffee black" });

    const again = await call("svc_remember", { text: "i am VEGETARIAN and i never eat fish" });
    assert.equal(
      again.text,
      `Already in memory (namespace "food", id ${id}); nothing new was saved.`,
    );
    assert.equal(again.structured.duplicate_of, id);

    const found = await call("svc_recall", { query: "does the user eat fish?", limit: 1 });
    assert.match(
      found.text,
      new RegExp(
        `^1\\. \\[score 0\\.\\d\\d\\] I am vegetarian and I never eat fish \\(id ${id}; tags: diet\\)$`,
      ),
    );
    const onlyDiet = await call("svc_recall", { query: "coffee", tags: ["diet"] });
    assert.ok(!onlyDiet.text.includes("coffee black"), onlyDiet.text);

    const listed = await call("svc_list", {});
    assert.match(
      listed.text,
      new RegExp(
        `^Memories \\(namespace "food"\\), newest first:\\n` +
          `- \\d{4}-\\d\\d-\\d\\d I drink my coffee black \\(id ${ID}\\)\\n` +
          `- \\d{4}-\\d\\d-\\d\\d I am vegetarian and I never eat fish \\(id ${id}; tags: diet\\)$`,
      ),
    );
    assert.equal((listed.structured.memories as unknown[]).length, 2);
    assert.equal(listed.structured.next_cursor, null);
    const tagged = await call("svc_list", { tag: "diet" });
    assert.equal((tagged.structured.memories as { id: string }[])[0].id, id);
    assert.equal((tagged.structured.memories as unknown[]).length, 1);
    const paged = await call("svc_list", { limit: 1 });
    const cursor = paged.structured.next_cursor as string;
    assert.ok(paged.text.endsWith(`More: call svc_list again with cursor "${cursor}".`));
    const next = await call("svc_list", { limit: 1, cursor });
    assert.equal((next.structured.memories as { id: string }[])[0].id, id);
    assert.equal(next.structured.next_cursor, null);
    assert.equal(
      (await call("svc_list", { namespace: "work" })).text,
      'No memories (namespace "work").',
    );
    await call("svc_remember", { text: "The launch is on Tuesday", namespace: "work" });
    const spaces = await call("svc_namespaces", {});
    assert.equal(spaces.text, 'Namespaces:\n- "food": 2 memories\n- "work": 1 memory');
    assert.deepEqual(spaces.structured, {
      namespaces: [{ namespace: "food", count: 2 }, { namespace: "work", count: 1 }],
    });

    const got = await call("svc_get", { id });
    assert.match(
      got.text,
      new RegExp(
        `^Memory ${id} \\(namespace "food", created [0-9TZ:.-]+, tags: diet\\):\\n` +
          "I am vegetarian and I never eat fish$",
      ),
    );
    assert.equal(got.structured.text, "I am vegetarian and I never eat fish");

    const updated = await call("svc_update", { id, text: "I am vegan and I never eat fish" });
    assert.equal(updated.isError, undefined, updated.text);
    const newId = updated.structured.job_id as string;
    assert.equal(updated.text, `Updated: the new version (id ${newId}) replaces memory ${id}.`);
    const fresh = await call("svc_get", { id: newId });
    assert.match(fresh.text, new RegExp(`tags: diet, replaces ${id}\\):\\nI am vegan`));
    const today = (fresh.structured.updated_at as string).slice(0, 10);
    assert.ok(
      (await call("svc_list", {})).text.includes(
        `\n- ${today} (corrected) I am vegan and I never eat fish (id ${newId}; tags: diet)`,
      ),
    );
    const recalled = await call("svc_recall", { query: "vegan or vegetarian?" });
    assert.ok(recalled.text.includes(`I am vegan and I never eat fish (id ${newId}`));
    assert.ok(!recalled.text.includes("I am vegetarian"), "recall never returns both versions");

    const forgotten = await call("svc_forget", { id: newId });
    assert.match(
      forgotten.text,
      new RegExp(`^Erased memory ${newId} at [0-9TZ:.-]+; it can no longer be read or recalled\\.`),
    );
    const health = await (await fetch(`${stack.url}/health`)).json();
    assert.equal(await verifyReceipt(forgotten.structured as never, health.receiptKey), true);

    for (
      const [name, args] of [["svc_get", { id: newId }], ["svc_forget", { id: newId }], [
        "svc_update",
        { id: newId, text: "x" },
      ]] as const
    ) {
      const refused = await call(name, args);
      if (name === "svc_forget") {
        // An erase sent again answers its receipt again; the others know no such memory.
        assert.deepEqual([refused.text, refused.structured], [
          forgotten.text,
          forgotten.structured,
        ]);
        continue;
      }
      assert.equal(refused.isError, true, name);
      assert.equal(refused.text, "No such memory", name);
    }
    const malformed = await call("svc_get", { id: "not an id" });
    assert.equal(malformed.isError, true);
    assert.match(malformed.text, /id/);

    // Another account's memory is unknown to this one.
    const other = caller(await stack.connect(await stack.test.newCaller()));
    const theirs = await other("svc_remember", { text: "Someone else's secret" });
    const foreign = await call("svc_get", { id: theirs.structured.job_id as string });
    assert.equal(foreign.text, "No such memory");
    assert.equal(
      (await call("svc_forget", { id: theirs.structured.job_id as string })).isError,
      true,
    );
    const sdk = await sdkOf(stack, who);
    assert.deepEqual((await sdk.list({ namespace: "food" })).memories.map((m) => m.text), [
      "I drink my coffee black",
    ]);
  });
}

Deno.test("MCP: the lifecycle tools' schemas and hints", async () => {
  await using stack = await startMcpStack();
  const { tools } = await (await stack.connect(await stack.test.newCaller())).listTools();
  const byName = Object.fromEntries(
    tools.map((tool: { name: string }) => [tool.name, tool]),
  ) as Record<string, {
    description?: string;
    inputSchema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
    annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean };
  }>;
  assert.match(byName.svc_forget.description!, /Find the id with svc_recall first/);
  assert.equal(byName.svc_forget.annotations?.destructiveHint, true);
  assert.deepEqual(byName.svc_forget.inputSchema.required, ["id"]);
  assert.deepEqual(byName.svc_get.inputSchema.required, ["id"]);
  assert.equal(byName.svc_get.annotations?.readOnlyHint, true);
  assert.deepEqual(byName.svc_update.inputSchema.required?.toSorted(), ["id", "text"]);
  assert.match(byName.svc_update.description!, /svc_recall/);
  assert.equal(byName.svc_list.annotations?.readOnlyHint, true);
  assert.equal(byName.svc_list.inputSchema.required, undefined);
  assert.deepEqual(Object.keys(byName.svc_list.inputSchema.properties).sort(), [
    "cursor",
    "limit",
    "namespace",
    "tag",
  ]);
  assert.equal(byName.svc_remember.inputSchema.properties.tags.type, "array");
  assert.equal(byName.svc_remember.inputSchema.properties.tags.maxItems, 16);
});

Deno.test("MCP: lifecycle arguments outside the schema are rejected", async () => {
  await using stack = await startMcpStack();
  const call = caller(await stack.connect(await stack.test.newCaller()));
  for (
    const [name, args] of [
      ["svc_remember", { text: "x", tags: Array.from({ length: 17 }, (_, i) => `t${i}`) }],
      ["svc_remember", { text: "x", tags: [""] }],
      ["svc_remember", { text: "x", tags: ["x".repeat(65)] }],
      ["svc_list", { limit: 0 }],
      ["svc_list", { limit: 101 }],
      ["svc_get", {}],
      ["svc_forget", {}],
      ["svc_update", { id: "x" }],
      // Not ids: as path segments they would name other routes.
      ["svc_get", { id: ".." }],
      ["svc_forget", { id: "." }],
      ["svc_update", { id: "..", text: "x" }],
    ] as const
  ) {
    const result = await call(name, args);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
    assert.match(result.text, /Input validation error/);
  }
  assert.equal(await stack.test.vectors.count(), 0);
});

Deno.test("MCP: svc_get and svc_list tell a client-encrypted memory from one whose blob is lost", async () => {
  // No texts kept in memory: a read goes to the blob store.
  await using stack = await startMcpStack({ relayer: { textCacheBytes: 0 } });
  const who = await stack.test.newCaller();
  const sdk = await sdkOf(stack, who);
  const manual = await sdk.rememberManual(
    new Uint8Array([1, 2, 3]),
    Array(stack.test.vectors.dimensions).fill(0.5),
  );
  const saved = await sdk.remember("My locker code is 4417");
  if (saved.status === "duplicate") throw new Error("nothing was stored before");
  await sdk.waitForJob(saved.job_id);
  const [lost] = (await stack.test.blobs.list(who.owner, "default"))
    .filter(({ meta }) => meta.memoryId === saved.job_id);
  await stack.test.blobs.delete(lost.blobId);

  const call = caller(await stack.connect(who, {}));
  const ofManual = await call("svc_get", { id: manual.id });
  assert.match(ofManual.text, /\n\(encrypted by the client that stored it\)$/);
  assert.equal(ofManual.structured.manual, true);
  const ofLost = await call("svc_get", { id: saved.job_id });
  assert.match(ofLost.text, /\n\(unreadable: its stored copy is missing or its key was erased\)$/);
  assert.equal(ofLost.structured.manual, false);
  const listed = await call("svc_list", {});
  assert.match(listed.text, new RegExp(`unreadable: .* \\(id ${saved.job_id}\\)`));
  assert.match(listed.text, new RegExp(`encrypted by the client .* \\(id ${manual.id}\\)`));
});

Deno.test("bridge: svc_list gets the configured namespace; the tools by id work beside it", async () => {
  await using stack = await startMcpStack();
  const who = await stack.test.newCaller();
  const bridge = createStdioBridge({
    identity: () =>
      Promise.resolve({
        relayerUrl: stack.url,
        delegatePrivateKey: who.key.privateKey,
        accountId: who.accountId,
      }),
    login: () => Promise.resolve("login link"),
    logout: () => Promise.resolve("logged out"),
    namespace: "configured",
    debug: () => {},
  });
  const [near, far] = InMemoryTransport.createLinkedPair();
  await bridge.server.connect(far);
  const host = new Client({ name: "host", version: "1.0.0" });
  await host.connect(near);
  try {
    const call = caller(host);
    const sdk = await sdkOf(stack, who);
    const elsewhere = await sdk.remember("Filed in another namespace", { namespace: "other" });
    assert.notEqual(elsewhere.status, "duplicate");
    if (elsewhere.status === "duplicate") return;
    await sdk.waitForJob(elsewhere.job_id);
    const saved = await call("svc_remember", { text: "Filed in the configured one" });
    const id = saved.structured.job_id as string;

    const listed = await call("svc_list", {});
    assert.match(listed.text, /^Memories \(namespace "configured"\)/);
    assert.deepEqual((listed.structured.memories as { id: string }[]).map((m) => m.id), [id]);
    const explicit = await call("svc_list", { namespace: "other" });
    assert.deepEqual(
      (explicit.structured.memories as { id: string }[]).map((m) => m.id),
      [elsewhere.job_id],
    );
    // By id: a memory of any namespace of the account.
    const got = await call("svc_get", { id: elsewhere.job_id });
    assert.match(got.text, /namespace "other"/);
    const updated = await call("svc_update", { id, text: "Filed in the configured one, twice" });
    assert.equal(updated.isError, undefined, updated.text);
    const forgotten = await call("svc_forget", { id: elsewhere.job_id });
    assert.equal(forgotten.isError, undefined, forgotten.text);
    assert.deepEqual(
      (await sdk.list({ namespace: "configured" })).memories.map((m) => m.text),
      ["Filed in the configured one, twice"],
    );
    assert.deepEqual((await sdk.list({ namespace: "other" })).memories, []);
  } finally {
    await host.close();
    await bridge.close();
  }
});
