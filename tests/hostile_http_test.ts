/**
 * Hostile clients against a real HTTP server (`Deno.serve` on a free port, the relayer's
 * handler): truncated bodies, slow bodies, bodies the budget has no room for, and floods of
 * failed authentications. Requests are written by hand over TCP where a client library would
 * not misbehave the way an attacker does.
 */
import assert from "node:assert/strict";
import { generateKeyPair } from "@svc/util/keys";
import { signRequest } from "../src/auth/signing.ts";
import { createLogger } from "../src/log.ts";
import type { RelayerOptions } from "../src/relayer.ts";
import { MemoryAccountDirectory } from "../src/backends/memory.ts";
import { type Caller, startTestRelayer, type TestRelayer } from "./fixtures.ts";

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

interface Served extends AsyncDisposable {
  t: TestRelayer;
  port: number;
  /** The warn and error lines the relayer logged. */
  problems: string[];
  /** Resolves once the server has answered (or given up on) `count` requests in all. */
  answered(count: number): Promise<void>;
}

async function serveRelayer(overrides: Partial<RelayerOptions> = {}): Promise<Served> {
  const problems: string[] = [];
  const logger = createLogger("warn", (line) => problems.push(line));
  // Raw clients send `Host: 127.0.0.1`, which the MCP routes must accept.
  const t = await startTestRelayer({ logger, allowedHosts: ["127.0.0.1"], ...overrides });
  let finished = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request, info) => t.relayer.handler(request, info).finally(() => finished++),
  );
  return {
    t,
    port: server.addr.port,
    problems,
    async answered(count) {
      for (let i = 0; finished < count; i++) {
        if (i === 1000) throw new Error(`${finished} of ${count} requests answered`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await t[Symbol.asyncDispose]();
    },
  };
}

interface RawResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A connection on which a request is written by hand. */
class RawClient {
  #conn: Deno.Conn;
  #closed = false;
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  static async open(port: number): Promise<RawClient> {
    return new RawClient(await Deno.connect({ hostname: "127.0.0.1", port }));
  }

  /** Writes a request head declaring `contentLength`, with `headers`, then `bodyStart`. */
  async send(
    method: string,
    path: string,
    headers: Record<string, string>,
    contentLength: number,
    bodyStart: string | Uint8Array,
  ): Promise<void> {
    const lines = [
      `${method} ${path} HTTP/1.1`,
      "host: 127.0.0.1",
      "content-type: application/json",
      `content-length: ${contentLength}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    await this.write(encoder.encode(lines.join("\r\n") + "\r\n\r\n"));
    await this.write(typeof bodyStart === "string" ? encoder.encode(bodyStart) : bodyStart);
  }

  async write(bytes: Uint8Array): Promise<void> {
    let written = 0;
    while (written < bytes.length) written += await this.#conn.write(bytes.subarray(written));
  }

  /** Stops sending (the body stays short of its declared length), still able to read. */
  closeWrite(): Promise<void> {
    return this.#conn.closeWrite();
  }

  /** The response, or an error if none is complete within `timeoutMs`. */
  async response(timeoutMs = 15_000): Promise<RawResponse> {
    const timer = setTimeout(() => this.close(), timeoutMs);
    const buffer = new Uint8Array(64 * 1024);
    let received = new Uint8Array(0);
    try {
      while (true) {
        const text = new TextDecoder().decode(received);
        const end = text.indexOf("\r\n\r\n");
        if (end >= 0) {
          const [statusLine, ...headerLines] = text.slice(0, end).split("\r\n");
          const headers = new Headers(headerLines.map((l) => {
            const colon = l.indexOf(":");
            return [l.slice(0, colon).trim(), l.slice(colon + 1).trim()] as [string, string];
          }));
          const length = Number(headers.get("content-length"));
          const body = received.subarray(encoder.encode(text.slice(0, end + 4)).length);
          if (body.length >= length) {
            return {
              status: Number(statusLine.split(" ")[1]),
              headers,
              body: JSON.parse(new TextDecoder().decode(body.subarray(0, length))),
            };
          }
        }
        const n = this.#closed ? null : await this.#conn.read(buffer);
        if (n === null) throw new Error("the connection closed before a whole response");
        const grown = new Uint8Array(received.length + n);
        grown.set(received);
        grown.set(buffer.subarray(0, n), received.length);
        received = grown;
      }
    } catch (error) {
      if (this.#closed) throw new Error(`no response within ${timeoutMs} ms`, { cause: error });
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#conn.close();
  }
}

/** Signed headers for `body` (which the request may then not send in full). */
async function signedHeaders(caller: Caller, method: string, path: string, body: string) {
  return {
    ...(await signRequest({ key: caller.key, method, path, body, nonce: true })),
    "x-account-id": caller.accountId,
  };
}

/** Every route with a request body, signed or public (`Deno.serve` gives GET requests none). */
const BODY_ROUTES: [method: string, path: string, signed: boolean][] = [
  ["POST", "/api/remember", true],
  ["POST", "/api/remember/bulk", true],
  ["POST", "/api/remember/bulk/status", true],
  ["POST", "/api/remember/manual", true],
  ["POST", "/api/recall", true],
  ["POST", "/api/recall/manual", true],
  ["POST", "/api/analyze", true],
  ["POST", "/api/ask", true],
  ["POST", "/api/restore", true],
  ["POST", "/sponsor", false],
  ["POST", "/sponsor/execute", false],
  ["POST", "/api/mcp", false],
  ["POST", "/api/mcp/messages?sessionId=x", false],
];

Deno.test("hostile: a truncated body is a 400 on every signed, sponsor and MCP route, and logs nothing", async () => {
  await using served = await serveRelayer();
  const alice = await served.t.newCaller();
  const intended = JSON.stringify({ query: "x".repeat(5000) });
  for (const [method, path, signed] of BODY_ROUTES) {
    const headers = signed ? await signedHeaders(alice, method, path, intended) : {};
    // Half-closed: the client stops sending and waits for the answer.
    const client = await RawClient.open(served.port);
    await client.send(method, path, headers, intended.length, intended.slice(0, 100));
    await client.closeWrite();
    const answer = await client.response();
    client.close();
    assert.equal(answer.status, 400, `${method} ${path}`);
    // MCP clients read JSON-RPC errors.
    const rpc = answer.body.error as { code?: number } | undefined;
    const code = path.startsWith("/api/mcp") ? rpc?.code : answer.body.code;
    assert.equal(code, path.startsWith("/api/mcp") ? -32000 : "bad_request", `${method} ${path}`);
    // Closed outright: nobody is left to answer, and nothing is logged either.
    const gone = await RawClient.open(served.port);
    await gone.send(method, path, headers, intended.length, intended.slice(0, 100));
    gone.close();
  }
  // The requests of the clients that left end on the server after them.
  await served.answered(2 * BODY_ROUTES.length);
  assert.deepEqual(served.problems, []);
});

Deno.test("hostile: a Host header that names no host is a 400 that logs nothing, not a 500 with the URL", async () => {
  await using served = await serveRelayer();
  const secret = "ab".repeat(32);
  const hosts = ["a b", "localhost:99999", "localhost:abc", "[::1", "localhost:1:2", ":8000"];
  for (const host of hosts) {
    const client = await RawClient.open(served.port);
    try {
      const head =
        `GET /health?token=${secret}&q=my%20bank%20pin HTTP/1.1\r\nhost: ${host}\r\n\r\n`;
      await client.write(encoder.encode(head));
      const { status, body } = await client.response();
      assert.equal(status, 400, host);
      assert.equal(body.code, "bad_request", host);
      assert.match(String(body.error), /Host header does not name a host/);
    } finally {
      client.close();
    }
  }
  await served.answered(hosts.length);
  assert.deepEqual(served.problems, []);
});

Deno.test("hostile: a request refused on its headers is answered without waiting for its body", async () => {
  await using served = await serveRelayer();
  const alice = await served.t.newCaller();
  const stranger = { ...alice, key: await generateKeyPair() };
  const body = JSON.stringify({ query: "x".repeat(2 * MiB - 20) });
  const stale = {
    ...(await signRequest({
      key: alice.key,
      method: "POST",
      path: "/api/recall",
      body,
      timestamp: Math.floor(Date.now() / 1000) - 600,
    })),
  };
  const cases: [string, Record<string, string>, string][] = [
    ["unknown key", await signedHeaders(stranger, "POST", "/api/recall", body), "unknown_key"],
    ["stale timestamp", stale, "stale_timestamp"],
    ["no signature", {}, "missing_headers"],
  ];
  for (const [name, headers, reason] of cases) {
    const client = await RawClient.open(served.port);
    // Declares 2 MiB and sends none of it.
    await client.send("POST", "/api/recall", headers, body.length, "");
    const answer = await client.response();
    client.close();
    assert.equal(answer.status, 401, name);
    assert.equal(answer.body.reason, reason, name);
  }
});

/**
 * A remember of 2 MiB from `alice` whose body stops after its first byte (`slow`, still open),
 * then another of the same size: the answer to the second, which the first leaves no room for.
 */
async function secondLargeBody(served: Served, alice: Caller) {
  const path = "/api/remember";
  const body = JSON.stringify({ text: "x".repeat(2 * MiB - 100) });
  const slow = await RawClient.open(served.port);
  await slow.send("POST", path, await signedHeaders(alice, "POST", path, body), body.length, "{");
  const refused = await RawClient.open(served.port);
  await refused.send("POST", path, await signedHeaders(alice, "POST", path, body), body.length, "");
  const answer = await refused.response();
  refused.close();
  return { path, body, slow, answer };
}

Deno.test("hostile: slow bodies time out with 408 and their budget is given back; past the budget, 429 at once", async () => {
  await using served = await serveRelayer({
    bodyTimeoutMs: 1000,
    bodyBudgetPerAddressBytes: 3 * MiB,
  });
  const alice = await served.t.newCaller();
  // The address's budget is held by the slow body: another large one is refused unread...
  const { path, body, slow, answer: tooMany } = await secondLargeBody(served, alice);
  assert.equal(tooMany.status, 429);
  assert.equal(tooMany.body.code, "rate_limited");
  assert.equal(tooMany.headers.get("retry-after"), String(tooMany.body.retry_after_seconds));
  // ...while small requests from the same address still find room.
  const recall = await served.t.relayer.handler(
    new Request(`http://127.0.0.1:${served.port}/api/recall`, {
      method: "POST",
      headers: {
        ...(await signedHeaders(alice, "POST", "/api/recall", '{"query":"x"}')),
        "content-type": "application/json",
      },
      body: '{"query":"x"}',
    }),
    { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 } },
  );
  assert.equal(recall.status, 200);

  const timedOut = await slow.response();
  slow.close();
  assert.equal(timedOut.status, 408);
  assert.equal(timedOut.body.code, "request_timeout");

  // Given back: a body of the same size is read in full now.
  const whole = await RawClient.open(served.port);
  await whole.send("POST", path, await signedHeaders(alice, "POST", path, body), body.length, body);
  const accepted = await whole.response();
  whole.close();
  assert.equal(accepted.status, 400, "read, then refused by validation (text over 1 MiB)");
  assert.match(String(accepted.body.error), /text/);
  assert.deepEqual(served.problems, []);
});

Deno.test("hostile: slow MCP bodies from a client without a key leave the signed routes room, from the same address too", async () => {
  await using served = await serveRelayer({ bodyTimeoutMs: 5000 });
  const alice = await served.t.newCaller();
  // 64 KiB bodies, sent one byte at a time, on more connections than the budget takes.
  const slow: RawClient[] = [];
  try {
    for (let i = 0; i < 160; i++) {
      const client = await RawClient.open(served.port);
      await client.send("POST", "/api/mcp", {}, 64 * 1024, "{");
      slow.push(client);
    }
    const refused = await RawClient.open(served.port);
    await refused.send("POST", "/api/mcp", {}, 64 * 1024, "");
    assert.equal((await refused.response()).status, 429, "half the address's budget is public");
    refused.close();
    // A signed recall from the same address still finds room.
    const body = '{"query":"x"}';
    const recall = await served.t.relayer.handler(
      new Request(`http://127.0.0.1:${served.port}/api/recall`, {
        method: "POST",
        headers: {
          ...(await signedHeaders(alice, "POST", "/api/recall", body)),
          "content-type": "application/json",
        },
        body,
      }),
      { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 1 } },
    );
    assert.equal(recall.status, 200);
    await recall.body?.cancel();
  } finally {
    for (const client of slow) client.close();
  }
});

Deno.test("hostile: past the shared body budget, 503 server_busy at once, and nothing is logged", async () => {
  await using served = await serveRelayer({ bodyTimeoutMs: 1000, bodyBudgetBytes: 3 * MiB });
  const { slow, answer: busy } = await secondLargeBody(served, await served.t.newCaller());
  assert.equal(busy.status, 503);
  assert.equal(busy.body.code, "server_busy");
  assert.equal(busy.headers.get("retry-after"), String(busy.body.retry_after_seconds));
  assert.equal((await slow.response()).status, 408);
  slow.close();
  assert.deepEqual(served.problems, []);
});

/** Every entry of `kv`, as text. */
async function snapshot(kv: Deno.Kv): Promise<string> {
  const entries = [];
  for await (const entry of kv.list({ prefix: [] })) entries.push(entry);
  return JSON.stringify(
    entries,
    (_key, value) => typeof value === "bigint" ? String(value) : value,
  );
}

/** Signed recalls to `served` as if from the address `from` (behind a trusted proxy). */
function recallsOf(served: Served) {
  const url = `http://127.0.0.1:${served.port}`;
  return async (caller: Caller, from: string, extra: Record<string, string> = {}) => {
    const body = '{"query":"anything"}';
    const response = await fetch(`${url}/api/recall`, {
      method: "POST",
      headers: {
        ...(await signedHeaders(caller, "POST", "/api/recall", body)),
        "content-type": "application/json",
        "x-forwarded-for": from,
        ...extra,
      },
      body,
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };
}

Deno.test("hostile: failed authentications write nothing; past the limit only keys not signed in lately wait, never a working key", async () => {
  // A directory on a network (Sui's), whose failed look-ups the limit is there for.
  const directory = new MemoryAccountDirectory({ cacheable: true });
  await using served = await serveRelayer({ trustProxy: true, directory });
  const { t } = served;
  const alice = await t.newCaller();
  const bob = await t.newCaller();
  const retired = await t.newCaller({ active: false });
  const stranger = { ...alice, key: await generateKeyPair() };
  const recall = recallsOf(served);
  const attacker = "203.0.113.9";
  // Successes never count.
  for (let i = 0; i < 35; i++) assert.equal((await recall(alice, attacker)).status, 200);
  // The access log writes its entries up to a tenth of a second later: both snapshots hold all.
  await t.relayer.accessLog.flush();
  const before = await snapshot(t.kv);
  // Refused before any look-up or signature check: these cost nothing and count for nothing, as
  // a web page's requests without credentials.
  const free: [Caller, Record<string, string>, number][] = [
    [alice, { "x-timestamp": String(Math.floor(Date.now() / 1000) - 3600) }, 401],
    [alice, { "x-signature": "not hex" }, 401],
    [retired, {}, 403],
  ];
  for (let i = 0; i < 60; i++) {
    const [caller, extra, status] = free[i % free.length];
    assert.equal((await recall(caller, attacker, extra)).status, status, `free failure ${i}`);
  }
  await t.relayer.accessLog.flush();
  assert.equal(await snapshot(t.kv), before, "no failed authentication wrote to the store");
  assert.equal((await recall(bob, attacker)).status, 200, "nothing counted: a new key is served");
  await t.relayer.accessLog.flush();
  const served200 = await snapshot(t.kv);
  // A key looked up and not found, a signature checked and wrong: these count.
  const costly: [Caller, Record<string, string>][] = [
    [stranger, {}],
    [bob, { "x-signature": "ab".repeat(64) }],
  ];
  for (let i = 0; i < 30; i++) {
    const [caller, extra] = costly[i % costly.length];
    assert.equal((await recall(caller, attacker, extra)).status, 401, `failure ${i}`);
  }
  await t.relayer.accessLog.flush();
  assert.equal(await snapshot(t.kv), served200, "no failed authentication wrote to the store");

  const limited = await recall(stranger, attacker);
  assert.equal(limited.status, 429);
  assert.equal(limited.body.code, "rate_limited");
  const wait = Number(limited.headers.get("retry-after"));
  assert.ok(wait >= 1 && wait <= 60, String(wait));
  assert.equal(limited.body.retry_after_seconds, wait);
  // A key that has not signed in lately waits at this address, and only there...
  const carol = await t.newCaller();
  assert.equal((await recall(carol, attacker)).status, 429);
  assert.equal((await recall(carol, "198.51.100.2")).status, 200);
  assert.equal((await recall(stranger, "198.51.100.2")).status, 401);
  // ...but a key that signed in lately is checked whatever is forged under its name: forged
  // requests are refused one by one, and its own are served throughout.
  for (let i = 0; i < 60; i++) {
    const forged = await recall(alice, attacker, { "x-signature": "ab".repeat(64) });
    assert.equal(forged.status, 401, `forged ${i}`);
    if (i % 10 === 0) assert.equal((await recall(alice, attacker)).status, 200, `genuine ${i}`);
  }
  assert.equal((await recall(carol, attacker)).status, 200, "carol signed in since, elsewhere");
  // Naming her key with another account each time would be a new look-up each time: it waits.
  const elsewhere = { "x-account-id": "0x" + crypto.getRandomValues(new Uint8Array(32)).toHex() };
  assert.equal((await recall(alice, attacker, elsewhere)).status, 429);
  assert.equal((await recall(alice, attacker)).status, 200, "her own account: served");
  assert.deepEqual(served.problems, []);
});

Deno.test("hostile: on a local ledger no failure refuses anyone: forged requests naming a key, unknown keys, and a new key at the same address", async () => {
  await using served = await serveRelayer({ trustProxy: true });
  const { t } = served;
  const alice = await t.newCaller();
  const stranger = { ...alice, key: await generateKeyPair() };
  const recall = recallsOf(served);
  const here = "127.0.0.1";
  for (let i = 0; i < 40; i++) {
    assert.equal((await recall(alice, here, { "x-signature": "ab".repeat(64) })).status, 401);
    assert.equal((await recall(stranger, here)).status, 401);
  }
  assert.equal((await recall(alice, here)).status, 200, "the named key");
  const fresh = await t.newCaller();
  assert.equal((await recall(fresh, here)).status, 200, "a key that never signed in");
  assert.deepEqual(served.problems, []);
});
