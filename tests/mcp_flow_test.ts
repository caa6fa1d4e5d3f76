import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { MAX_CALLS_IN_FLIGHT } from "../src/mcp/http.ts";
import { initializeRequest, startMcpStack } from "./mcp_fixtures.ts";

/** A TCP relay to `port` whose connections `cut()` closes at once, as a process's death does. */
function relayTo(port: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  const pipe = (from: Deno.Conn, to: Deno.Conn) =>
    from.readable.pipeTo(to.writable).catch(() => {});
  const serving = (async () => {
    for await (const client of listener) {
      const relayer = await Deno.connect({ hostname: "127.0.0.1", port });
      open.add(client).add(relayer);
      pipe(client, relayer);
      pipe(relayer, client);
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    cut() {
      for (const conn of open) {
        try {
          conn.close();
        } catch { /* closed by its pipe */ }
      }
      open.clear();
    },
    async close() {
      this.cut();
      listener.close();
      await serving;
    },
  };
}

Deno.test("MCP over Streamable HTTP: a call cut off by the relayer's death fails at once, not at the client's time limit", async () => {
  // Recall's query embedding waits until released: the call is in flight when the relay is cut.
  const lexical = new LexicalEmbedder();
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  const { promise: embedding, resolve: embeds } = Promise.withResolvers<void>();
  const embedder = Object.assign(Object.create(lexical), {
    async embed(texts: string[]) {
      embeds();
      await held;
      return lexical.embed(texts);
    },
  });
  await using stack = await startMcpStack({ relayer: { embedder } });
  const relay = relayTo(Number(new URL(stack.url).port));
  const transport = new StreamableHTTPClientTransport(new URL(`${relay.url}/api/mcp`), {
    requestInit: { headers: stack.auth(await stack.test.newCaller()) },
  });
  const client = new Client({ name: "svc-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    const call = client.callTool({ name: "svc_recall", arguments: { query: "diet" } });
    const failed = call.then(() => undefined, (error: Error) => error);
    await embedding;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    relay.cut();
    // Before, the answer was an event stream already under way: its end left the call waiting
    // for the client's time limit (the SDK's 60 s by default), then a timeout error.
    const error = await failed;
    assert.ok(error, "the call cut off did not fail");
    assert.doesNotMatch(error.message, /timed out/i);
  } finally {
    release();
    await client.close();
    await relay.close();
  }
});

Deno.test("MCP over Streamable HTTP: a session answers 16 calls at once; more are refused until they end", async () => {
  await using stack = await startMcpStack();
  const headers = stack.auth(await stack.test.newCaller());
  const opened = await fetch(`${stack.url}/api/mcp`, initializeRequest(headers));
  await opened.body?.cancel();
  const post = async (body: unknown) => {
    const answer = await fetch(`${stack.url}/api/mcp`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": opened.headers.get("mcp-session-id")!,
        "mcp-protocol-version": "2025-06-18",
      },
    });
    assert.equal(answer.status, 200);
    return await answer.json() as { id: number; result?: unknown; error?: { code: number } }[];
  };
  const pings = (count: number) =>
    Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", id: i + 1, method: "ping" }));
  const answers = await post(pings(MAX_CALLS_IN_FLIGHT + 1));
  assert.equal(answers.filter((answer) => answer.result).length, MAX_CALLS_IN_FLIGHT);
  const refused = answers.filter((answer) => answer.error);
  assert.deepEqual(refused.map(({ id, error }) => [id, error?.code]), [[17, -32000]]);
  // Once answered, they are no longer in progress.
  assert.ok((await post(pings(MAX_CALLS_IN_FLIGHT))).every((answer) => answer.result));
});
