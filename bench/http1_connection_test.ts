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
