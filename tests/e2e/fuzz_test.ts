/**
 * Fuzzing with fast-check: no input makes the relayer or the MCP sidecar answer 5xx, answer an
 * error without its JSON body (§5.1 on the relayer's routes, JSON-RPC or §5.1 on MCP's), or
 * hang. Every route of the relayer's tables is fuzzed unsigned, signed with valid signatures
 * over fuzzed bodies, paths and queries, and signed with fuzzed headers and raw bodies; every
 * MCP endpoint over raw HTTP, and every MCP tool with fuzzed arguments. Requests go to the
 * handlers in-process (the relayer on in-memory backends, as `mcp_fixtures.ts` links it to its
 * sidecar); signatures come from the project's client, so a change of format flows through.
 *
 * The seed is printed; `FUZZ_SEED` replays a run and `FUZZ_RUNS` multiplies the cases.
 */
import assert from "node:assert/strict";
import fc from "fast-check";
import { signRequest } from "../../src/auth/signing.ts";
import {
  answer,
  anyJson,
  assertMcpAnswer,
  assertRelayerAnswer,
  clientAddress,
  expand,
  headerValue,
  pathOf,
  query,
  rawBody,
  relayerRoutes,
  rpcMessages,
  runs,
  SEED,
  segment,
  Tally,
} from "./fuzz_fixtures.ts";
import {
  bodyOf,
  buildRequest,
  JOB,
  openSession,
  target,
  toolArguments,
  TOOLS,
  toSidecar,
  UNEXPECTED,
} from "./fuzz_target.ts";

console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} replays it)`);

const ROUTES = relayerRoutes();
const SIGNED = ROUTES.filter((r) => r.signed);
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];

const isMcp = (url: string) => new URL(url).pathname.startsWith("/api/mcp");

const FUZZED_HEADERS = [
  "content-type",
  "x-public-key",
  "x-signature",
  "x-timestamp",
  "x-nonce",
  "x-account-id",
  "x-delegate-key",
  "x-request-id",
  "x-forwarded-for",
  "authorization",
  "x-svc-account-id",
  "x-svc-namespace",
  "mcp-session-id",
  "origin",
  "host",
  "accept",
  "content-encoding",
];

Deno.test("fuzz: unsigned and badly signed requests to every relayer route never answer 5xx", async () => {
  await using t = await target();
  const tally = new Tally();
  const hit = new Set<string>();
  const request = fc.constantFrom(...ROUTES).chain((route) =>
    fc.record({
      route: fc.constant(route),
      method: fc.oneof({ weight: 5, arbitrary: fc.constant("") }, fc.constantFrom(...METHODS)),
      path: pathOf(route.pattern),
      suffix: fc.oneof({ weight: 5, arbitrary: fc.constant("") }, segment.map((s) => `/${s}`)),
      query,
      headers: fc.dictionary(fc.constantFrom(...FUZZED_HEADERS), headerValue, { maxKeys: 5 }),
      body: fc.oneof(rawBody, bodyOf(route).map((b) => JSON.stringify(b) ?? "")),
      json: fc.boolean(),
      info: clientAddress,
    })
  );
  await fc.assert(
    fc.asyncProperty(request, async (c) => {
      const method = c.method || c.route.method;
      const headers = new Headers();
      if (c.json) headers.set("content-type", "application/json");
      for (const [name, value] of Object.entries(c.headers)) headers.set(name, value);
      const url = t.stack.url + c.path + c.suffix + c.query;
      const req = buildRequest(url, {
        method,
        headers,
        body: ["GET", "HEAD"].includes(method) ? undefined : t.fill(c.body),
      });
      if (!req) return;
      hit.add(`${c.route.method} ${c.route.pattern}`);
      const what = `${method} ${url}`;
      const a = await answer(() => t.stack.test.relayer.handler(req, c.info), what);
      tally.add(a);
      (isMcp(url) ? assertMcpAnswer : assertRelayerAnswer)(a, what);
    }),
    { seed: SEED, numRuns: runs(500) },
  );
  console.log(`unsigned: ${tally}`);
  assert.deepEqual([...hit].sort(), ROUTES.map((r) => `${r.method} ${r.pattern}`).sort());
});

Deno.test("fuzz: validly signed requests with fuzzed bodies, paths and queries never answer 5xx", async () => {
  await using t = await target();
  const tally = new Tally();
  const passed = new Map<string, number>();
  const route = fc.constantFrom(...SIGNED);
  const request = route.chain((r) =>
    fc.record({
      route: fc.constant(r),
      path: fc.oneof(
        { weight: 3, arbitrary: pathOf(r.pattern, fc.constant(JOB)) },
        pathOf(r.pattern),
      ),
      query,
      body: bodyOf(r),
      info: clientAddress,
    })
  );
  await fc.assert(
    fc.asyncProperty(request, async (c) => {
      t.info = c.info;
      const path = t.fill(c.path) + c.query;
      const method = c.route.method as "GET" | "POST";
      await t.client.request(method, path, t.fill(c.body)).catch(() => {});
      const a = t.take();
      if (!a) return; // the client refused to send it (an invalid URL)
      tally.add(a);
      assertRelayerAnswer(a, `${method} ${path} ${JSON.stringify(c.body)?.slice(0, 200)}`);
      t.note(a);
      const key = `${c.route.method} ${c.route.pattern}`;
      if (a.status !== 401) passed.set(key, (passed.get(key) ?? 0) + 1);
    }),
    { seed: SEED, numRuns: runs(700) },
  );
  console.log(`signed: ${tally}`);
  assert.ok(tally.count(200, 300) > 0, "some requests succeed");
  // The signatures were valid: every signed route was reached past authentication.
  for (const r of SIGNED) {
    assert.ok(passed.get(`${r.method} ${r.pattern}`), `${r.method} ${r.pattern} was authenticated`);
  }
});

type Mutation =
  | { kind: "delete" }
  | { kind: "set"; value: string }
  | { kind: "upper" | "flip" | "pad" | "skew" | "other" | "own" };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({ kind: "delete" as const }),
  headerValue.map((value) => ({ kind: "set" as const, value })),
  fc.constantFrom("upper", "flip", "pad", "skew", "other", "own").map((kind) =>
    ({ kind }) as Mutation
  ),
);

Deno.test("fuzz: signed requests with fuzzed headers and raw bodies never answer 5xx", async () => {
  await using t = await target();
  const tally = new Tally();
  const names = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...FUZZED_HEADERS) },
    fc.stringMatching(/^x-[a-z-]{1,20}$/),
  );
  const route = fc.constantFrom(...SIGNED);
  const request = route.chain((r) =>
    fc.record({
      route: fc.constant(r),
      path: pathOf(r.pattern, fc.constant(JOB)),
      body: bodyOf(r),
      raw: fc.option(rawBody, { freq: 3 }),
      contentType: fc.oneof(fc.constant("application/json"), headerValue),
      mutations: fc.array(fc.tuple(names, mutation), { minLength: 1, maxLength: 3 }),
      info: clientAddress,
    })
  );
  const apply = (headers: Headers, name: string, m: Mutation) => {
    const value = headers.get(name) ?? "";
    const flipped = value.slice(0, -1) + (value.endsWith("0") ? "1" : "0");
    const now = Math.floor(Date.now() / 1000);
    const replacement: Record<string, string | null> = {
      delete: null,
      upper: value.toUpperCase(),
      flip: flipped,
      pad: ` ${value}0 `,
      skew: String(now + (value.length % 2 ? 301 : -301)),
      other: name === "x-account-id"
        ? t.other.accountId
        : name === "x-delegate-key"
        ? t.other.key.privateKey
        : t.other.key.publicKey,
      own: t.caller.key.privateKey,
      set: m.kind === "set" ? m.value : "",
    };
    try {
      const next = replacement[m.kind];
      if (next === null) headers.delete(name);
      else headers.set(name, next);
    } catch {
      // not a value a client can send
    }
  };
  await fc.assert(
    fc.asyncProperty(request, async (c) => {
      t.info = c.info;
      t.mutate = (headers) => c.mutations.forEach(([name, m]) => apply(headers, name, m));
      const path = t.fill(c.path);
      const method = c.route.method as "GET" | "POST";
      try {
        if (c.raw === null) {
          await t.client.request(method, path, t.fill(c.body)).catch(() => {});
        } else {
          const raw = method === "GET" ? new Uint8Array() : c.raw;
          const headers = new Headers(
            await signRequest({
              key: t.caller.key,
              method,
              path,
              body: raw,
              nonce: true,
              accountId: t.caller.accountId,
            }),
          );
          headers.set("content-type", c.contentType);
          const req = buildRequest(t.stack.url + path, {
            method,
            headers,
            body: method === "GET" ? undefined : raw,
          });
          if (req) await t.send(req);
        }
      } finally {
        t.mutate = undefined;
      }
      const a = t.take();
      if (!a) return;
      tally.add(a);
      assertRelayerAnswer(a, `${method} ${path} ${JSON.stringify(c.mutations)}`);
    }),
    { seed: SEED, numRuns: runs(400) },
  );
  console.log(`fuzzed headers: ${tally}`);
});

// ---- MCP -----------------------------------------------------------------------------------

Deno.test("fuzz: every MCP tool called with fuzzed arguments answers a result or an error", async () => {
  await using t = await target();
  const session = await openSession(t, t.caller);
  const tally = new Tally();
  const succeeded = new Set<string>();
  let id = 1;
  const call = fc.record({
    name: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...TOOLS) }, fc.string()),
    arguments: fc.oneof({ weight: 8, arbitrary: toolArguments }, anyJson),
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constant("tools/call") },
      fc.constantFrom("tools/list", "ping", "resources/list", "prompts/list", "initialize"),
      fc.string(),
    ),
  });
  await fc.assert(
    fc.asyncProperty(call, async (c) => {
      const requestId = id++;
      const message = {
        jsonrpc: "2.0",
        id: requestId,
        method: c.method,
        params: { name: c.name, arguments: t.fill(c.arguments) },
      };
      const headers = new Headers({
        ...t.stack.auth(t.caller),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
      });
      const what = JSON.stringify(message).slice(0, 300);
      const a = await answer(
        () =>
          t.stack.sidecar.handler(
            toSidecar(t, "/api/mcp", { method: "POST", headers, body: JSON.stringify(message) }),
          ),
        what,
        (text) => text.includes(`"id":${requestId}`) && text.endsWith("\n\n"),
      );
      tally.add(a);
      assertMcpAnswer(a, what);
      const reply = rpcMessages(a).find((m) => m.id === requestId);
      // Without a reply, the request was refused before MCP read it (too large): a 4xx.
      if (!reply) return assert.ok(a.status >= 400, `${what}: ${a.status} ${a.text.slice(0, 200)}`);
      if (reply.error) {
        const error = reply.error as { code: unknown; message: unknown };
        assert.equal(typeof error.code, "number", what);
        assert.equal(typeof error.message, "string", what);
        return;
      }
      const result = reply.result as { content?: { text?: string }[]; isError?: boolean };
      if (c.method !== "tools/call") return;
      assert.ok(Array.isArray(result.content), `${what}: content`);
      const text = result.content.map((part) => part.text ?? "").join("");
      if (result.isError) assert.doesNotMatch(text, UNEXPECTED, what);
      else succeeded.add(c.name);
    }),
    { seed: SEED, numRuns: runs(300) },
  );
  console.log(`MCP tools: ${tally}; succeeded: ${[...succeeded].sort().join(", ")}`);
  assert.deepEqual([...succeeded].filter((n) => TOOLS.includes(n)).sort(), [...TOOLS].sort());
});

/** The MCP endpoints, as method and path. */
const MCP_ENDPOINTS = [
  ["POST", "/api/mcp"],
  ["GET", "/api/mcp"],
  ["DELETE", "/api/mcp"],
  ["GET", "/api/mcp/sse"],
  ["POST", "/api/mcp/messages"],
] as const;

Deno.test("fuzz: raw MCP requests, to the sidecar and through the relayer, never answer 5xx", async () => {
  await using t = await target();
  const session = await openSession(t, t.caller);
  const tally = new Tally();
  const credential = <T>(valid: T, other: T) =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(valid) },
      fc.constant(other),
      fc.constant(undefined),
      headerValue,
    );
  const rpc = fc.record({
    jsonrpc: fc.oneof({ weight: 5, arbitrary: fc.constant("2.0") }, anyJson),
    id: fc.oneof(fc.nat(), fc.string(), fc.constant(null), anyJson),
    method: fc.constantFrom(
      "initialize",
      "tools/list",
      "tools/call",
      "ping",
      "notifications/initialized",
      "notifications/cancelled",
      "x/unknown",
    ),
    params: fc.oneof(toolArguments, fc.record({ name: fc.constantFrom(...TOOLS) }), anyJson),
  }, { requiredKeys: ["jsonrpc", "method"] });
  const request = fc.record({
    via: fc.constantFrom("sidecar", "relayer"),
    endpoint: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...MCP_ENDPOINTS) },
      fc.tuple(fc.constantFrom(...METHODS), fc.constantFrom(...MCP_ENDPOINTS.map(([, p]) => p))),
    ),
    sessionQuery: fc.oneof(fc.constant(""), fc.constant(`?sessionId=${session}`), query),
    bearer: credential(`Bearer ${t.caller.key.privateKey}`, `Bearer ${t.other.key.privateKey}`),
    account: credential(t.caller.accountId, t.other.accountId),
    sessionId: fc.oneof(fc.constant(undefined), fc.constant(session), headerValue),
    extra: fc.dictionary(
      fc.constantFrom(
        "origin",
        "accept",
        "content-type",
        "x-svc-namespace",
        "mcp-protocol-version",
        "last-event-id",
      ),
      headerValue,
      { maxKeys: 3 },
    ),
    body: fc.oneof(
      { weight: 3, arbitrary: rpc.map((m) => JSON.stringify(m)) },
      fc.array(rpc, { maxLength: 66 }).map((m) => JSON.stringify(m)),
      rawBody,
    ),
    token: fc.oneof({ weight: 8, arbitrary: fc.constant(true) }, fc.constant(false)),
    info: clientAddress,
  });
  await fc.assert(
    fc.asyncProperty(request, async (c) => {
      const headers = new Headers({
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      });
      const set = (name: string, value: string | undefined) => {
        try {
          if (value === undefined) headers.delete(name);
          else headers.set(name, value);
        } catch {
          // not a value a client can send
        }
      };
      set("authorization", c.bearer);
      set("x-svc-account-id", c.account);
      set("mcp-session-id", c.sessionId);
      for (const [name, value] of Object.entries(c.extra)) set(name, value);
      const [method, endpoint] = c.endpoint;
      const path = endpoint + c.sessionQuery;
      const body = ["GET", "HEAD"].includes(method)
        ? undefined
        : typeof c.body === "string"
        ? expand(c.body)
        : c.body;
      const what = `${c.via} ${method} ${path} ${String(c.body).slice(0, 200)}`;
      let send: () => Promise<Response>;
      if (c.via === "relayer") {
        const req = buildRequest(t.stack.url + path, { method, headers, body });
        if (!req) return;
        send = () => t.stack.test.relayer.handler(req, c.info);
      } else {
        const req = buildRequest(`http://127.0.0.1${path}`, { method, headers, body });
        if (!req) return;
        if (c.token) req.headers.set("x-sidecar-token", t.stack.token);
        send = () => t.stack.sidecar.handler(req);
      }
      const a = await answer(send, what);
      tally.add(a);
      assertMcpAnswer(a, what);
    }),
    { seed: SEED, numRuns: runs(300) },
  );
  console.log(`raw MCP: ${tally}`);
  assert.ok(tally.count(200, 300) > 0, "some MCP requests succeed");
});
