import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MAX_UNREAD_BYTES, SseServerTransport } from "./sse_transport.ts";

/** An answer of about 1 MiB. */
const answer: JSONRPCMessage = {
  jsonrpc: "2.0",
  id: 1,
  result: { text: "x".repeat(1024 * 1024) },
};
const answersInLimit = MAX_UNREAD_BYTES / (1024 * 1024);

Deno.test("SSE transport: a client that reads none of its answers loses its session past 16 MiB", async () => {
  const transport = new SseServerTransport("session", "/api/mcp/messages");
  let closed = false;
  transport.onclose = () => closed = true;
  await transport.start();
  let sent = 0;
  while (sent <= answersInLimit) {
    const taken = await transport.send(answer).then(() => true, () => false);
    if (!taken) break;
    sent++;
  }
  assert.equal(sent, answersInLimit);
  assert.ok(closed, "the session stayed open");
  // What it held is let go: the client's stream ends in an error.
  await assert.rejects(transport.response.body!.getReader().read(), /does not read/);
  await assert.rejects(transport.send(answer), /Not connected/);
});

Deno.test("SSE transport: a client that reads its answers gets them all, whatever their size", async () => {
  const transport = new SseServerTransport("session", "/api/mcp/messages");
  await transport.start();
  const reader = transport.response.body!.getReader();
  let bytes = 0;
  const reading = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
    }
  })();
  for (let i = 0; i < 2 * answersInLimit; i++) await transport.send(answer);
  await transport.close();
  await reading;
  assert.ok(bytes > 2 * MAX_UNREAD_BYTES, `${bytes} bytes read`);
});
