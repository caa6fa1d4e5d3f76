import assert from "node:assert/strict";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MAX_MCP_BODY_BYTES } from "@svc/relayer/mcp";
import { StdioTransport } from "./stdio_transport.ts";

const encoder = new TextEncoder();

/**
 * Runs a transport over `chunks` as its input; returns what it delivered and what it wrote.
 * Each request is answered `answerMs` after it is read; `answers` are the transport's own.
 */
async function run(chunks: (string | Uint8Array)[], answerMs = 0) {
  const written: string[] = [];
  const delivered: JSONRPCMessage[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (bytes) => void written.push(new TextDecoder().decode(bytes)),
  });
  const transport = new StdioTransport(
    ReadableStream.from(chunks.map((c) => typeof c === "string" ? encoder.encode(c) : c)),
    output,
  );
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  transport.onmessage = (message) => {
    delivered.push(message);
    if (!("id" in message)) return;
    const id = message.id!;
    setTimeout(() => transport.send({ jsonrpc: "2.0", id, result: {} }), answerMs);
  };
  await transport.start();
  await closed;
  const lines = written.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line));
  return { delivered, written: lines, answers: lines.filter((line) => !line.result) };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

Deno.test("stdio transport: lines split across chunks, CRLF and a last line without newline are read", async () => {
  const bytes = encoder.encode(`${ping(1)}\r\n\n${ping(2)}\n`);
  const { delivered, answers } = await run([
    bytes.subarray(0, 5),
    bytes.subarray(5, 30),
    bytes.subarray(30),
    ping(3),
  ]);
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [1, 2, 3]);
  assert.deepEqual(answers, []);
});

Deno.test("stdio transport: a line read a byte at a time, 200,000 pieces, is read", async () => {
  const line = JSON.stringify({
    jsonrpc: "2.0",
    id: 9,
    method: "ping",
    params: { pad: "x".repeat(200_000) },
  });
  const bytes = encoder.encode(`${line}\n`);
  const pieces = Array.from(bytes, (_, i) => bytes.subarray(i, i + 1));
  const { delivered, answers } = await run(pieces);
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [9]);
  assert.deepEqual(answers, []);
});

Deno.test("stdio transport: a character split between chunks is decoded; invalid UTF-8 is a parse error", async () => {
  const line = encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", method: "x/é", params: {} })}\n`);
  const at = line.indexOf(0xc3) + 1;
  const { delivered, answers } = await run([
    line.subarray(0, at),
    line.subarray(at),
    new Uint8Array([0x7b, 0xff, 0x7d, 0x0a]),
  ]);
  assert.equal((delivered[0] as { method: string }).method, "x/é");
  assert.deepEqual(answers, [{
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "Parse error: the line is not valid UTF-8" },
  }]);
});

Deno.test("stdio transport: a line that is not UTF-8, or not JSON, is answered by the id it shows", async () => {
  const bytes = (text: string) => encoder.encode(text);
  const call = (id: number | string) =>
    `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":` +
    `"svc_recall","arguments":{"query":"`;
  const { delivered, answers } = await run([
    // Bytes that are not UTF-8 in a string of a well-formed message, alone and in a batch.
    new Uint8Array([...bytes(call(8)), 0xff, 0xfe, ...bytes('"}}}\n')]),
    new Uint8Array([...bytes(`[${ping(9)},${call("ten")}`), 0xc3, 0x28, ...bytes('"}}}]\n')]),
    // Not JSON (a NUL after it, cut short): the id among its first or last members.
    `${ping(11)}\u0000\n`,
    `${call(12)}\n`,
    `{"method":"ping","jsonrpc":"2.0","id":13} trailing\n`,
  ]);
  assert.deepEqual(delivered, []);
  assert.deepEqual(answers.map((answer) => [answer.id, answer.error.code, answer.error.message]), [
    [8, -32700, "Parse error: the line is not valid UTF-8"],
    [9, -32700, "Parse error: the line is not valid UTF-8"],
    ["ten", -32700, "Parse error: the line is not valid UTF-8"],
    [11, -32700, "Parse error: the line is not valid JSON"],
    [12, -32700, "Parse error: the line is not valid JSON"],
    [13, -32700, "Parse error: the line is not valid JSON"],
  ]);
});

Deno.test("stdio transport: bad lines are answered with their id, and nothing bad is delivered", async () => {
  const { delivered, answers } = await run([
    "not json\n",
    `${JSON.stringify({ id: 4, method: "ping" })}\n`,
    `${JSON.stringify({ jsonrpc: "2.0", id: "a", method: "tools/call", params: {} })}\n`,
    `${ping(5)}\n`,
  ]);
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [5]);
  assert.deepEqual(answers.map((a) => [a.id, a.error.code]), [[null, -32700], [4, -32600], [
    "a",
    -32602,
  ]]);
  assert.match(answers[2].error.message, /^Invalid params of tools\/call: params\.name: /);
});

Deno.test("stdio transport: a line over the limit is answered once, and the next line is read", async () => {
  const piece = "x".repeat(1024 * 1024);
  const chunks = Array.from({ length: MAX_MCP_BODY_BYTES / piece.length + 1 }, () => piece);
  const { delivered, answers } = await run([`{"a":"`, ...chunks, `"}\n${ping(6)}\n`]);
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [6]);
  assert.equal(answers.length, 1);
  assert.deepEqual(answers[0].error, {
    code: -32600,
    message: `Invalid Request: a message must be at most ${MAX_MCP_BODY_BYTES} bytes`,
  });
});

Deno.test("stdio transport: a line over the limit is answered with the id at either of its ends", async () => {
  const big = "y".repeat(MAX_MCP_BODY_BYTES);
  const params = `"params":{"name":"svc_remember","arguments":{"text":"${big}","id":99}}`;
  const { answers, delivered } = await run([
    // As the SDK writes a request: its id last.
    `{"method":"tools/call",${params},"jsonrpc":"2.0","id":41}\n`,
    `{"jsonrpc":"2.0","id":"call-\\"42\\"","method":"tools/call",${params}}\n`,
    // An id only inside the params, which is not the request's.
    `{"method":"tools/call",${params}}\n`,
    // Ids that are not JSON strings: an unknown escape, a raw tab, half a surrogate pair.
    ...[String.raw`"a\x"`, '"a\tb"', String.raw`"\ud800"`].map((id) =>
      `{"method":"tools/call",${params},"id":${id}}\n`
    ),
    `${JSON.stringify({ jsonrpc: "2.0", id: 43, method: "ping" })}\n`,
  ]);
  assert.deepEqual(answers.map((a) => [a.id, a.error.code]), [
    [41, -32600],
    ['call-"42"', -32600],
    [null, -32600],
    [null, -32600],
    [null, -32600],
    [null, -32600],
  ]);
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [43]);
});

Deno.test("stdio transport: once the input ends, the requests read are answered before it closes", async () => {
  const { written } = await run([`${ping(7)}\n`, "{not json\n", ping(8)], 30);
  assert.deepEqual(written.map((a) => [a.id, a.error?.code ?? "ok"]), [
    [null, -32700],
    [7, "ok"],
    [8, "ok"],
  ]);
});

Deno.test("stdio transport: a last line over the limit, without newline, is answered", async () => {
  const { delivered, answers } = await run(["x".repeat(MAX_MCP_BODY_BYTES + 1)]);
  assert.deepEqual(delivered, []);
  assert.deepEqual(answers.map((a) => a.error.code), [-32600]);
});

Deno.test("stdio transport: a batch line is taken as its messages, each answered by its id", async () => {
  const { delivered, written } = await run([
    `[${ping(80)},${JSON.stringify({ id: 81, method: "ping" })},${ping(82)}]\n`,
    "[]\n",
    `[${Array.from({ length: 65 }, (_, i) => ping(100 + i)).join(",")}]\n`,
  ]);
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [80, 82]);
  // The answers come as each is ready: compared in any order.
  const answered = written.map((line) => JSON.stringify([line.id, line.error?.code ?? "result"]));
  assert.deepEqual(
    answered.sort(),
    [[81, -32600], [80, "result"], [82, "result"], [null, -32600], [null, -32600]]
      .map((pair) => JSON.stringify(pair)).sort(),
  );
});

Deno.test("stdio transport: a message with half a surrogate pair is refused by its id; the others of its line are taken", async () => {
  const call = (id: number, text: string) =>
    String
      .raw`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"svc_remember","arguments":{"text":"${text}"}}}`;
  const { delivered, answers } = await run([
    `${call(30, String.raw`smile \ud83d`)}\n`,
    `[${ping(31)},${call(32, String.raw`\udc00`)},${call(33, String.raw`paired \ud83d\ude00`)}]\n`,
  ]);
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [31, 33]);
  assert.deepEqual(answers.map((answer) => [answer.id, answer.error.code]), [[30, -32700], [
    32,
    -32700,
  ]]);
  assert.match(answers[0].error.message, /^Parse error: the message is not valid Unicode/);
});

Deno.test("stdio transport: a call with the id of one in progress is refused, and the call goes on", async () => {
  const { delivered, written } = await run([`${ping(77)}\n${ping(77)}\n`], 30);
  assert.equal(delivered.length, 1);
  assert.deepEqual(written.map((line) => [line.id, line.error?.code ?? "result"]), [
    [77, -32003],
    [77, "result"],
  ]);
  assert.match(written[0].error.message, /in progress/);
});

Deno.test("stdio transport: a cancelled call's id is free again", async () => {
  const cancel = (id: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id },
    });
  const written: string[] = [];
  const transport = new StdioTransport(
    ReadableStream.from([`${ping(9)}\n${cancel(9)}\n${ping(9)}\n`].map((c) => encoder.encode(c))),
    new WritableStream<Uint8Array>({
      write: (bytes) => void written.push(new TextDecoder().decode(bytes)),
    }),
  );
  const delivered: JSONRPCMessage[] = [];
  const closed = new Promise<void>((resolve) => transport.onclose = resolve);
  transport.onmessage = (message) => void delivered.push(message); // answers nothing
  await transport.start();
  await closed;
  assert.deepEqual(delivered.map((m) => "id" in m ? m.id : (m as { method: string }).method), [
    9,
    "notifications/cancelled",
    9,
  ]);
  assert.equal(written.join(""), "", "no call was refused");
});
