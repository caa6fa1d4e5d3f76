import assert from "node:assert/strict";
import { MemoryAccountDirectory } from "../src/backends/memory.ts";
import { ErrorCode, type McpError } from "@modelcontextprotocol/sdk/types.js";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { LocalLedger } from "../plugins/local_ledger/mod.ts";
import { encodeKind, signDigest } from "../plugins/local_ledger/transactions.ts";
import { initializeRequest, startMcpStack, textOf } from "./mcp_fixtures.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { until } from "../src/testing/job_fixtures.ts";

Deno.test("MCP over Streamable HTTP: tools match the specification", async () => {
  await using stack = await startMcpStack();
  const client = await stack.connect(await stack.test.newCaller());
  const { tools } = await client.listTools();
  // Spelled out: the SDK's zod-derived types do not resolve under Deno's type checker.
  const byName: Record<string, {
    inputSchema: unknown;
    description?: string;
    annotations?: { readOnlyHint?: boolean };
  }> = Object.fromEntries(tools.map((tool: { name: string }) => [tool.name, tool]));
  assert.deepEqual(Object.keys(byName).sort(), [
    "svc_analyze",
    "svc_forget",
    "svc_get",
    "svc_list",
    "svc_namespaces",
    "svc_recall",
    "svc_remember",
    "svc_restore",
    "svc_update",
  ]);
  const schema = (name: string) =>
    byName[name].inputSchema as {
      properties: Record<string, Record<string, unknown>>;
      required?: string[];
    };
  assert.deepEqual(schema("svc_remember").required, ["text"]);
  assert.equal(schema("svc_remember").properties.text.type, "string");
  assert.equal(schema("svc_remember").properties.namespace.type, "string");
  assert.deepEqual(schema("svc_recall").required, ["query"]);
  assert.deepEqual(
    [
      schema("svc_recall").properties.limit.type,
      schema("svc_recall").properties.limit.minimum,
      schema("svc_recall").properties.limit.maximum,
      schema("svc_recall").properties.limit.default,
    ],
    ["integer", 1, 100, 10],
  );
  assert.deepEqual(schema("svc_analyze").required, ["text"]);
  assert.deepEqual(schema("svc_restore").required, ["namespace"]);
  assert.deepEqual(
    [
      schema("svc_restore").properties.limit.minimum,
      schema("svc_restore").properties.limit.maximum,
      schema("svc_restore").properties.limit.default,
    ],
    [1, 500, 10],
  );
  assert.equal(byName.svc_recall.annotations?.readOnlyHint, true);
  assert.equal(byName.svc_remember.annotations?.readOnlyHint, false);
  assert.match(byName.svc_remember.description ?? "", /explicitly asks/);
  assert.match(byName.svc_remember.description ?? "", /without summarising/);
});

for (const sse of [false, true]) {
  const transport = sse ? "SSE" : "Streamable HTTP";
  Deno.test(`MCP over ${transport}: remember, recall, analyze, restore`, async () => {
    await using stack = await startMcpStack();
    const client = await stack.connect(await stack.test.newCaller(), { sse, namespace: "food" });

    const empty = await client.callTool({ name: "svc_recall", arguments: { query: "diet" } });
    assert.equal(textOf(empty), "No matching memories found");

    const saved = await client.callTool({
      name: "svc_remember",
      arguments: { text: "I am vegetarian and I never eat fish" },
    });
    assert.equal(saved.isError, undefined);
    assert.match(textOf(saved), /^Saved to memory \(namespace "food", job [0-9a-f-]{36}\)\.$/);
    const job = saved.structuredContent as { job_id: string; status: string };
    assert.equal(job.status, "done");

    const found = await client.callTool({
      name: "svc_recall",
      arguments: { query: "does the user eat fish?", limit: 3 },
    });
    assert.match(
      textOf(found),
      /^1\. \[score 0\.\d\d\] I am vegetarian and I never eat fish \(id [0-9a-f-]{36}\)$/,
    );
    const structured = found.structuredContent as { total: number; results: { id: string }[] };
    assert.equal(structured.total, 1);
    assert.equal(structured.results[0].id, job.job_id);

    const other = await client.callTool({
      name: "svc_recall",
      arguments: { query: "does the user eat fish?", namespace: "work" },
    });
    assert.equal(textOf(other), "No matching memories found");

    const restored = await client.callTool({
      name: "svc_restore",
      arguments: { namespace: "food" },
    });
    assert.equal(textOf(restored), 'Restore of namespace "food": total 1, restored 0, skipped 1.');
    assert.deepEqual(
      { ...restored.structuredContent as object, owner: undefined },
      {
        restored: 0,
        skipped: 1,
        total: 1,
        remaining: 0,
        truncated: false,
        namespace: "food",
        owner: undefined,
      },
    );
    // Without a namespace, restore takes the session's, as the other tools do.
    const { tools } = await client.listTools();
    const restore = tools.find((tool: { name: string }) => tool.name === "svc_restore")!;
    assert.equal(restore.inputSchema.required?.includes("namespace") ?? false, false);
    const byDefault = await client.callTool({ name: "svc_restore", arguments: {} });
    assert.equal(textOf(byDefault), 'Restore of namespace "food": total 1, restored 0, skipped 1.');

    const analyzed = await client.callTool({
      name: "svc_analyze",
      arguments: { text: "Hello! I moved to Lisbon last year. What time is it? I love surfing." },
    });
    assert.equal(analyzed.isError, undefined);
    assert.match(
      textOf(analyzed),
      /^Extracted 2 fact\(s\):\n- Moved to Lisbon last year \((pending|running|done)\)\n- Loves surfing \((pending|running|done)\)$/,
    );
    // The JSON says what the text says.
    const said = [...textOf(analyzed).matchAll(/\((\w+)\)$/gm)].map((m) => m[1]);
    const facts = (analyzed.structuredContent as { facts: { status: string }[] }).facts;
    assert.deepEqual(facts.map((fact) => fact.status), said);
  });
}

Deno.test("MCP: arguments outside the schema are rejected", async () => {
  await using stack = await startMcpStack();
  const client = await stack.connect(await stack.test.newCaller());
  const cases = [
    { name: "svc_recall", arguments: { query: "x", limit: 101 } },
    { name: "svc_recall", arguments: { query: "x", limit: 0 } },
    { name: "svc_recall", arguments: { query: "x", limit: 2.5 } },
    { name: "svc_remember", arguments: {} },
    { name: "svc_remember", arguments: { text: "" } },
    { name: "svc_restore", arguments: { namespace: "n", limit: 501 } },
    { name: "svc_restore", arguments: {} },
  ];
  for (const call of cases) {
    const result = await client.callTool(call);
    assert.equal(result.isError, true, JSON.stringify(call));
    assert.match(textOf(result), /Input validation error/, JSON.stringify(call));
  }
  // Texts over their limit, though under the MCP body's 4 MiB, are refused by that limit.
  const long = "x".repeat(3 * 1024 * 1024);
  const limits = [
    [{ name: "svc_remember", arguments: { text: long } }, "text", 1048576],
    [{ name: "svc_update", arguments: { id: crypto.randomUUID(), text: long } }, "text", 1048576],
    [{ name: "svc_recall", arguments: { query: long } }, "query", 65536],
    [{ name: "svc_analyze", arguments: { text: long } }, "text", 65536],
  ] as const;
  for (const [call, field, bytes] of limits) {
    const result = await client.callTool(call);
    assert.equal(result.isError, true, call.name);
    assert.equal(textOf(result), `${field} must be at most ${bytes} bytes of UTF-8`, call.name);
  }
  assert.equal(await stack.test.vectors.count(), 0);
  // An unknown tool is a protocol error, as over stdio.
  for (const name of ["svc_nope", "toString"]) {
    await assert.rejects(client.callTool({ name, arguments: {} }), (error: McpError) => {
      assert.equal(error.code, ErrorCode.InvalidParams);
      assert.equal(error.message, `MCP error -32602: Unknown tool: ${name}`);
      return true;
    });
  }
});

Deno.test("MCP: missing or invalid credentials get 401 and never a session", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  const stranger = await stack.test.newCaller();
  stack.test.directory.remove(stranger.key.publicKey);
  const cases: Record<string, string>[] = [
    {},
    { authorization: `Bearer ${caller.key.privateKey}` },
    { "x-svc-account-id": caller.accountId },
    { authorization: "Bearer nothex", "x-svc-account-id": caller.accountId },
    { authorization: `Basic ${caller.key.privateKey}`, "x-svc-account-id": caller.accountId },
    stack.auth(stranger),
    stack.auth(caller, { "x-svc-account-id": stranger.accountId }),
  ];
  for (const headers of cases) {
    for (
      const [path, init] of [
        ["/api/mcp", initializeRequest(headers)],
        ["/api/mcp/sse", { headers }],
      ] as const
    ) {
      const response = await fetch(stack.url + path, init);
      const body = await response.json();
      assert.equal(response.status, 401, `${path} ${JSON.stringify(Object.keys(headers))}`);
      assert.match(response.headers.get("www-authenticate") ?? "", /^Bearer /);
      assert.equal(body.jsonrpc, "2.0");
      assert.equal(typeof body.error.message, "string");
      assert.ok(!JSON.stringify(body).includes(caller.key.privateKey), "bearer echoed");
    }
  }
  assert.equal(stack.sidecar.sessions.size, 0);
  const unknown = await fetch(`${stack.url}/api/mcp`, initializeRequest(stack.auth(stranger)));
  assert.match(
    (await unknown.json()).error.message,
    /the bearer is not a delegate key of the account in x-svc-account-id$/,
  );
  // The scheme in any case, the key in either case of hex.
  const shouted = await fetch(
    `${stack.url}/api/mcp`,
    initializeRequest({
      authorization: `bearer ${caller.key.privateKey.toUpperCase()}`,
      "x-svc-account-id": caller.accountId,
    }),
  );
  assert.equal(shouted.status, 200);
  await shouted.body?.cancel();
});

Deno.test("MCP: bearer in the URL, foreign Origin and bad namespace are refused", async () => {
  await using stack = await startMcpStack({ allowedOrigins: ["https://app.example"] });
  const caller = await stack.test.newCaller();
  const inQuery = await fetch(
    `${stack.url}/api/mcp?access_token=${caller.key.privateKey}`,
    initializeRequest(stack.auth(caller)),
  );
  assert.equal(inQuery.status, 400);
  assert.match((await inQuery.json()).error.message, /must not be sent in the URL/);
  const hexValue = await fetch(
    `${stack.url}/api/mcp/sse?x=${caller.key.privateKey}`,
    { headers: stack.auth(caller) },
  );
  assert.equal(hexValue.status, 400);
  await hexValue.body?.cancel();

  const foreign = await fetch(
    `${stack.url}/api/mcp`,
    initializeRequest(stack.auth(caller, { origin: "https://evil.example" })),
  );
  assert.equal(foreign.status, 403);
  await foreign.body?.cancel();
  const allowed = await fetch(
    `${stack.url}/api/mcp`,
    initializeRequest(stack.auth(caller, { origin: "https://app.example" })),
  );
  assert.equal(allowed.status, 200);
  await allowed.body?.cancel();

  const badNamespace = await fetch(
    `${stack.url}/api/mcp`,
    initializeRequest(stack.auth(caller, { "x-svc-namespace": "a".repeat(257) })),
  );
  assert.equal(badNamespace.status, 400);
  assert.equal((await badNamespace.json()).id, 1, "the initialize request's id");
  // A header's bytes are read as UTF-8, else one character each: Latin-1's "é" alone is "é".
  const latin1 = await fetch(
    `${stack.url}/api/mcp`,
    initializeRequest(stack.auth(caller, { "x-svc-namespace": "caf\u00e9" })),
  );
  assert.equal(latin1.status, 200);
  await latin1.body?.cancel();
  assert.equal(stack.sidecar.sessions.size, 2, "the two allowed");
});

Deno.test("MCP: a page of an allowed origin passes CORS; another origin is refused", async () => {
  await using stack = await startMcpStack({ allowedOrigins: ["https://app.example"] });
  const caller = await stack.test.newCaller();
  const ask = (origin: string) =>
    fetch(`${stack.url}/api/mcp`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type, mcp-session-id",
      },
    });
  const preflight = await ask("https://app.example");
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example");
  assert.match(preflight.headers.get("access-control-allow-methods") ?? "", /POST/);
  for (const name of ["authorization", "content-type", "mcp-session-id", "x-svc-account-id"]) {
    assert.match(preflight.headers.get("access-control-allow-headers") ?? "", new RegExp(name));
  }
  const foreign = await ask("https://evil.example");
  assert.equal(foreign.status, 403);
  assert.equal(foreign.headers.get("access-control-allow-origin"), null);
  await foreign.body?.cancel();

  const opened = await fetch(
    `${stack.url}/api/mcp`,
    initializeRequest(stack.auth(caller, { origin: "https://app.example" })),
  );
  assert.equal(opened.status, 200);
  assert.equal(opened.headers.get("access-control-allow-origin"), "https://app.example");
  assert.match(opened.headers.get("access-control-expose-headers") ?? "", /mcp-session-id/);
  assert.ok(opened.headers.get("mcp-session-id"));
  await opened.body?.cancel();
  // A refusal, too, is readable by the page.
  const refused = await fetch(
    `${stack.url}/api/mcp`,
    initializeRequest({
      origin: "https://app.example",
      authorization: `Bearer ${"ab".repeat(32)}`,
    }),
  );
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("access-control-allow-origin"), "https://app.example");
  await refused.body?.cancel();
});

Deno.test("MCP: a session is bound to its identity; DELETE ends it", async () => {
  await using stack = await startMcpStack();
  const alice = await stack.test.newCaller();
  const bob = await stack.test.newCaller();
  const opened = await fetch(`${stack.url}/api/mcp`, initializeRequest(stack.auth(alice)));
  assert.equal(opened.status, 200);
  await opened.body?.cancel();
  const sessionId = opened.headers.get("mcp-session-id")!;
  assert.ok(sessionId);

  const list = (headers: Record<string, string>, method = "POST") =>
    fetch(`${stack.url}/api/mcp`, {
      method,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": "2025-06-18",
        ...headers,
      },
      body: method === "POST"
        ? JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" })
        : undefined,
    });
  const hijack = await list(stack.auth(bob));
  assert.equal(hijack.status, 403);
  assert.match((await hijack.json()).error.message, /another identity/);
  const sameKeyOtherAccount = await list(stack.auth(alice, { "x-svc-account-id": bob.accountId }));
  assert.equal(sameKeyOtherAccount.status, 403);
  await sameKeyOtherAccount.body?.cancel();

  const own = await list(stack.auth(alice));
  assert.equal(own.status, 200);
  assert.match(await own.text(), /svc_recall/);

  const ended = await list(stack.auth(alice), "DELETE");
  assert.equal(ended.status, 200);
  await ended.body?.cancel();
  assert.equal(stack.sidecar.sessions.size, 0);
  const after = await list(stack.auth(alice));
  assert.equal(after.status, 404);
  await after.body?.cancel();
});

Deno.test("MCP: a key removed during a session gets a tool error naming the key, not a header", async () => {
  await using stack = await startMcpStack({ relayer: { accountCacheMs: 0 } });
  const alice = await stack.test.newCaller();
  const client = await stack.connect(alice);
  stack.test.directory.remove(alice.key.publicKey);
  const refused = await client.callTool({ name: "svc_recall", arguments: { query: "tea" } });
  assert.equal(refused.isError, true);
  assert.equal(
    textOf(refused),
    "The relayer refused the credentials (the delegate key is not a key of this account). The " +
      "delegate key may have been revoked or belong to another environment: sign in again.",
  );
});

Deno.test("MCP: the relayer answers 503 while the sidecar is down (to MCP clients in JSON-RPC), and recovers", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  stack.setSidecarUp(false);
  for (
    const [path, init] of [
      ["/api/mcp", initializeRequest(stack.auth(caller))],
      ["/api/mcp/sse", { headers: stack.auth(caller) }],
    ] as const
  ) {
    const response = await fetch(stack.url + path, init);
    assert.equal(response.status, 503, path);
    assert.equal(response.headers.get("retry-after"), "2");
    const { jsonrpc, error } = await response.json();
    assert.equal(jsonrpc, "2.0");
    assert.match(error.message, /Cannot reach the MCP sidecar/);
  }
  const sponsor = await fetch(`${stack.url}/sponsor`, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  assert.equal(sponsor.status, 503);
  const body = await sponsor.json();
  assert.equal(body.code, "backend_unavailable");
  assert.match(body.error, /sidecar/);
  const health = await (await fetch(`${stack.url}/health`)).json();
  assert.equal(health.sidecar, "down");
  stack.setSidecarUp(true);
  const client = await stack.connect(caller);
  assert.equal((await client.listTools()).tools.length, 9);
});

Deno.test("sponsor routes answer 501 without a sponsor, are capped at 64 KiB and rate-limited", async () => {
  await using stack = await startMcpStack();
  const post = (path: string, body: string) =>
    fetch(stack.url + path, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
  const sponsored = await post(
    "/sponsor",
    JSON.stringify({ transactionKind: "AA==", sender: "0x1" }),
  );
  assert.equal(sponsored.status, 501);
  assert.equal((await sponsored.json()).code, "not_implemented");
  const big = await post("/sponsor/execute", JSON.stringify({ digest: "x".repeat(64 * 1024) }));
  assert.equal(big.status, 413);
  await big.body?.cancel();
  // Posts another site's page can send (no-cors: text/plain) are refused and spend nothing.
  for (let i = 0; i < 40; i++) {
    const foreign = await fetch(stack.url + "/sponsor", { method: "POST", body: "{}" });
    assert.equal(foreign.status, 415);
    assert.equal((await foreign.json()).code, "unsupported_media_type");
  }
  assert.equal((await post("/sponsor", "{}")).status, 501, "the address's budget was spent");
  let limited: Response | undefined;
  for (let i = 0; i < 40 && !limited; i++) {
    const response = await post("/sponsor", "{}");
    if (response.status === 429) limited = response;
    else await response.body?.cancel();
  }
  assert.ok(limited, "never rate-limited");
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
  assert.equal((await limited.json()).code, "rate_limited");
});

/** Opens a session with a raw initialize request; returns the response (body consumed). */
async function openSession(
  url: string,
  headers: Record<string, string>,
): Promise<Response> {
  const response = await fetch(`${url}/api/mcp`, initializeRequest(headers));
  await response.body?.cancel();
  return response;
}

Deno.test("MCP limits: a key's 17th session closes its least recently used idle one", async () => {
  let now = 1_000_000;
  await using stack = await startMcpStack({ now: () => now });
  const [caller, other] = [await stack.test.newCaller(), await stack.test.newCaller()];
  const ids: string[] = [];
  for (let i = 0; i < 16; i++) {
    const opened = await openSession(stack.url, stack.auth(caller));
    assert.equal(opened.status, 200);
    ids.push(opened.headers.get("mcp-session-id")!);
    now += 1000;
  }
  // The first session is used again, so the second is now the least recently used.
  const ping = (id: string) =>
    fetch(`${stack.url}/api/mcp`, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      headers: {
        ...stack.auth(caller),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-06-18",
      },
    }).then(async (r) => (await r.body?.cancel(), r.status));
  assert.equal(await ping(ids[0]), 200);
  now += 1000;

  const newest = await openSession(stack.url, stack.auth(caller));
  assert.equal(newest.status, 200);
  assert.equal(stack.sidecar.sessions.size, 16);
  assert.equal(await ping(ids[1]), 404, "the least recently used session was closed");
  assert.equal(await ping(ids[0]), 200);
  assert.equal(await ping(newest.headers.get("mcp-session-id")!), 200);

  // Another key from the same address is not locked out, over either transport.
  assert.equal((await openSession(stack.url, stack.auth(other))).status, 200);
  const sse = await fetch(`${stack.url}/api/mcp/sse`, { headers: stack.auth(other) });
  assert.equal(sse.status, 200);
  await sse.body?.cancel();
});

Deno.test("MCP limits: the 31st new session in a minute is refused", async () => {
  let now = 1_000_000;
  await using stack = await startMcpStack({ limits: { maxPerIdentity: 100 }, now: () => now });
  const caller = await stack.test.newCaller();
  for (let i = 0; i < 30; i++) {
    const opened = await openSession(stack.url, stack.auth(caller));
    assert.equal(opened.status, 200);
    // Closing sessions frees their slot but not the per-minute budget.
    await fetch(`${stack.url}/api/mcp`, {
      method: "DELETE",
      headers: {
        ...stack.auth(caller),
        "mcp-session-id": opened.headers.get("mcp-session-id")!,
        "mcp-protocol-version": "2025-06-18",
      },
    }).then((r) => r.body?.cancel());
    now += 1000;
  }
  assert.equal(stack.sidecar.sessions.size, 0);
  const refused = await openSession(stack.url, stack.auth(caller));
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "30");
  now += 30_000;
  assert.equal((await openSession(stack.url, stack.auth(caller))).status, 200);
});

Deno.test("MCP limits: sessions never exceed the total cap; closing one frees a slot", async () => {
  await using stack = await startMcpStack({ limits: { maxTotal: 3 } });
  const caller = await stack.test.newCaller();
  // Straight to the sidecar, as the relayer forwards clients of different addresses.
  const viaAddress = (address: string, init: RequestInit) =>
    stack.sidecar.handler(
      new Request("http://localhost:9000/api/mcp", {
        ...init,
        headers: { ...init.headers, "x-sidecar-token": stack.token, "x-forwarded-for": address },
      }),
    );
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const opened = await viaAddress(`10.0.0.${i}`, initializeRequest(stack.auth(caller)));
    assert.equal(opened.status, 200);
    await opened.body?.cancel();
    ids.push(opened.headers.get("mcp-session-id")!);
  }
  const refused = await viaAddress("10.0.0.9", initializeRequest(stack.auth(caller)));
  assert.equal(refused.status, 429);
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  await refused.body?.cancel();
  const sse = await fetch(`${stack.url}/api/mcp/sse`, { headers: stack.auth(caller) });
  assert.equal(sse.status, 429);
  await sse.body?.cancel();
  assert.equal(stack.sidecar.sessions.size, 3);

  const closed = await viaAddress("10.0.0.0", {
    method: "DELETE",
    headers: {
      ...stack.auth(caller),
      "mcp-session-id": ids[0],
      "mcp-protocol-version": "2025-06-18",
    },
  });
  assert.equal(closed.status, 200);
  await closed.body?.cancel();
  const admitted = await viaAddress("10.0.0.9", initializeRequest(stack.auth(caller)));
  assert.equal(admitted.status, 200);
  await admitted.body?.cancel();
  assert.equal(stack.sidecar.sessions.size, 3);
});

Deno.test("MCP limits: idle sessions are closed and free their slot", async () => {
  let now = 1_000_000;
  await using stack = await startMcpStack({ limits: { idleMs: 60_000 }, now: () => now });
  const caller = await stack.test.newCaller();
  const client = await stack.connect(caller, { sse: true });
  assert.equal((await openSession(stack.url, stack.auth(caller))).status, 200);
  assert.equal(stack.sidecar.sessions.size, 2);
  now += 30_000;
  await client.listTools();
  now += 45_000;
  assert.equal(await stack.sidecar.sessions.evictIdle(), 1);
  assert.equal(stack.sidecar.sessions.size, 1);
  assert.equal((await client.listTools()).tools.length, 9, "the active session survives");
});

Deno.test("MCP: two agents remembering one text at once: one saves it, the other is told it is in memory", async () => {
  // The embedder holds the first job until both were accepted, so both pass the check at once.
  const inner = new LexicalEmbedder();
  const gate = Promise.withResolvers<void>();
  const embedder = {
    name: inner.name,
    model: inner.model,
    dimensions: inner.dimensions,
    async embed(texts: string[], options?: { signal?: AbortSignal }) {
      if (texts.some((text) => /kayak/.test(text))) await gate.promise;
      return await inner.embed(texts, options);
    },
  };
  await using stack = await startMcpStack({ relayer: { embedder } });
  const alice = await stack.test.newCaller();
  const clients = [await stack.connect(alice), await stack.connect(alice)];
  const calls = clients.map((client) =>
    client.callTool({ name: "svc_remember", arguments: { text: "My kayak is red" } })
  );
  const { worker } = stack.test.relayer;
  await until("both jobs were accepted", () => {
    const { waiting, running } = worker.stats();
    return waiting + running === 2;
  });
  gate.resolve();
  const texts = (await Promise.all(calls)).map(textOf).sort();
  assert.match(
    texts[0],
    /^Already in memory \(namespace "default", id [0-9a-f-]{36}\); nothing new/,
  );
  assert.match(texts[1], /^Saved to memory \(namespace "default", job [0-9a-f-]{36}\)\.$/);
  const saved = texts[1].match(/job ([0-9a-f-]{36})/)![1];
  assert.ok(texts[0].includes(`id ${saved}`), "the id is the memory that holds it");
});

Deno.test("MCP: two clients with interleaved calls only ever see their own memories", async () => {
  await using stack = await startMcpStack();
  const callers = [await stack.test.newCaller(), await stack.test.newCaller()];
  const clients = [
    await stack.connect(callers[0]),
    await stack.connect(callers[1], { sse: true }),
  ];
  const facts = ["my favourite colour is teal", "my favourite colour is amber"];
  for (let i = 0; i < 2; i++) {
    await clients[i].callTool({ name: "svc_remember", arguments: { text: facts[i] } });
  }
  for (let iteration = 0; iteration < 1000; iteration++) {
    const answers = await Promise.all(clients.map((client) =>
      client.callTool({
        name: "svc_recall",
        arguments: { query: "what is my favourite colour?", limit: 5 },
      })
    ));
    for (let i = 0; i < 2; i++) {
      const text = textOf(answers[i]);
      assert.ok(text.includes(`] ${facts[i]} (id `), `${iteration}: ${text}`);
      assert.ok(!text.includes(facts[1 - i]), `${iteration}: ${text}`);
    }
  }
});

Deno.test("MCP: bodies over 4 MiB and oversized batches are refused", async () => {
  await using stack = await startMcpStack();
  const caller = await stack.test.newCaller();
  const post = (path: string, body: string, extra: Record<string, string> = {}) =>
    fetch(stack.url + path, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...stack.auth(caller),
        ...extra,
      },
    });
  const huge = await post("/api/mcp", `"${"x".repeat(4 * 1024 * 1024)}"`);
  assert.equal(huge.status, 413);
  assert.deepEqual((await huge.json()).error, {
    code: -32000,
    message: "Request body exceeds 4194304 bytes",
    data: { limit_bytes: 4194304 },
  });
  const ping = { jsonrpc: "2.0", method: "ping" };
  const batch = await post("/api/mcp", JSON.stringify(Array(65).fill(ping)));
  assert.equal(batch.status, 400);
  assert.match((await batch.json()).error.message, /batch/);
  const broken = await post("/api/mcp", "{not json");
  assert.equal(broken.status, 400);
  assert.equal((await broken.json()).error.code, -32700);
  for (const params of [{}, { name: "svc_recall", arguments: "str" }]) {
    const call = { jsonrpc: "2.0", id: 17, method: "tools/call", params };
    const invalid = await post("/api/mcp", JSON.stringify(call));
    assert.equal(invalid.status, 400);
    const { error, id } = await invalid.json();
    assert.equal(id, 17, "the error does not answer the request's id");
    assert.equal(error.code, -32602);
    assert.match(error.message, /^Invalid params of tools\/call: params\.(name|arguments): /);
  }
  for (const body of ['{"hello":1}', "[1]", "null"]) {
    const invalid = await post("/api/mcp", body);
    assert.equal(invalid.status, 400, body);
    assert.equal((await invalid.json()).error.code, -32600, body);
  }
  const lone = await post(
    "/api/mcp",
    String.raw`{"jsonrpc":"2.0","id":1,"method":"ping","x":"\ud800"}`,
  );
  assert.equal(lone.status, 400);
  assert.match((await lone.json()).error.message, /^Parse error: .*surrogate/);

  // An SSE session, whose stream first names where its messages go.
  const stream = await fetch(`${stack.url}/api/mcp/sse`, { headers: stack.auth(caller) });
  const events = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  const endpoint = (await events.read()).value!;
  const sessionId = /sessionId=([\w-]+)/.exec(endpoint)![1];
  const sseBatch = await post(
    `/api/mcp/messages?sessionId=${sessionId}`,
    JSON.stringify(Array(65).fill(ping)),
  );
  assert.equal(sseBatch.status, 400);
  await sseBatch.body?.cancel();
  const pings = [1, 2].map((id) => ({ ...ping, id: `batch-${id}` }));
  const sseBatchOk = await post(`/api/mcp/messages?sessionId=${sessionId}`, JSON.stringify(pings));
  assert.equal(sseBatchOk.status, 202);
  await sseBatchOk.body?.cancel();
  const notRpc = await post(`/api/mcp/messages?sessionId=${sessionId}`, '{"hello":1}');
  assert.equal(notRpc.status, 400);
  assert.equal((await notRpc.json()).error.code, -32600);
  // A body not said to be JSON in UTF-8 is refused on both transports, and nothing runs.
  for (const path of ["/api/mcp", `/api/mcp/messages?sessionId=${sessionId}`]) {
    for (const type of ["text/plain", "application/json; charset=latin1", "multipart/form-data"]) {
      const call = { jsonrpc: "2.0", id: "typed", method: "ping" };
      const refused = await post(path, JSON.stringify(call), { "content-type": type });
      assert.equal(refused.status, 415, `${path} ${type}`);
      assert.match((await refused.json()).error.message, /^Unsupported Media Type: /);
    }
  }
  assert.equal(stack.sidecar.sessions.size, 1);
  await events.cancel();
});

Deno.test("MCP: failed sign-ins count against the MCP client's address, not the relayer's loopback", async () => {
  // A directory on a network, whose failed look-ups are limited.
  const directory = new MemoryAccountDirectory({ cacheable: true });
  await using stack = await startMcpStack({
    relayer: { trustProxy: true, authFailuresPerMinute: 3, directory },
  });
  const owner = await stack.test.newCaller();
  const guess = (i: number) => ({
    authorization: `Bearer ${i.toString(16).padStart(64, "0")}`,
    "x-svc-account-id": owner.accountId,
    "x-forwarded-for": "203.0.113.9",
  });
  const statuses = [];
  for (let i = 1; i <= 5; i++) {
    const refused = await fetch(`${stack.url}/api/mcp`, initializeRequest(guess(i)));
    statuses.push(refused.status);
    if (refused.status === 429) assert.match(refused.headers.get("retry-after") ?? "", /^\d+$/);
    await refused.body?.cancel();
  }
  assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
  // A key new to this machine still signs in from loopback.
  const fresh = await stack.test.newCaller();
  const opened = await fetch(`${stack.url}/api/mcp`, initializeRequest(stack.auth(fresh)));
  assert.equal(opened.status, 200);
  await opened.body?.cancel();
});

Deno.test("MCP: without SVC_TRUST_PROXY a spoofed x-forwarded-for does not evade limits", async () => {
  await using stack = await startMcpStack({ limits: { maxNewPerAddressPerMinute: 2 } });
  const caller = await stack.test.newCaller();
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    const opened = await openSession(
      stack.url,
      stack.auth(caller, { "x-forwarded-for": `203.0.113.${i}` }),
    );
    statuses.push(opened.status);
  }
  assert.deepEqual(statuses, [200, 200, 429]);
});

Deno.test("MCP: an initialize in a batch is refused before a session is opened or counted", async () => {
  await using stack = await startMcpStack({ limits: { maxNewPerAddressPerMinute: 2 } });
  const caller = await stack.test.newCaller();
  const alone = initializeRequest(stack.auth(caller));
  const initialize = JSON.parse(alone.body as string);
  for (let i = 0; i < 3; i++) {
    const batched = await fetch(`${stack.url}/api/mcp`, {
      ...alone,
      body: JSON.stringify([initialize, { jsonrpc: "2.0", id: 2, method: "ping" }]),
    });
    assert.equal(batched.status, 400);
    assert.deepEqual((await batched.json()).error, {
      code: -32600,
      message: "An initialize request is sent alone, not in a batch",
    });
  }
  assert.equal(stack.sidecar.sessions.size, 0);
  const statuses = [];
  for (let i = 0; i < 2; i++) {
    statuses.push((await openSession(stack.url, stack.auth(caller))).status);
  }
  assert.deepEqual(statuses, [200, 200], "the address's openings are all left");
});

Deno.test("MCP: an SSE client that disconnects frees its session slot", async () => {
  await using stack = await startMcpStack();
  const client = await stack.connect(await stack.test.newCaller(), { sse: true });
  assert.equal(stack.sidecar.sessions.size, 1);
  await client.close();
  for (let i = 0; i < 200 && stack.sidecar.sessions.size > 0; i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(stack.sidecar.sessions.size, 0);
});

Deno.test("sponsor routes run owner-signed ledger transactions through the sidecar", async () => {
  const kv = await Deno.openKv(":memory:");
  const ledger = new LocalLedger(kv);
  await using stack = await startMcpStack({ sponsor: ledger });
  const post = async (path: string, body: unknown) => {
    const response = await fetch(stack.url + path, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { "content-type": "application/json" },
    });
    return { status: response.status, body: await response.json() };
  };
  const owner = await generateKeyPair();
  const sender = addressOf(owner.publicKey);
  const sponsored = await post("/sponsor", {
    transactionKind: encodeKind({ kind: "create_account" }).toBase64(),
    sender,
  });
  assert.equal(sponsored.status, 200);
  const { digest, bytes } = sponsored.body;
  assert.equal(JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(bytes))).sender, sender);

  const forged = await post("/sponsor/execute", {
    digest,
    signature: signDigest(await generateKeyPair(), digest),
  });
  assert.deepEqual([forged.status, forged.body.code, forged.body.reason], [
    401,
    "unauthorized",
    "bad_signature",
  ]);
  const signature = signDigest(owner, digest);
  const executed = await post("/sponsor/execute", { digest, signature });
  assert.equal(executed.status, 200);
  assert.equal(executed.body.digest, digest);
  assert.equal(executed.body.effects.kind, "create_account");
  assert.equal((await ledger.accountOf(sender))?.id, executed.body.effects.account_id);

  const replayed = await post("/sponsor/execute", { digest, signature });
  assert.deepEqual([replayed.status, replayed.body.reason], [409, "replayed"]);
  const malformed = await post("/sponsor", { transactionKind: "not base64!", sender });
  assert.equal(malformed.status, 400);
  const unknownKind = await post("/sponsor", {
    transactionKind: new TextEncoder().encode('{"kind":"mint"}').toBase64(),
    sender,
  });
  assert.deepEqual([unknownKind.status, unknownKind.body.reason], [400, "malformed"]);
  kv.close();
});
