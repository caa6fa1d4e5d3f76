import assert from "node:assert/strict";
import type { Sponsor } from "../backends/types.ts";
import { silentLogger } from "../log.ts";
import { healthProof } from "./health.ts";
import { createSidecar } from "./server.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";
const BASE = "http://localhost:9000";

/** A sidecar that closes its sessions and timer when the test's `await using` ends. */
function sidecar(sponsor?: Sponsor) {
  const server = createSidecar({
    token: TOKEN,
    relayerUrl: "http://relayer.test",
    sponsor,
    logger: silentLogger,
    fetch: () => Promise.reject(new Error("no relayer in this test")),
  });
  return Object.assign(server, { [Symbol.asyncDispose]: () => server.close() });
}

function send(path: string, init: RequestInit = {}, token: string | null = TOKEN) {
  const headers = new Headers(init.headers);
  if (token !== null) headers.set("x-sidecar-token", token);
  return new Request(`${BASE}${path}`, { ...init, headers });
}

Deno.test("sidecar: without the relayer's token every path is 403, before routing", async () => {
  await using server = sidecar();
  for (const token of [null, "", TOKEN.slice(1), TOKEN + "0"]) {
    for (const path of ["/health", "/api/mcp", "/nope"]) {
      const response = await server.handler(
        send(path, { headers: { "x-request-id": "relayer-7" } }, token),
      );
      assert.equal(response.status, 403);
      assert.equal(response.headers.get("x-request-id"), "relayer-7");
      assert.deepEqual(await response.json(), {
        error: "Only the relayer may call the sidecar",
        code: "forbidden",
        request_id: "relayer-7",
      });
    }
  }
});

Deno.test("sidecar: health proves the token; unknown paths are 404", async () => {
  await using server = sidecar();
  const health = await server.handler(send("/health", { headers: { "x-health-nonce": "n1" } }));
  assert.deepEqual(await health.json(), {
    status: "ok",
    sessions: 0,
    proof: await healthProof(TOKEN, "n1"),
  });
  const missing = await server.handler(send("/nope"));
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error, "No route for /nope");
});

Deno.test("sidecar: sponsor routes need a sponsor, JSON and their fields", async () => {
  await using bare = sidecar();
  const json = { "content-type": "application/json" };
  const none = await bare.handler(send("/sponsor", { method: "POST", body: "{}", headers: json }));
  assert.equal(none.status, 501);
  const refused = await none.json();
  assert.equal(refused.code, "not_implemented");
  assert.match(refused.error, /no sponsor is configured .*SVC_SPONSOR_PRIVATE_KEY/);

  const calls: unknown[] = [];
  const sponsor: Sponsor = {
    name: "fake",
    sponsor(kind, sender) {
      calls.push([new TextDecoder().decode(kind), sender]);
      return Promise.resolve({ bytes: new Uint8Array([1, 2]), digest: "ab" });
    },
    execute(digest, signature) {
      calls.push([digest, signature]);
      return Promise.resolve({ digest });
    },
  };
  await using server = sidecar(sponsor);
  const sponsored = await server.handler(send("/sponsor", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ transactionKind: btoa("{}"), sender: "0x1" }),
  }));
  assert.deepEqual(await sponsored.json(), { bytes: "AQI=", digest: "ab" });
  const executed = await server.handler(send("/sponsor/execute", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ digest: "ab", signature: "sig" }),
  }));
  assert.deepEqual(await executed.json(), { digest: "ab" });
  assert.deepEqual(calls, [["{}", "0x1"], ["ab", "sig"]]);
  const missing = await server.handler(send("/sponsor/execute", {
    method: "POST",
    headers: json,
    body: "{}",
  }));
  assert.equal(missing.status, 400);
  assert.match((await missing.json()).error, /digest/);
  const big = await server.handler(send("/sponsor", {
    method: "POST",
    headers: json,
    body: JSON.stringify({ pad: "x".repeat(64 * 1024) }),
  }));
  assert.equal(big.status, 413);
  await big.body?.cancel();
  const wrongType = await server.handler(send("/sponsor", { method: "POST", body: "{}" }));
  assert.equal(wrongType.status, 415);
  await wrongType.body?.cancel();
});
