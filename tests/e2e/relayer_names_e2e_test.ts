/**
 * The real relayer process (`main.ts`): signatures bound to its names (`SVC_PUBLIC_URL`, its
 * listening origin, loopback aliases), `SVC_REQUIRE_AUDIENCE`, revocation by another process
 * (the operator CLI) seen by the next request, and Host checks on the MCP routes and the
 * dashboard, sent over raw TCP since `fetch` sets `Host` itself.
 */
import assert from "node:assert/strict";
import { signRequest } from "../../src/auth/signing.ts";
import { SvcClient } from "../../src/client/mod.ts";
import { SvcError } from "../../src/errors.ts";
import {
  dashboardUrl,
  freePort,
  newAccountClient,
  type RelayerProcess,
  startRelayer,
  svcCli,
  waitForSidecar,
} from "../relayer_process.ts";

const PUBLIC_URL = "https://svc.example";

/** A client whose requests reach `relayer` but are signed for `baseUrl` (as behind a proxy). */
function clientVia(
  relayer: RelayerProcess,
  baseUrl: string,
  privateKey: string,
  accountId: string,
) {
  return SvcClient.create({
    baseUrl,
    privateKey,
    accountId,
    retries: 0,
    fetch: (input, init) =>
      fetch(String(input).replace(baseUrl.replace(/\/$/, ""), relayer.url), init),
  });
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "accepted";
  } catch (error) {
    assert.ok(error instanceof SvcError, String(error));
    return `${error.status} ${error.details.reason ?? error.code}`;
  }
}

/** An HTTP/1.1 request with the given `Host`; the answer's status and body text. */
async function withHost(url: string, method: string, path: string, host: string) {
  const { hostname, port } = new URL(url);
  const connection = await Deno.connect({ hostname, port: Number(port) });
  const request = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n` +
    "Content-Length: 0\r\n\r\n";
  await connection.write(new TextEncoder().encode(request));
  const text = await new Response(connection.readable).text();
  return { status: Number(text.split(" ")[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) };
}

Deno.test("e2e names: audiences, revocation by another process, Host checks", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-names-" });
  const relayer = await startRelayer(dataDir, { SVC_PUBLIC_URL: PUBLIC_URL });
  try {
    const { accountId, privateKey, client } = await newAccountClient(dataDir, relayer.url);
    const port = new URL(relayer.url).port;
    const recall = (c: SvcClient) => failure(c.recall("anything"));

    // Signed for one of its names: accepted; for another relayer: refused.
    assert.equal(await recall(client), "accepted");
    for (const name of [PUBLIC_URL, `http://localhost:${port}`, `http://[::1]:${port}`]) {
      assert.equal(
        await recall(await clientVia(relayer, name, privateKey, accountId)),
        "accepted",
        name,
      );
    }
    for (const other of [`http://127.0.0.1:${freePort()}`, "https://other.example"]) {
      assert.equal(
        await recall(await clientVia(relayer, other, privateKey, accountId)),
        "401 wrong_audience",
        other,
      );
    }

    // The CLI changes the ledger from its own process; the next request sees it.
    const second = await svcCli(dataDir, ["key", "add", "--account", accountId]);
    const other = await SvcClient.create({
      baseUrl: relayer.url,
      privateKey: second.privateKey,
      accountId,
      retries: 0,
    });
    assert.equal(await recall(other), "accepted");
    await svcCli(dataDir, [
      "key",
      "remove",
      "--account",
      accountId,
      "--public-key",
      second.publicKey,
    ]);
    assert.equal(await recall(other), "401 unknown_key");
    await svcCli(dataDir, ["account", "deactivate", "--account", accountId]);
    assert.equal(await recall(client), "403 forbidden");
    await svcCli(dataDir, ["account", "reactivate", "--account", accountId]);
    assert.equal(await recall(client), "accepted");
    const lapsed = await svcCli(dataDir, [
      "key",
      "add",
      "--account",
      accountId,
      "--expires-at",
      "2020-01-01T00:00:00Z",
    ]);
    const expired = await SvcClient.create({
      baseUrl: relayer.url,
      privateKey: lapsed.privateKey,
      accountId,
      retries: 0,
    });
    assert.equal(await recall(expired), "401 expired_key");

    // Host checks: the MCP routes and the dashboard answer the relayer's names only.
    await waitForSidecar(relayer.url);
    const mcp = (host: string) => withHost(relayer.url, "POST", "/api/mcp", host);
    for (const host of ["attacker.example", `attacker.example:${port}`]) {
      const refused = await mcp(host);
      assert.equal(refused.status, 403, host);
      assert.match(refused.body, /"reason":"host_not_allowed"/);
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, "svc.example"]) {
      // Past the check, the sidecar asks for credentials (a JSON-RPC 401).
      const passed = await mcp(host);
      assert.equal(passed.status, 401, host);
      assert.match(passed.body, /"jsonrpc":"2.0"/);
    }
    const dashboardPort = new URL(await dashboardUrl(relayer)).port;
    const dashboard = `http://127.0.0.1:${dashboardPort}`;
    assert.equal((await withHost(dashboard, "GET", "/", `localhost:${dashboardPort}`)).status, 200);
    const refused = await withHost(dashboard, "GET", "/", `attacker.example:${dashboardPort}`);
    assert.equal(refused.status, 403);
    assert.match(refused.body, /"reason":"host_not_allowed"/);
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("e2e names: SVC_REQUIRE_AUDIENCE=1 refuses version 1 and accepts version 2", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-names-" });
  const relayer = await startRelayer(dataDir, { SVC_REQUIRE_AUDIENCE: "1" });
  try {
    const { accountId, privateKey, client } = await newAccountClient(dataDir, relayer.url);
    assert.equal(await failure(client.recall("anything")), "accepted");
    const body = JSON.stringify({ query: "anything" });
    const v1 = await signRequest({
      key: privateKey,
      method: "POST",
      path: "/api/recall",
      body,
      nonce: true,
      accountId,
    });
    const response = await fetch(`${relayer.url}/api/recall`, {
      method: "POST",
      headers: { ...v1, "content-type": "application/json" },
      body,
    });
    assert.equal(response.status, 401);
    assert.equal((await response.json()).reason, "audience_required");
  } finally {
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("e2e names: bound to every address, the listening lines name 0.0.0.0, not 127.0.0.1", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    await using relayer = await startRelayer(dataDir, { SVC_HOST: "0.0.0.0" });
    const port = new URL(relayer.url).port;
    const dashboard = new URL(await dashboardUrl(relayer)).port;
    const line = (what: string) =>
      relayer.log().split("\n").find((text) => text.includes(`"${what} listening"`)) ?? "";
    assert.match(line("relayer"), new RegExp(`"address":"0\\.0\\.0\\.0:${port}"`));
    assert.match(line("dashboard"), new RegExp(`"address":"0\\.0\\.0\\.0:${dashboard}"`));
    // The URL this machine reaches it at stays a loopback one.
    assert.equal(relayer.url, `http://127.0.0.1:${port}`);
    assert.equal((await fetch(`${relayer.url}/health`).then((r) => r.json())).status, "ok");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
