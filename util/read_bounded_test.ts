import assert from "node:assert/strict";
import { declaredLength, readBounded } from "./read_bounded.ts";

/** An endless body stream that counts its pulls and whether it was cancelled. */
function endless(chunk = 256) {
  const state = { pulls: 0, cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulls++;
      controller.enqueue(new Uint8Array(chunk));
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { body, state };
}

Deno.test("readBounded: a body without content-length is cut off once it passes the limit", async () => {
  const { body, state } = endless();
  const response = new Response(body);
  assert.equal(declaredLength(response), undefined);
  await assert.rejects(readBounded(response, 1024), RangeError);
  assert.ok(state.pulls <= 6, "stopped reading right after the limit");
  assert.ok(state.cancelled);

  const small = new Response(new Uint8Array(1024));
  assert.equal((await readBounded(small, 1024)).length, 1024);
});

Deno.test("readBounded: a body declared larger than the limit is refused unread", async () => {
  const { body, state } = endless();
  const declared = new Response(body, { headers: { "content-length": "2000" } });
  assert.equal(declaredLength(declared), 2000);
  await assert.rejects(
    readBounded(declared, 1024, { tooLarge: () => new Error("too big") }),
    /^Error: too big$/,
  );
  assert.equal(state.pulls, 0);
  assert.ok(state.cancelled);
});

Deno.test("readBounded: a declared body is reserved whole first; an undeclared one as it grows", async () => {
  const reserved: number[] = [];
  const reserve = (bytes: number) => void reserved.push(bytes);
  const declared = new Request("http://x.test/", {
    method: "POST",
    body: "x".repeat(5000),
    headers: { "content-length": "5000" },
  });
  assert.equal((await readBounded(declared, 1 << 20, { reserve })).length, 5000);
  assert.deepEqual(reserved, [5000]);

  reserved.length = 0;
  const chunks = [new Uint8Array(10_000), new Uint8Array(10_000)];
  const undeclared = new Response(ReadableStream.from(chunks));
  assert.equal((await readBounded(undeclared, 1 << 20, { reserve })).length, 20_000);
  assert.deepEqual(reserved, [0, 16_384, 32_768]);
});

Deno.test("readBounded: a refused reservation or an aborted signal cancels the stream", async () => {
  const refused = endless();
  const reserve = (bytes: number) => {
    if (bytes > 0) throw new Error("no room");
  };
  await assert.rejects(readBounded(new Response(refused.body), 1 << 20, { reserve }), /no room/);
  assert.ok(refused.state.cancelled);

  // One chunk, then nothing more: the sender stopped.
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(new Uint8Array(10)),
    cancel: () => void (state.cancelled = true),
  });
  const stop = new AbortController();
  const reading = readBounded(new Response(body), 1 << 20, { signal: stop.signal });
  setTimeout(() => stop.abort(new Error("stopped")), 10);
  await assert.rejects(reading, /stopped/);
  assert.ok(state.cancelled);
});

Deno.test("readBounded: a body shorter than its declared length is a RangeError", async () => {
  const short = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new Uint8Array(10));
      controller.close();
    },
  });
  const response = new Response(short, { headers: { "content-length": "100" } });
  await assert.rejects(readBounded(response, 1024), /ended after 10 of its 100 declared bytes/);
});

Deno.test("readBounded: a compressed answer is read as fetch decodes it, not held to its encoded length", async () => {
  const text = '{"jsonrpc":"2.0","id":1,"result":null}';
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  assert.ok(gzipped.length > text.length, "gzip made this small answer larger");
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(gzipped, {
        headers: { "content-encoding": "gzip", "content-length": String(gzipped.length) },
      }),
  );
  try {
    const answer = await fetch(`http://127.0.0.1:${server.addr.port}/`);
    assert.equal(new TextDecoder().decode(await readBounded(answer, 1024)), text);
  } finally {
    await server.shutdown();
  }
});
