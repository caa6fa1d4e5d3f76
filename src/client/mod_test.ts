import assert from "node:assert/strict";
import { generateKeyPair } from "@svc/util/keys";
import { serveLocal } from "../../tests/fixtures/local_server.ts";
import { receiptMessage, SvcClient, SvcError, verifyReceipt } from "./mod.ts";

const KEY = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";

async function sentHeaders(sendDelegateKey: boolean) {
  const seen = new Map<string, Headers>();
  const client = await SvcClient.create({
    baseUrl: "https://relayer.test",
    privateKey: KEY,
    sendDelegateKey,
    fetch: (input, init) => {
      seen.set(new URL(String(input)).pathname, new Headers(init?.headers));
      return Promise.resolve(Response.json({ results: [], total: 0 }));
    },
  });
  for (
    const path of [
      "/api/recall",
      "/api/ask",
      "/api/restore",
      "/api/remember",
      "/api/remember/bulk",
      "/api/remember/manual",
    ]
  ) {
    await client.request("POST", path, {});
  }
  await client.request("GET", "/api/remember/0190a0a0-0000-7000-8000-000000000002");
  await client.request("GET", "/api/whoami");
  await client.list({ namespace: "n" });
  await client.forget("0190a0a0-0000-7000-8000-000000000001");
  return seen;
}

Deno.test("the delegate key is sent only on decrypting calls, and only when asked", async () => {
  const on = await sentHeaders(true);
  const erasing = ["/api/memories", "/api/memories/0190a0a0-0000-7000-8000-000000000001"];
  // Remember too: its answer to a text already held shows that memory.
  for (const path of ["/api/recall", "/api/ask", "/api/restore", "/api/remember", ...erasing]) {
    assert.equal(on.get(path)!.get("x-delegate-key"), KEY, path);
  }
  // Not on the other remember routes: none answers with a memory's text.
  for (
    const path of [
      "/api/whoami",
      "/api/remember/bulk",
      "/api/remember/manual",
      "/api/remember/0190a0a0-0000-7000-8000-000000000002",
    ]
  ) {
    assert.equal(on.get(path)!.get("x-delegate-key"), null, path);
  }
  for (const headers of (await sentHeaders(false)).values()) {
    assert.equal(headers.get("x-delegate-key"), null);
  }
});

Deno.test("the delegate key travels only over https or to this machine", async () => {
  for (const baseUrl of ["http://127.0.0.1:8000", "http://localhost:8000", "http://[::1]:8000"]) {
    await SvcClient.create({ baseUrl, privateKey: KEY, sendDelegateKey: true });
  }
  await assert.rejects(
    SvcClient.create({ baseUrl: "http://relayer.example", privateKey: KEY, sendDelegateKey: true }),
    /over https or on loopback/,
  );
  await SvcClient.create({ baseUrl: "http://relayer.example", privateKey: KEY });
});

/** A client whose requests are recorded and answered with `answer`. */
async function recording(answer: unknown = {}) {
  const sent: { method: string; path: string; body: unknown; headers: Headers }[] = [];
  const client = await SvcClient.create({
    baseUrl: "http://127.0.0.1:8000",
    privateKey: KEY,
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const text = typeof init?.body === "string" ? init.body : "";
      sent.push({
        method: init?.method ?? "GET",
        path: url.pathname + url.search,
        body: text ? JSON.parse(text) : undefined,
        headers: new Headers(init?.headers),
      });
      return await Promise.resolve(Response.json(answer));
    },
  });
  return { client, sent };
}

Deno.test("lifecycle calls: the methods, paths, queries and bodies of the API", async () => {
  const { client, sent } = await recording();
  const id = "0190a0a0-0000-7000-8000-00000000000a";
  await client.list();
  await client.list({
    namespace: "work notes",
    limit: 20,
    cursor: "c/1+2",
    tags: ["diet", "a&b"],
    since: new Date("2026-01-01T00:00:00Z"),
    until: "2026-02-01T00:00:00.000Z",
  });
  await client.get(id);
  await client.forget(id);
  await client.forgetNamespace("my ns");
  await client.update(id, { text: "I am vegan", tags: ["diet"] });
  await client.remember("I am vegetarian", {
    namespace: "food",
    tags: ["diet"],
    ttlSeconds: 3600,
    replaces: id,
  });
  await client.remember("x", { expiresAt: new Date("2030-01-01T00:00:00Z") });
  await client.rememberBulk([{ text: "a", tags: ["t"], ttlSeconds: 60 }, { text: "b" }]);
  await client.recall("diet", { tags: ["diet"], since: new Date("2026-01-01T00:00:00Z") });
  assert.deepEqual(sent.map(({ method, path, body }) => ({ method, path, body })), [
    { method: "GET", path: "/api/memories", body: undefined },
    {
      method: "GET",
      path: "/api/memories?namespace=work+notes&limit=20&cursor=c%2F1%2B2&tag=diet&tag=a%26b" +
        "&since=2026-01-01T00%3A00%3A00.000Z&until=2026-02-01T00%3A00%3A00.000Z",
      body: undefined,
    },
    { method: "GET", path: `/api/memories/${id}`, body: undefined },
    { method: "DELETE", path: `/api/memories/${id}`, body: undefined },
    { method: "DELETE", path: "/api/memories?namespace=my+ns&confirm=my+ns", body: undefined },
    { method: "PUT", path: `/api/memories/${id}`, body: { text: "I am vegan", tags: ["diet"] } },
    {
      method: "POST",
      path: "/api/remember",
      body: {
        text: "I am vegetarian",
        namespace: "food",
        tags: ["diet"],
        ttl_seconds: 3600,
        replaces: id,
      },
    },
    {
      method: "POST",
      path: "/api/remember",
      body: { text: "x", expires_at: "2030-01-01T00:00:00.000Z" },
    },
    {
      method: "POST",
      path: "/api/remember/bulk",
      body: { items: [{ text: "a", tags: ["t"], ttl_seconds: 60 }, { text: "b" }] },
    },
    {
      method: "POST",
      path: "/api/recall",
      body: { query: "diet", tags: ["diet"], since: "2026-01-01T00:00:00.000Z" },
    },
  ]);
  // The signature covers the path as sent, query included.
  for (const { headers } of sent) assert.match(headers.get("x-signature") ?? "", /^[0-9a-f]{128}$/);
});

Deno.test("lifecycle calls: an id is one path segment, whatever it holds", async () => {
  const { client, sent } = await recording();
  await client.get("../remember/x?y");
  assert.equal(sent[0].path, "/api/memories/..%2Fremember%2Fx%3Fy");
  // A dot segment would be resolved away, escaped or not: the path would name another route.
  for (const id of ["", ".", ".."]) {
    await assert.rejects(client.get(id), /is not an id/);
    await assert.rejects(client.forget(id), /is not an id/);
    await assert.rejects(client.update(id, { text: "x" }), /is not an id/);
  }
  assert.equal(sent.length, 1);
});

Deno.test("verifyReceipt: true for the relayer's signature, false for anything else", async () => {
  const relayerKey = await generateKeyPair();
  const fields = {
    memory_id: "0190a0a0-0000-7000-8000-00000000000a",
    owner: "0x" + "ab".repeat(32),
    blob_id: "blob-1",
    erased_at: "2026-11-22T15:00:00.000Z",
  };
  const message = receiptMessage(fields);
  assert.equal(
    message,
    `svc-erase-receipt:v1\n${fields.memory_id}\n${fields.owner}\nblob-1\n${fields.erased_at}`,
  );
  const signature = relayerKey.sign(new TextEncoder().encode(message)).toHex();
  const receipt = { ...fields, signature };
  assert.equal(await verifyReceipt(receipt, relayerKey.publicKey), true);

  const otherKey = (await generateKeyPair()).publicKey;
  assert.equal(await verifyReceipt(receipt, otherKey), false);
  for (const field of ["memory_id", "owner", "blob_id", "erased_at"] as const) {
    assert.equal(
      await verifyReceipt({ ...receipt, [field]: receipt[field] + "x" }, relayerKey.publicKey),
      false,
      field,
    );
  }
  // A field cannot smuggle a line into the signed text.
  const shifted = { ...receipt, memory_id: `${fields.memory_id}\n${fields.owner}`, owner: "" };
  assert.equal(await verifyReceipt(shifted, relayerKey.publicKey), false);
  assert.equal(await verifyReceipt({ ...receipt, signature: "zz" }, relayerKey.publicKey), false);
  assert.equal(await verifyReceipt(receipt, "not a key"), false);
  assert.equal(await verifyReceipt(null as never, relayerKey.publicKey), false);
});

Deno.test("the client's errors are the SvcError its module exports, with the relayer's code", async () => {
  const client = await SvcClient.create({
    baseUrl: "https://relayer.test",
    privateKey: KEY,
    fetch: () =>
      Promise.resolve(Response.json({ error: "No memory with this id", code: "not_found" }, {
        status: 404,
      })),
  });
  await assert.rejects(
    client.get("0190a0a0-0000-7000-8000-000000000001"),
    (error) => error instanceof SvcError && error.code === "not_found",
  );
});

Deno.test("an answer of JSON null is refused as an answer no call expects, not handed on as null", async () => {
  const client = await SvcClient.create({
    baseUrl: "https://relayer.test",
    privateKey: KEY,
    fetch: () => Promise.resolve(new Response("null", { status: 200 })),
  });
  await assert.rejects(
    client.get("0190a0a0-0000-7000-8000-000000000001"),
    (error) => error instanceof SvcError && error.code === "bad_request",
  );
});

Deno.test("health: a relayer draining before it stops answers 503 with its health, taken at once; another 503 is retried", async () => {
  let calls = 0;
  const answering = (body: unknown) =>
    SvcClient.create({
      baseUrl: "https://relayer.test",
      privateKey: KEY,
      retries: 1,
      fetch: () => {
        calls++;
        return Promise.resolve(Response.json(body, { status: 503 }));
      },
    });
  const draining = await answering({ status: "stopping", receiptKey: "ab".repeat(32) });
  assert.deepEqual(await draining.health(), { status: "stopping", receiptKey: "ab".repeat(32) });
  assert.equal(calls, 1);
  calls = 0;
  const down = await answering({ error: "no upstream", code: "backend_unavailable" });
  await assert.rejects(down.health(), /no upstream/);
  assert.equal(calls, 2, "once and its retry");
});

Deno.test("waitForJob: a job still pending when the time is up says why its last attempt failed", async () => {
  const job: Record<string, unknown> = { job_id: "j1", status: "pending", attempts: 1 };
  const client = await SvcClient.create({
    baseUrl: "https://relayer.test",
    privateKey: KEY,
    fetch: () => Promise.resolve(Response.json(job)),
  });
  const waited = (message: RegExp) =>
    assert.rejects(
      client.waitForJob("j1", { timeoutMs: 0 }),
      (e: SvcError) => e.code === "backend_unavailable" && message.test(e.message),
    );
  await waited(/^Job j1 is still pending$/);
  job.error = "Cannot store the blob: the Walrus publisher is unavailable";
  await waited(
    /^Job j1 is still pending \(its last attempt: Cannot store the blob: the Walrus publisher/,
  );
});

/** A client sending each request up to three times to a relayer that answers `answer()`. */
async function countedClient(answer: () => Response) {
  const sent = { calls: 0 };
  const client = await SvcClient.create({
    baseUrl: "https://relayer.test",
    privateKey: KEY,
    retries: 2,
    fetch: () => {
      sent.calls++;
      return Promise.resolve(answer());
    },
  });
  return { client, sent };
}

Deno.test("analyze and ask: a model's failure is not sent again; another 5xx is", async () => {
  const answers: Response[] = [];
  const { client, sent } = await countedClient(() =>
    answers.shift() ?? Response.json({ answer: "Oslo", memories: [] })
  );
  const failed = () =>
    Response.json({
      error: "Ollama could not answer: it did not answer in time",
      code: "backend_unavailable",
      reason: "provider",
    }, { status: 503 });
  answers.push(failed(), failed());
  await assert.rejects(client.ask("Where do I live?"), (error: SvcError) => {
    assert.match(error.message, /Ollama could not answer/);
    assert.equal(error.details.reason, "provider");
    return true;
  });
  assert.equal(sent.calls, 1, "the relayer tried its model for as long as it may");
  // So with recall and its embedder, and a vector that is no embedding.
  for (const reason of ["provider", "invalid_embedding"]) {
    sent.calls = 0;
    answers.push(
      Response.json({ error: "no", code: "backend_unavailable", reason }, { status: 503 }),
    );
    await assert.rejects(client.recall("Where do I live?"));
    assert.equal(sent.calls, 1, reason);
  }
  sent.calls = 0;
  answers.length = 0;
  // A balancer's 502 while a relayer restarts, a busy relayer: asked again.
  answers.push(new Response("Bad Gateway", { status: 502 }));
  answers.push(
    Response.json({ error: "busy", code: "server_busy" }, {
      status: 503,
      headers: { "retry-after": "1" },
    }),
  );
  assert.equal((await client.ask("Where do I live?")).answer, "Oslo");
  assert.equal(sent.calls, 3);
});

Deno.test("remember: a namespace full (507) is not sent again", async () => {
  const { client, sent } = await countedClient(() =>
    Response.json({
      error: "Cannot remember more in this namespace",
      code: "insufficient_storage",
      reason: "namespace_full",
    }, { status: 507 })
  );
  await assert.rejects(client.remember("I keep bees"), (error: SvcError) => {
    assert.equal(error.details.reason, "namespace_full");
    return true;
  });
  assert.equal(sent.calls, 1);
});

Deno.test("a relayer that takes a request and never answers: the request fails once its answer is late, and is not sent again", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    const client = await SvcClient.create({
      baseUrl: `http://127.0.0.1:${listener.addr.port}`,
      privateKey: KEY,
      answerTimeoutMs: 100,
    });
    await assert.rejects(client.recall("bees"), (error: SvcError) => {
      assert.equal(error.code, "backend_unavailable");
      assert.match(error.message, /took the request but did not answer within 0\.1 s$/);
      assert.equal(error.details.reason, "outcome_unknown");
      return true;
    });
    assert.equal(held.length, 1);
  } finally {
    listener.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
  }
});

Deno.test("a long answer is read whole after its start came in time", async () => {
  await using relayer = serveLocal(() => {
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"results":[],'));
        await new Promise((resolve) => setTimeout(resolve, 300));
        controller.enqueue(new TextEncoder().encode('"total":0}'));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  });
  const client = await SvcClient.create({
    baseUrl: relayer.url,
    privateKey: KEY,
    answerTimeoutMs: 100,
  });
  assert.deepEqual(await client.recall("bees"), { results: [], total: 0 });
});

Deno.test("a connection broken after an update, a namespace erase or an import was sent is not sent again", async () => {
  const sent: string[] = [];
  let failure: Error | undefined;
  const client = await SvcClient.create({
    baseUrl: "https://relayer.test",
    privateKey: KEY,
    retries: 2,
    fetch: (input, init) => {
      sent.push(`${init?.method} ${new URL(String(input)).pathname}`);
      const error = failure;
      failure = undefined;
      if (error) return Promise.reject(error);
      return Promise.resolve(Response.json({ job_id: "j1", memory_id: "m1", status: "pending" }));
    },
  });
  const broken = () =>
    new TypeError("fetch failed", {
      cause: new Error("client error (SendRequest): connection closed before message completed"),
    });
  const calls = [
    () => client.update("m1", { text: "I am vegan" }),
    () => client.forgetNamespace("work"),
    () => client.import([{ text: "I keep bees" }]),
  ];
  for (const call of calls) {
    sent.length = 0;
    failure = broken();
    await assert.rejects(call(), (error: SvcError) => error.details.reason === "outcome_unknown");
    assert.equal(sent.length, 1, sent.join());
  }
  // A connection refused never reached the relayer; a remember sent again answers its memory.
  sent.length = 0;
  failure = new TypeError("fetch failed", {
    cause: new Error("client error (Connect): tcp connect error: Connection refused"),
  });
  await client.update("m1", { text: "I am vegan" });
  failure = broken();
  await client.remember("I keep bees");
  assert.deepEqual(sent, [
    "PUT /api/memories/m1",
    "PUT /api/memories/m1",
    "POST /api/remember",
    "POST /api/remember",
  ]);
});
