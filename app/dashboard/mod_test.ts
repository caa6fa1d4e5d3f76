import assert from "node:assert/strict";
import { silentLogger } from "@svc/relayer/kit";
import { createDashboard } from "./mod.ts";

const ORIGIN = "http://localhost:5173";

function dashboard() {
  const forwarded: Request[] = [];
  const account = {
    id: "0x" + "a".repeat(64),
    owner: "0x" + "b".repeat(64),
    delegate_keys: [],
    active: true,
    created_at: "2026-01-01T00:00:00.000Z",
  };
  const handler = createDashboard({
    relayerUrl: "http://127.0.0.1:8000",
    origin: ORIGIN,
    packageId: "0x" + "c".repeat(64),
    ledger: { accountOf: (owner) => Promise.resolve(owner === account.owner ? account : null) },
    relayer(request) {
      forwarded.push(request);
      const id = request.headers.get("x-request-id") ?? "";
      return Promise.resolve(
        Response.json({ digest: "d" }, { headers: { "x-request-id": id } }),
      );
    },
    logger: silentLogger,
  });
  const get = (path: string, host = "localhost:5173") =>
    handler(new Request(`${ORIGIN}${path}`, { headers: { host } }));
  return { handler, get, forwarded, account };
}

Deno.test("dashboard: every module its scripts import is served", async () => {
  const { get } = dashboard();
  const imported = new Set<string>();
  for await (const entry of Deno.readDir(new URL("./static/", import.meta.url))) {
    if (!entry.name.endsWith(".js")) continue;
    const source = await Deno.readTextFile(new URL(`./static/${entry.name}`, import.meta.url));
    for (const [, name] of source.matchAll(/from "\.\/([\w-]+\.js)"/g)) imported.add(name);
  }
  assert.ok(imported.has("session.js"), [...imported].join(", "));
  for (const name of imported) {
    const response = await get(`/assets/${name}`);
    assert.equal(response.status, 200, name);
    assert.match(response.headers.get("content-type") ?? "", /^text\/javascript/, name);
    await response.body?.cancel();
  }
});

Deno.test("dashboard: pages and assets carry the security headers and a request id", async () => {
  const { get } = dashboard();
  const paths = ["/", "/agents", "/memories", "/connect/mcp", "/assets/app.js", "/assets/app.css"];
  for (const path of [...paths, "/assets/ui.js", "/assets/memories.js", "/assets/wallet.js"]) {
    const response = await get(path);
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.match(response.headers.get("content-security-policy") ?? "", /frame-ancestors 'none'/);
    assert.equal(response.headers.get("cross-origin-opener-policy"), "same-origin");
    assert.ok(response.headers.get("x-request-id"));
    await response.body?.cancel();
  }
  const vendor = await get("/vendor/noble-hashes/blake2.js");
  assert.equal(vendor.status, 200);
  assert.match(vendor.headers.get("content-type") ?? "", /^text\/javascript/);
  await vendor.body?.cancel();
  // ChaCha20-Poly1305 for operator-blind namespaces, and the modules it imports.
  for (const name of ["chacha.js", "_arx.js", "_poly1305.js", "utils.js"]) {
    const cipher = await get(`/vendor/noble-ciphers/${name}`);
    assert.equal(cipher.status, 200, name);
    assert.match(cipher.headers.get("content-type") ?? "", /^text\/javascript/);
    if (name === "chacha.js") assert.match(await cipher.text(), /export const chacha20poly1305/);
    else await cipher.body?.cancel();
  }
  for (const path of ["/vendor/noble-curves/ed25519.js", "/vendor/noble-ciphers/chacha.d.ts"]) {
    const refused = await get(path);
    assert.equal(refused.status, 404, path);
    await refused.body?.cancel();
  }
  const missing = await get("/vendor/noble-hashes/nothing_here.js");
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error, "No such file");
  const outside = await get("/vendor/noble-hashes/../deno.json");
  assert.equal(outside.status, 404);
  // A page with a slash after it goes to the page, its query kept.
  for (const [path, location] of [["/memories/", "/memories"], ["/agents//?x=1", "/agents?x=1"]]) {
    const slashed = await get(path);
    assert.deepEqual([slashed.status, slashed.headers.get("location")], [308, location], path);
  }
  const unknown = await get("/nope");
  const body = await unknown.json();
  assert.equal(unknown.status, 404);
  assert.deepEqual(body, {
    error: "No page at /nope",
    code: "not_found",
    request_id: unknown.headers.get("x-request-id"),
  });
});

Deno.test("dashboard: a loopback address gets the page that moves to the one origin", async () => {
  const { get, handler } = dashboard();
  for (const host of ["127.0.0.1:5173", "[::1]:5173"]) {
    // Its pages: the page moves on (or offers a wallet's backup) in the browser.
    for (const path of ["/connect/mcp?port=1&state=x", "/", "/agents"]) {
      const response = await get(path, host);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("cache-control"), "no-store");
      assert.equal(response.headers.get("referrer-policy"), "no-referrer");
      assert.match(await response.text(), /<script type="module" src="\/assets\/moved.js">/);
    }
    // Its scripts and its API are served as they are; an unknown path is not found.
    const script = await get("/assets/wallet.js", host);
    assert.equal(script.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.match(await script.text(), /export async function loadWallet/);
    assert.equal((await (await get("/api/config", host)).json()).relayer, "http://127.0.0.1:8000");
    assert.equal((await get("/nope", host)).status, 404);
  }
  // At localhost the pages are the dashboard's.
  assert.match(await (await get("/agents")).text(), /\/assets\/app.js/);
  // Posts are not moved.
  const post = await handler(
    new Request(`http://127.0.0.1:5173/sponsor`, {
      method: "POST",
      headers: { host: "127.0.0.1:5173", "content-type": "application/json" },
      body: "{}",
    }),
  );
  assert.equal(post.status, 200);
  await post.body?.cancel();
});

Deno.test("dashboard: config and accounts from the ledger", async () => {
  const { get, account } = dashboard();
  assert.deepEqual(await (await get("/api/config")).json(), {
    relayer: "http://127.0.0.1:8000",
    packageId: "0x" + "c".repeat(64),
    audience: "http://127.0.0.1:8000",
  });
  const found = await get(`/api/account?owner=${account.owner}`);
  assert.deepEqual(await found.json(), { account });
  assert.equal(found.headers.get("cache-control"), "no-store");
  const bad = await get("/api/account?owner=alice");
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error, "owner must be an address");
});

Deno.test("dashboard: sponsored transactions go to the relayer under the same request id", async () => {
  const { handler, forwarded } = dashboard();
  const info = { remoteAddr: { transport: "tcp" as const, hostname: "127.0.0.1", port: 1 } };
  const response = await handler(
    new Request(`${ORIGIN}/sponsor`, {
      method: "POST",
      headers: { "content-type": "application/json", host: "localhost:5173" },
      body: '{"transactionKind":"e30=","sender":"0x1"}',
    }),
    info,
  );
  assert.deepEqual(await response.json(), { digest: "d" });
  assert.equal(forwarded.length, 1);
  assert.equal(forwarded[0].headers.get("x-request-id"), response.headers.get("x-request-id"));
  assert.equal(await forwarded[0].text(), '{"transactionKind":"e30=","sender":"0x1"}');
  const wrong = await handler(new Request(`${ORIGIN}/sponsor`, { headers: { host: "localhost" } }));
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "POST");
  await wrong.body?.cancel();
});

Deno.test("dashboard: the owner's signed memory requests and /health go to the relayer as sent", async () => {
  const { handler, forwarded } = dashboard();
  const signedHeaders = {
    host: "localhost:5173",
    "x-public-key": "a".repeat(64),
    "x-signature": "b".repeat(128),
    "x-timestamp": "1767225600",
    "x-nonce": "c".repeat(32),
  };
  const id = "0190a0a0-0000-7000-8000-00000000000a";
  const requests: [string, string, string?][] = [
    ["GET", "/api/memories?namespace=work+notes&limit=20&cursor=abc"],
    ["GET", `/api/memories/${id}`],
    ["DELETE", `/api/memories/${id}`],
    ["DELETE", "/api/memories?namespace=a&confirm=a"],
    ["POST", "/api/recall", '{"query":"diet","namespace":"a"}'],
    ["GET", "/api/namespaces"],
    ["GET", "/api/access-log?limit=5"],
    ["GET", "/api/blind?namespace=private"],
    ["GET", "/api/blind/namespaces"],
    ["GET", "/api/blind/entries?namespace=private&after=12&limit=1000"],
    ["DELETE", `/api/blind/entries/${id}?namespace=private`],
    ["DELETE", "/api/blind?namespace=private&confirm=private"],
    ["PUT", "/api/blind/keys", '{"namespace":"private","public_key":"ab","wrapped":"AA=="}'],
    ["GET", "/health"],
  ];
  for (const [method, path, body] of requests) {
    const response = await handler(
      new Request(`${ORIGIN}${path}`, {
        method,
        headers: body ? { ...signedHeaders, "content-type": "application/json" } : signedHeaders,
        body,
      }),
    );
    assert.equal(response.status, 200, `${method} ${path}`);
    // What the relayer answers is private: no browser cache keeps it (an erased memory's text).
    assert.equal(response.headers.get("cache-control"), "no-store", `${method} ${path}`);
    await response.body?.cancel();
    const sent = forwarded.at(-1)!;
    const url = new URL(sent.url);
    assert.deepEqual([sent.method, url.pathname + url.search], [method, path]);
    assert.equal(sent.headers.get("x-signature"), "b".repeat(128));
    assert.equal(sent.headers.get("x-nonce"), "c".repeat(32));
    assert.equal(await sent.text(), body ?? "");
  }
  assert.equal(forwarded.length, requests.length);
  // Only those: the relayer's other routes are not reachable through the dashboard.
  const remember = await handler(
    new Request(`${ORIGIN}/api/remember`, { method: "POST", headers: signedHeaders, body: "{}" }),
  );
  assert.equal(remember.status, 404);
  await remember.body?.cancel();
  // Nor are the appends of operator-blind entries: the dashboard writes none.
  const append = await handler(
    new Request(`${ORIGIN}/api/blind/entries`, {
      method: "POST",
      headers: signedHeaders,
      body: "{}",
    }),
  );
  assert.equal(append.status, 405);
  await append.body?.cancel();
  assert.equal(forwarded.length, requests.length);
});
