import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MAX_CALLS_IN_FLIGHT } from "../src/mcp/http.ts";
import { CALL_CANCELLED, CALL_REFUSED } from "../src/mcp/messages.ts";
import { heldEmbedder, initializeRequest, type McpStack, startMcpStack } from "./mcp_fixtures.ts";

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

type Answer = { id: number; result?: unknown; error?: { code: number; message: string } };

/** A raw Streamable HTTP session of a new caller: `post` sends JSON-RPC, `end` deletes it. */
async function rawSession(stack: McpStack) {
  const headers = stack.auth(await stack.test.newCaller());
  const opened = await fetch(`${stack.url}/api/mcp`, initializeRequest(headers));
  await opened.body?.cancel();
  const session = {
    ...headers,
    "mcp-session-id": opened.headers.get("mcp-session-id")!,
    "mcp-protocol-version": "2025-06-18",
  };
  const request = (method: string, body?: unknown) =>
    fetch(`${stack.url}/api/mcp`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: {
        ...session,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
    });
  return {
    async post(body: unknown): Promise<{ status: number; answers: Answer[] }> {
      const response = await request("POST", body);
      const text = await response.text();
      return { status: response.status, answers: text ? [JSON.parse(text)].flat() : [] };
    },
    async end() {
      await (await request("DELETE")).body?.cancel();
    },
  };
}

/** Runs `use` on a raw session whose recalls wait for `release()` (released once it ends). */
async function withHeldCalls(
  use: (
    session: Awaited<ReturnType<typeof rawSession>>,
    held: ReturnType<typeof heldEmbedder>,
  ) => Promise<void>,
) {
  const held = heldEmbedder();
  await using stack = await startMcpStack({ relayer: { embedder: held.embedder } });
  try {
    await use(await rawSession(stack), held);
  } finally {
    held.release();
  }
}

const recall = (id: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "svc_recall", arguments: { query: "diet" } },
});
const cancel = (requestId: number) => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId },
});
const pings = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => ({ jsonrpc: "2.0", id: from + i, method: "ping" }));

Deno.test("MCP over Streamable HTTP: a call cut off by the relayer's death fails at once, not at the client's time limit", async () => {
  // Recall's query embedding waits until released: the call is in flight when the relay is cut.
  const { embedder, embedding, release } = heldEmbedder();
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
    // Long enough for an answer's headers to pass (an event stream sends them at once).
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

Deno.test("MCP over Streamable HTTP: a session answers 64 calls at once; more are refused until they end", async () => {
  await withHeldCalls(async (session, { embedding, release }) => {
    const calls = Array.from({ length: MAX_CALLS_IN_FLIGHT }, (_, i) => recall(i + 1));
    const batch = session.post(calls);
    await embedding;
    const refused = await session.post(pings(1, 100));
    assert.deepEqual(refused.answers.map(({ id, error }) => [id, error?.code]), [[
      100,
      CALL_REFUSED,
    ]]);
    assert.match(refused.answers[0].error!.message, /Too many calls in progress/);
    // Cancelling calls never made frees nothing.
    const cancels = Array.from({ length: 8 }, (_, i) => cancel(200 + i));
    const still = await session.post([...cancels, ...pings(1, 101)]);
    assert.equal(still.answers[0].error?.code, CALL_REFUSED);
    release();
    const { answers } = await batch;
    assert.equal(answers.filter((answer) => answer.result).length, MAX_CALLS_IN_FLIGHT);
    // Once answered, they are no longer in progress.
    assert.ok((await session.post(pings(MAX_CALLS_IN_FLIGHT))).answers.every((a) => a.result));
  });
});

Deno.test("MCP over Streamable HTTP: a cancelled call is answered so, and its batch with it", async () => {
  await withHeldCalls(async (session, { embedding }) => {
    const batch = session.post([...pings(1), recall(2)]);
    await embedding;
    assert.equal((await session.post(cancel(2))).status, 202);
    const { status, answers } = await batch;
    assert.equal(status, 200);
    assert.deepEqual(answers.map(({ id, result, error }) => [id, !!result, error?.code]), [
      [1, true, undefined],
      [2, false, CALL_CANCELLED],
    ]);
    assert.equal(answers[1].error?.message, "Request cancelled");
  });
});

Deno.test("MCP over Streamable HTTP: a call in progress when its session ends is answered 404", async () => {
  await withHeldCalls(async (session, { embedding }) => {
    const call = session.post(recall(1));
    await embedding;
    await session.end();
    const { status, answers } = await call;
    assert.equal(status, 404);
    assert.equal(answers[0].error?.code, -32001);
  });
});

Deno.test("MCP over Streamable HTTP: an id in use is refused, and the call that holds it is still answered", async () => {
  await withHeldCalls(async (session, { embedding, release }) => {
    const first = session.post(recall(1));
    await embedding;
    const again = await session.post(recall(1));
    assert.equal(again.status, 400);
    assert.deepEqual(again.answers.map(({ id, error }) => [id, error?.code]), [[1, CALL_REFUSED]]);
    const twice = await session.post([...pings(1, 7), ...pings(1, 7)]);
    assert.deepEqual([twice.status, twice.answers[0].id], [400, 7]);
    release();
    const { status, answers } = await first;
    assert.equal(status, 200);
    assert.ok(answers[0].result, "the call holding the id lost its answer");
  });
});
