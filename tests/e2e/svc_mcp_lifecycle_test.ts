/**
 * The stdio package's life inside an MCP host: it opens the browser at sign-in (or only prints
 * the link), hears a Deny, reports a relayer's 429 as rate limiting, and exits when the host
 * closes its stdin, ending its relayer session. Spawned with raw pipes, as hosts spawn it.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { generateKeyPair } from "@svc/util/keys";
import {
  approveSignIn,
  exitWithin,
  type RelayerProcess,
  saveCredentials,
  spawnStdioHost,
  startRelayer,
  startTerminalLogin,
  svcCli,
  waitForSidecar,
} from "../relayer_process.ts";

const DASHBOARD = "http://localhost:5999";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A directory with a fake `xdg-open` that appends the URL it is given to `opened.txt`. */
async function fakeOpener(): Promise<
  { env: Record<string, string>; opened: () => string } & AsyncDisposable
> {
  const dir = await Deno.makeTempDir({ prefix: "svc-opener-" });
  await Deno.writeTextFile(`${dir}/xdg-open`, `#!/bin/sh\necho "$1" >> "${dir}/opened.txt"\n`, {
    mode: 0o755,
  });
  return {
    env: { PATH: `${dir}:${Deno.env.get("PATH")}`, DISPLAY: ":99" },
    opened: () => {
      try {
        return Deno.readTextFileSync(`${dir}/opened.txt`);
      } catch {
        return "";
      }
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Presses Deny on the sign-in of `link`, as the dashboard does. */
async function deny(link: URL, dashboard = DASHBOARD) {
  const denied = await fetch(`http://127.0.0.1:${link.searchParams.get("port")}/deny`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: dashboard },
    body: JSON.stringify({ state: link.searchParams.get("state") }),
  });
  assert.equal(denied.status, 200);
  await denied.body?.cancel();
}

/** Polls `read` until it returns `expected` (10 s at most); returns the last value. */
async function until<T>(read: () => T | Promise<T>, expected: T): Promise<T> {
  let value = await read();
  for (let i = 0; i < 200 && value !== expected; i++) {
    await sleep(50);
    value = await read();
  }
  return value;
}

const mcpSessions = async (relayer: RelayerProcess) =>
  (await (await fetch(`${relayer.url}/health`)).json()).mcpSessions as number;

const linkIn = (text: string) =>
  new URL(text.match(/http:\/\/localhost:5999\/connect\/mcp\?\S+/)![0]);

Deno.test("svc-mcp in a host: opens the browser, signs in, and on stdin close exits and ends its session", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  await using relayer = await startRelayer(dataDir);
  await waitForSidecar(relayer.url);
  const account = await svcCli(dataDir, ["account", "create"]);
  await using opener = await fakeOpener();
  await using host = await spawnStdioHost(
    ["--relayer", relayer.url, "--web-url", DASHBOARD],
    home,
    opener.env,
  );
  const before = await mcpSessions(relayer);

  const login = await host.callTool("svc_login");
  assert.match(login, /^A browser window was opened/);
  assert.match(login, /Confirmation code: [0-9A-F]{4}-[0-9A-F]{4}/);
  const link = linkIn(login);
  assert.equal(await until(opener.opened, `${link.href}\n`), `${link.href}\n`);
  assert.equal(await approveSignIn(dataDir, link, account, DASHBOARD), 200);

  const saved = await host.callTool("svc_remember", { text: "I swim on Tuesdays" });
  assert.match(saved, /^Saved to memory/);
  assert.equal(await until(() => mcpSessions(relayer), before + 1), before + 1);

  await host.closeStdin();
  const status = await exitWithin(host.process, 5000);
  assert.ok(status, "svc-mcp still runs after its stdin closed");
  assert.equal(status.code, 0);
  assert.equal(await until(() => mcpSessions(relayer), before), before);
  await Deno.remove(dataDir, { recursive: true });
  await Deno.remove(home, { recursive: true });
});

Deno.test("svc-mcp in a host: --no-browser only prints; a Deny reaches the agent; bad lines are answered; signed out, stdin close exits", async () => {
  const home = await Deno.makeTempDir();
  await using opener = await fakeOpener();
  await using host = await spawnStdioHost(
    ["--relayer", "http://127.0.0.1:9", "--web-url", DASHBOARD, "--no-browser"],
    home,
    opener.env,
  );
  const login = await host.callTool("svc_login");
  assert.match(login, /^To sign in to svc memory, open this link/);
  await deny(linkIn(login));
  const recall = await host.callTool("svc_recall", { query: "what do I eat?" });
  assert.match(
    recall,
    /^The sign-in request was denied on the dashboard\. Call the svc_login tool and open the link/,
  );
  assert.equal(opener.opened(), "", "--no-browser opened a browser");

  // Lines a host garbled are answered, with the id when there is one, and the stream goes on.
  const notJson = await host.answerTo("{not json", null);
  assert.deepEqual(notJson.error, {
    code: -32700,
    message: "Parse error: the line is not valid JSON",
  });
  const badParams = await host.answerTo(
    JSON.stringify({ jsonrpc: "2.0", id: 77, method: "tools/call", params: { name: 5 } }),
    77,
  );
  assert.equal((badParams.error as { code: number }).code, -32602);
  assert.match(
    (badParams.error as { message: string }).message,
    /^Invalid params of tools\/call: params\.name: /,
  );
  for (const name of ["svc_nope", "toString"]) {
    const unknown = await host.answerTo(
      JSON.stringify({ jsonrpc: "2.0", id: 79, method: "tools/call", params: { name } }),
      79,
    );
    assert.deepEqual(unknown.error, { code: -32602, message: `Unknown tool: ${name}` });
  }
  const noVersion = await host.answerTo(JSON.stringify({ id: 78, method: "ping" }), 78);
  assert.equal((noVersion.error as { code: number }).code, -32600);
  assert.deepEqual((await host.request("ping")).result, {});

  await host.closeStdin();
  const status = await exitWithin(host.process, 5000);
  assert.ok(status, "svc-mcp still runs after its stdin closed");
  assert.equal(status.code, 0);
  await Deno.remove(home, { recursive: true });
});

Deno.test("svc-mcp in a host: --login ignores saved credentials until the new sign-in, whose key works at once", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  await using relayer = await startRelayer(dataDir);
  await waitForSidecar(relayer.url);
  const account = await svcCli(dataDir, ["account", "create"]);
  // Saved credentials whose key no account knows: used, every tool would be refused.
  await saveCredentials(home, relayer.url, account.accountId, await generateKeyPair());
  await using host = await spawnStdioHost(
    ["--relayer", relayer.url, "--web-url", DASHBOARD, "--no-browser", "--login"],
    home,
  );
  assert.match(await host.callTool("svc_recall", { query: "anything" }), /Not signed in/);

  const link = linkIn(await host.callTool("svc_login"));
  assert.equal(await approveSignIn(dataDir, link, account, DASHBOARD), 200);
  // The next call, sent as soon as the dashboard has its answer, already signs with the new key.
  assert.match(
    await host.callTool("svc_remember", { text: "I cycle to work" }),
    /^Saved to memory/,
  );
  await Deno.remove(dataDir, { recursive: true });
  await Deno.remove(home, { recursive: true });
});

Deno.test("svc-mcp in a host: a relayer's 429 is reported as rate limiting with its reason and delay", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  await using relayer = await startRelayer(dataDir, { MCP_MAX_NEW_SESSIONS_PER_IP_PER_MIN: "1" });
  await waitForSidecar(relayer.url);
  const { accountId } = await svcCli(dataDir, ["account", "create"]);
  const key = await svcCli(dataDir, ["key", "add", "--account", accountId, "--label", "host"]);
  // Another client from this address spends the minute's only new session.
  const other = new Client({ name: "other", version: "1.0.0" });
  await other.connect(
    new StreamableHTTPClientTransport(new URL(`${relayer.url}/api/mcp`), {
      requestInit: {
        headers: { authorization: `Bearer ${key.privateKey}`, "x-svc-account-id": accountId },
      },
    }),
  );
  await saveCredentials(home, relayer.url, accountId, key);
  await using host = await spawnStdioHost([], home);
  try {
    const recall = await host.callTool("svc_recall", { query: "anything" });
    assert.match(
      recall,
      /this address opened too many sessions in the last minute \(rate limited, 429\)\. Retry in \d+ s\./,
    );
    assert.doesNotMatch(recall, /Cannot reach/);
  } finally {
    await other.close();
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("svc-mcp login in a terminal: a Deny exits 1 and says to run the command again", async () => {
  const home = await Deno.makeTempDir();
  // A dashboard that answers; the relayer is never called: the sign-in is denied before.
  await using dashboard = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("dashboard"),
  );
  const webUrl = `http://localhost:${dashboard.addr.port}`;
  const login = await startTerminalLogin(
    ["--relayer", "http://127.0.0.1:9", "--web-url", webUrl],
    home,
  );
  await deny(login.link, webUrl);
  const status = await exitWithin(login.process, 10_000);
  const printed = await login.stderr();
  assert.equal(status?.code, 1, printed);
  assert.match(
    printed,
    /\nsvc-mcp: The sign-in request was denied on the dashboard; run `svc-mcp login` again to retry\n$/,
  );
  assert.doesNotMatch(printed, /svc_login/);
  assert.equal(new TextDecoder().decode(await new Response(login.process.stdout).bytes()), "");
  await Deno.remove(home, { recursive: true });
});
