import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MAX_UNREAD_BYTES, MAX_UNREAD_MESSAGES, SseServerTransport } from "./sse_transport.ts";

const answer = (text = "ok"): JSONRPCMessage => ({ jsonrpc: "2.0", id: 1, result: { text } });
const decoder = new TextDecoder();

Deno.test("SSE transport: an answer counts as sent once its client read it", async () => {
  const transport = new SseServerTransport("session", "/api/mcp/messages");
  await transport.start();
  let sent = false;
  const sending = transport.send(answer()).then(() => sent = true);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(sent, false, "sent before it was read");
  const reader = transport.response.body!.getReader();
  assert.match(decoder.decode((await reader.read()).value), /^event: endpoint\n/);
  assert.match(decoder.decode((await reader.read()).value), /^event: message\ndata: .*"ok"/);
  await sending;
  // Closing hands on what is left, then ends the stream.
  const last = transport.send(answer("last"));
  await transport.close();
  assert.match(decoder.decode((await reader.read()).value), /"last"/);
  await last;
  assert.equal((await reader.read()).done, true);
});

Deno.test("SSE transport: a client that reads nothing loses its session past 100 unread messages", async () => {
  const transport = new SseServerTransport("session", "/api/mcp/messages");
  let closed = false;
  transport.onclose = () => closed = true;
  await transport.start(); // its endpoint event is the first unread
  const sends: Promise<void>[] = [];
  for (let i = 1; i < MAX_UNREAD_MESSAGES; i++) sends.push(transport.send(answer()));
  assert.equal(closed, false);
  await assert.rejects(transport.send(answer()), /does not read/);
  assert.ok(closed, "the session stayed open");
  // What it held is let go: every send is over, and the stream ends.
  await Promise.all(sends);
  assert.equal((await transport.response.body!.getReader().read()).done, true);
  await assert.rejects(transport.send(answer()), /Not connected/);
});

Deno.test("SSE transport: a client that reads gets every answer, whatever their size", async () => {
  const transport = new SseServerTransport("session", "/api/mcp/messages");
  await transport.start();
  const reader = transport.response.body!.getReader();
  let bytes = 0;
  const reading = (async () => {
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      bytes += chunk.value.byteLength;
    }
  })();
  // 16 at a time, as a session answers its calls.
  const big = answer("x".repeat(1024 * 1024));
  for (let wave = 0; wave < 10; wave++) {
    await Promise.all(Array.from({ length: 16 }, () => transport.send(big)));
  }
  await transport.close();
  await reading;
  assert.ok(bytes > 160 * 1024 * 1024, `${bytes} bytes read`);
});

Deno.test("SSE transport: a client that reads nothing loses its session past 64 MiB unread, unless one answer holds them", async () => {
  const transport = new SseServerTransport("session", "/api/mcp/messages");
  let closed = false;
  transport.onclose = () => closed = true;
  await transport.start();
  const huge = answer("x".repeat(MAX_UNREAD_BYTES));
  transport.send(huge); // one answer larger than the limit is taken
  assert.equal(closed, false);
  await assert.rejects(transport.send(answer()), /does not read/);
  assert.ok(closed, "the session stayed open");
});
