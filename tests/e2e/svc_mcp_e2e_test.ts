/**
 * The stdio package as an MCP host runs it: spawned with pipes (no TTY) by the SDK's stdio
 * client, against the real relayer and sidecar. Sign-in is completed as the dashboard would:
 * the key is registered in the local ledger, then the callback is posted.
 */
import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SvcClient } from "../../src/client/mod.ts";
import { LOCAL_PACKAGE_ID } from "../../plugins/local_ledger/mod.ts";
import { textOf } from "../mcp_fixtures.ts";
import {
  approveSignIn,
  connectStdioPackage,
  freePort,
  type RelayerProcess,
  startRelayer,
  svcCli,
  waitForSidecar,
} from "../relayer_process.ts";

const DASHBOARD = "http://localhost:5999";

async function startUp(dataDir: string, port: number): Promise<RelayerProcess> {
  const relayer = await startRelayer(dataDir, { SVC_PORT: String(port) });
  await waitForSidecar(relayer.url);
  return relayer;
}

async function toolNames(client: Client): Promise<string[]> {
  const { tools } = await client.listTools() as { tools: { name: string }[] };
  return tools.map((tool) => tool.name).sort();
}

Deno.test("e2e svc-mcp: signed out → svc_login → bridged, in one process", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  let relayer = await startUp(dataDir, port);
  let client: Client | undefined;
  try {
    const { accountId, owner } = await svcCli(dataDir, ["account", "create"]);
    client = await connectStdioPackage(
      ["--relayer", url, "--web-url", DASHBOARD, "--ns", "e2e-日本"],
      home,
    );

    // Auth-required mode.
    assert.deepEqual(await toolNames(client), [
      "svc_analyze",
      "svc_forget",
      "svc_get",
      "svc_list",
      "svc_login",
      "svc_namespaces",
      "svc_recall",
      "svc_remember",
      "svc_restore",
      "svc_update",
    ]);
    const refused = await client.callTool({ name: "svc_recall", arguments: { query: "tea" } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /Call the svc_login tool/);

    // svc_login; the dashboard approves: registers the key, then posts the callback.
    const login = textOf(await client.callTool({ name: "svc_login", arguments: {} }));
    const link = new URL(login.match(/http:\/\/localhost:5999\/connect\/mcp\?\S+/)![0]);
    const params = link.searchParams;
    assert.equal(params.get("relayer"), url);
    // The key's label names the host, as it named itself, and this machine.
    // (The whole label is cut to 64 bytes: a long host name leaves less of the host's.)
    assert.match(params.get("label")!, /^test-h\S* via svc-mcp on \S/);
    assert.equal(await approveSignIn(dataDir, link, { accountId, owner }, DASHBOARD), 200);
    const credentialsPath = `${home}/.svc/credentials.json`;
    const credentials = JSON.parse(await Deno.readTextFile(credentialsPath));
    assert.equal(credentials.delegatePublicKey, params.get("publicKey"));

    // Bridged, same process: the namespace is injected (in a header, as its UTF-8).
    const saved = await client.callTool({
      name: "svc_remember",
      arguments: { text: "I take my tea with oat milk" },
    });
    // A call re-sent after a lost connection (the bridge's retry, on a busy machine) finds the
    // first one's memory: stored once either way, as the recall below checks.
    assert.match(
      textOf(saved),
      /^(Saved to memory \(namespace "e2e-日本", job |Already in memory \(namespace "e2e-日本", id )/,
    );
    const direct = await SvcClient.create({
      baseUrl: url,
      privateKey: credentials.delegatePrivateKey,
      accountId,
    });
    assert.equal((await direct.recall("tea", { namespace: "e2e-日本" })).total, 1);
    assert.equal((await direct.recall("tea")).total, 0, "not in the default namespace");
    const found = await client.callTool({ name: "svc_recall", arguments: { query: "tea?" } });
    assert.match(textOf(found), /I take my tea with oat milk/);
    assert.ok((await toolNames(client)).includes("svc_logout"));

    // The relayer is killed and restarted mid-session: the bridge reconnects.
    await relayer.kill();
    relayer = await startUp(dataDir, port);
    const again = await client.callTool({ name: "svc_recall", arguments: { query: "tea?" } });
    assert.match(textOf(again), /oat milk/);

    // The key is revoked: a clear 401 message, and the file is kept.
    await svcCli(dataDir, [
      "key",
      "remove",
      "--account",
      accountId,
      "--public-key",
      credentials.delegatePublicKey,
    ]);
    await relayer.kill(); // a fresh relayer has no cached resolution of the key
    relayer = await startUp(dataDir, port);
    const revoked = await client.callTool({ name: "svc_recall", arguments: { query: "tea?" } });
    assert.equal(revoked.isError, true);
    assert.match(textOf(revoked), /refused .* \(401\).*revoked.*--logout/s);
    assert.ok((await Deno.stat(credentialsPath)).isFile);

    // svc_logout deletes the file; the memory tools ask for a sign-in again.
    const out = await client.callTool({ name: "svc_logout", arguments: {} });
    assert.match(
      textOf(out),
      new RegExp(
        `deleted .*The delegate key ${credentials.delegateAddress} stays registered on account ` +
          `${accountId}: remove it on the dashboard .*svc key remove --account ${accountId} ` +
          `--address ${credentials.delegateAddress}`,
        "s",
      ),
    );
    await assert.rejects(Deno.stat(credentialsPath), Deno.errors.NotFound);
    const signedOut = await client.callTool({ name: "svc_recall", arguments: { query: "tea" } });
    assert.match(textOf(signedOut), /svc_login/);
  } finally {
    await client?.close();
    await relayer.stop();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("e2e svc-mcp: a relayer that is down gives a clear error, not a hang", async () => {
  const home = await Deno.makeTempDir();
  const url = `http://127.0.0.1:${freePort()}`;
  await Deno.mkdir(`${home}/.svc`, { mode: 0o700 });
  await Deno.writeTextFile(
    `${home}/.svc/credentials.json`,
    JSON.stringify({
      version: 1,
      delegatePrivateKey: "1".repeat(64),
      delegatePublicKey: "2".repeat(64),
      delegateAddress: "0x3",
      walletAddress: "0x4",
      accountId: "0x5",
      packageId: LOCAL_PACKAGE_ID,
      relayerUrl: url,
      label: "down",
      createdAt: new Date().toISOString(),
    }),
  );
  const client = await connectStdioPackage([], home);
  try {
    const result = await client.callTool({ name: "svc_recall", arguments: { query: "x" } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), new RegExp(`Cannot reach the svc relayer at ${url}`));
    assert.ok((await toolNames(client)).includes("svc_recall"), "tools/list still answers");
  } finally {
    await client.close();
    await Deno.remove(home, { recursive: true });
  }
});
