/**
 * A web page calling the MCP routes from headless Chromium: a page of an origin in
 * `SVC_ALLOWED_ORIGINS` opens a session and lists the tools; a page of another origin is refused
 * by the browser, its preflight answered 403.
 */
import assert from "node:assert/strict";
import { launch } from "./browser_fixtures.ts";
import { newAccountClient, startRelayer, waitForSidecar } from "../relayer_process.ts";

/** A server of one empty page, on a port of its own: an origin. */
function pageServer() {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<!doctype html><title>agent</title>", {
        headers: { "content-type": "text/html" },
      }),
  );
  return { origin: `http://127.0.0.1:${server.addr.port}`, server };
}

/** What the page's script does: initialize, then list the tools in that session. */
async function listTools(relayerUrl: string, bearer: string, accountId: string) {
  const headers = {
    authorization: `Bearer ${bearer}`,
    "x-svc-account-id": accountId,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
  };
  try {
    const opened = await fetch(`${relayerUrl}/api/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "page", version: "1.0.0" },
        },
      }),
    });
    const session = opened.headers.get("mcp-session-id");
    await opened.text();
    if (!session) return `no session (${opened.status})`;
    const listed = await fetch(`${relayerUrl}/api/mcp`, {
      method: "POST",
      headers: { ...headers, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    const { result } = await listed.json();
    return result.tools.map((tool: { name: string }) => tool.name).sort().join(",");
  } catch (error) {
    return `refused: ${(error as Error).name}`;
  }
}

Deno.test("browser: a page of an allowed origin uses the MCP routes; another cannot", async () => {
  const allowed = pageServer(), other = pageServer();
  const dataDir = await Deno.makeTempDir({ prefix: "svc-cors-" });
  const relayer = await startRelayer(dataDir, { SVC_ALLOWED_ORIGINS: allowed.origin });
  const browser = await launch();
  try {
    await waitForSidecar(relayer.url);
    const { privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const page = await browser.newPage();
    const run = async (origin: string) => {
      await page.goto(origin);
      return await page.evaluate(
        `(${listTools.toString()})(${JSON.stringify(relayer.url)}, ${JSON.stringify(privateKey)}, ${
          JSON.stringify(accountId)
        })`,
      ) as string;
    };
    const tools = await run(allowed.origin);
    assert.match(tools, /^(svc_[a-z_]+,)+svc_[a-z_]+$/);
    assert.match(tools, /svc_recall/);
    assert.equal(await run(other.origin), "refused: TypeError");
  } finally {
    await browser.close();
    await relayer.stop();
    await allowed.server.shutdown();
    await other.server.shutdown();
    await Deno.remove(dataDir, { recursive: true });
  }
});
