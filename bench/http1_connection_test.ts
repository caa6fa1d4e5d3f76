/** The load generator's HTTP/1.1 connection and its lean signed requests (not the benchmark). */
import assert from "node:assert/strict";
import { Http1Connection } from "./http1_connection.ts";
import { leanRecall, leanSigned, leanWhoami } from "./load_generator.ts";
import { newAccountClient, startRelayer } from "../tests/relayer_process.ts";

Deno.test("Http1Connection: answers by length and by chunks, large and small, on one connection", async () => {
  const large = "x".repeat(100_000);
  const peers = new Set<number>();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request, info) => {
      peers.add(info.remoteAddr.port);
      const path = new URL(request.url).pathname;
      if (path === "/length") return new Response("short", { status: 201 });
      if (path === "/large") return new Response(large);
      if (path === "/echo") return request.text().then((text) => new Response(`got ${text}`));
      const parts = ["one ", "two ", "three"].map((part) => new TextEncoder().encode(part));
      return new Response(ReadableStream.from(parts), { status: 404 });
    },
  );
  const connection = await Http1Connection.open(new URL(`http://127.0.0.1:${server.addr.port}`));
  const text = (body: Uint8Array) => new TextDecoder().decode(body);
  try {
    for (let round = 0; round < 3; round++) {
      const short = await connection.send("GET", "/length", {});
      assert.deepEqual([short.status, text(short.body)], [201, "short"]);
      const chunked = await connection.send("GET", "/chunks", { "x-test": "1" });
      assert.deepEqual([chunked.status, text(chunked.body)], [404, "one two three"]);
      const big = await connection.send("GET", "/large", {});
      assert.equal(text(big.body), large);
      const echo = await connection.send("POST", "/echo", {}, new TextEncoder().encode("body ✓"));
      assert.equal(text(echo.body), "got body ✓");
    }
  } finally {
    connection.close();
  }
  assert.equal(peers.size, 1, "every request went on the one connection");
});

/** A server that answers each request on a connection with the next of `answers`, raw. */
function rawServer(answers: string[]) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const served = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(4096);
      for (const answer of answers) {
        let head = "";
        while (!head.includes("\r\n\r\n")) {
          const read = await conn.read(buffer);
          if (read === null) break;
          head += new TextDecoder().decode(buffer.subarray(0, read));
        }
        // Written in two parts, so that an answer arrives over more than one read.
        const bytes = new TextEncoder().encode(answer);
        await conn.write(bytes.subarray(0, 7));
        await new Promise((resolve) => setTimeout(resolve, 5));
        await conn.write(bytes.subarray(7));
      }
      conn.close();
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    async [Symbol.asyncDispose]() {
      listener.close();
      await served.catch(() => {});
    },
  };
}

Deno.test("Http1Connection: chunk extensions, trailers, any case, and when not to reuse", async () => {
  await using server = rawServer([
    "HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n" +
    "3;name=value\r\nabc\r\n2\r\nde\r\n0\r\nx-trailer: 1\r\nx-other: 2\r\n\r\n",
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
    "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
  ]);
  const connection = await Http1Connection.open(server.url);
  try {
    const text = (body: Uint8Array) => new TextDecoder().decode(body);
    const chunked = await connection.send("GET", "/a", {});
    assert.deepEqual([chunked.status, text(chunked.body), chunked.reusable], [200, "abcde", true]);
    const next = await connection.send("GET", "/b", {});
    assert.deepEqual([next.status, text(next.body), next.reusable], [200, "ok", true]);
    const closing = await connection.send("POST", "/c", {}, new Uint8Array(600));
    assert.deepEqual([closing.status, closing.body.length, closing.reusable], [401, 0, false]);
  } finally {
    connection.close();
  }
});

Deno.test("Http1Connection: a chunk size that is not hex is an error, not a wait", async () => {
  await using server = rawServer([
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
  ]);
  const connection = await Http1Connection.open(server.url);
  try {
    await assert.rejects(connection.send("GET", "/", {}), /a chunk without a size/);
  } finally {
    connection.close();
  }
});

Deno.test("lean signed requests are accepted by a relayer process; refusals are errors", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-lean-" });
  const relayer = await startRelayer(dataDir);
  try {
    const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    await (await leanWhoami(relayer.url, privateKey, accountId))();
    const signed = await leanSigned(relayer.url, privateKey, accountId);
    const { job_id } = await signed("POST", "/api/remember", {
      text: "I keep bees on the roof",
      namespace: "lean",
    }) as { job_id: string };
    const recall = leanRecall(signed);
    await assert.rejects(recall("what do I keep?", "elsewhere"), /found nothing/);
    for (let i = 0;; i++) {
      const { status } = await signed("GET", `/api/remember/${job_id}`) as { status: string };
      if (status === "done") break;
      assert.ok(i < 500, "the memory was never stored");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await recall("what do I keep?", "lean");
    // Another account's id for this key is refused: the status is checked.
    const stranger = await leanSigned(relayer.url, privateKey, "0x" + "ab".repeat(32));
    await assert.rejects(stranger("GET", "/api/whoami"), /^Error: 401$/);
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
