/**
 * Host checks against DNS rebinding: the relayer's MCP routes, the sidecar and the dashboard
 * answer only to the relayer's names (the loopback names by default).
 */
import assert from "node:assert/strict";
import { createDashboard } from "../app/dashboard/mod.ts";
import { silentLogger } from "../src/log.ts";
import { createSidecar } from "../src/sidecar/server.ts";
import { startTestRelayer } from "./fixtures.ts";

const FOREIGN = ["attacker.example", "attacker.example:8000", "localhost.attacker.example:8000"];

/** The MCP routes' refusal: a JSON-RPC error, as MCP clients read them. */
async function rpcRefusedForHost(response: Response): Promise<void> {
  assert.equal(response.status, 403);
  const { jsonrpc, error } = await response.json();
  assert.equal(jsonrpc, "2.0");
  assert.equal(error.data.reason, "host_not_allowed");
  assert.match(error.message, /SVC_ALLOWED_HOSTS/);
}

async function refusedForHost(response: Response): Promise<void> {
  assert.equal(response.status, 403);
  const body = await response.json();
  assert.equal(body.code, "forbidden");
  assert.equal(body.reason, "host_not_allowed");
  assert.match(body.error, /SVC_ALLOWED_HOSTS/);
}

Deno.test("host check: the relayer's MCP routes refuse a foreign Host; other routes do not check", async () => {
  // `allowedHosts: undefined` leaves the relayer's default, the loopback names.
  await using t = await startTestRelayer({ allowedHosts: undefined });
  const mcp = (host: string, method = "POST", path = "/api/mcp") =>
    t.relayer.handler(new Request(`http://127.0.0.1:8000${path}`, { method, headers: { host } }));
  for (const host of FOREIGN) {
    for (
      const [method, path] of [
        ["POST", "/api/mcp"],
        ["GET", "/api/mcp"],
        ["DELETE", "/api/mcp"],
        ["GET", "/api/mcp/sse"],
        ["POST", "/api/mcp/messages"],
      ]
    ) {
      await rpcRefusedForHost(await mcp(host, method, path));
    }
  }
  // An allowed Host goes on to the sidecar, which is not running here.
  for (const host of ["localhost:8000", "127.0.0.1:8000", "[::1]:8000"]) {
    const response = await mcp(host);
    assert.equal(response.status, 503, host);
    await response.body?.cancel();
  }
  const health = await t.relayer.handler(
    new Request("http://127.0.0.1:8000/health", { headers: { host: FOREIGN[0] } }),
  );
  assert.equal(health.status, 200);
  await health.body?.cancel();
});

Deno.test("host check: the relayer's MCP routes accept the configured hosts only", async () => {
  await using t = await startTestRelayer({ allowedHosts: ["svc.example", "lan.example:8443"] });
  const mcp = (host: string) =>
    t.relayer.handler(
      new Request("http://127.0.0.1/api/mcp", { method: "POST", headers: { host } }),
    );
  for (const host of ["svc.example", "svc.example:443", "lan.example:8443"]) {
    const response = await mcp(host);
    assert.equal(response.status, 503, host);
    await response.body?.cancel();
  }
  for (const host of ["localhost:8000", "lan.example:8000", ...FOREIGN]) {
    await rpcRefusedForHost(await mcp(host));
  }
});

Deno.test("host check: the sidecar answers loopback names only, even with the relayer's token", async () => {
  const token = "0123456789abcdef0123456789abcdef";
  const sidecar = createSidecar({
    token,
    relayerUrl: "http://127.0.0.1:8000",
    logger: silentLogger,
    fetch: () => Promise.reject(new Error("no relayer in this test")),
  });
  try {
    const health = (host: string) =>
      sidecar.handler(
        new Request("http://localhost:9000/health", {
          headers: { host, "x-sidecar-token": token },
        }),
      );
    for (const host of ["localhost:9000", "127.0.0.1:9000", "[::1]:9000"]) {
      const response = await health(host);
      assert.equal(response.status, 200, host);
      await response.body?.cancel();
    }
    for (const host of FOREIGN) await refusedForHost(await health(host));
  } finally {
    await sidecar.close();
  }
});

Deno.test("host check: the dashboard answers its names only", async () => {
  const dashboard = (allowedHosts?: string[]) =>
    createDashboard({
      relayerUrl: "http://127.0.0.1:8000",
      origin: "http://localhost:5173",
      packageId: "0x" + "c".repeat(64),
      ledger: { accountOf: () => Promise.resolve(null) },
      relayer: () => Promise.resolve(Response.json({})),
      allowedHosts,
      logger: silentLogger,
    });
  const get = (handler: ReturnType<typeof dashboard>, host: string, path = "/api/config") =>
    handler(new Request(`http://localhost:5173${path}`, { headers: { host } }));

  const loopback = dashboard();
  const page = await get(loopback, "localhost:5173", "/");
  assert.equal(page.status, 200);
  await page.body?.cancel();
  // Loopback addresses still get the page that moves to the one origin.
  const moved = await get(loopback, "127.0.0.1:5173", "/");
  assert.equal(moved.status, 200);
  assert.match(await moved.text(), /\/assets\/moved\.js/);
  for (const host of FOREIGN) {
    for (const path of ["/", "/connect/mcp", "/api/config", "/assets/app.js"]) {
      await refusedForHost(await get(loopback, host, path));
    }
  }
  const configured = dashboard(["svc.example"]);
  const allowed = await get(configured, "svc.example:5173");
  assert.equal(allowed.status, 200);
  await allowed.body?.cancel();
  await refusedForHost(await get(configured, "localhost:5173"));
});
