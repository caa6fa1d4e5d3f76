/**
 * `svc-mcp` (cli/svc_mcp.ts) run in-process as a host runs it, over pipes: bridged to an
 * in-process relayer with saved credentials, signed out without them, and its exit codes.
 * `tests/e2e/svc_mcp_*` run it as a process (sign-in through the dashboard, a host's stdin).
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { main } from "../cli/svc_mcp.ts";
import { SvcClient } from "../src/client/mod.ts";
import { StdioTransport } from "../cli/svc_mcp/stdio_transport.ts";
import type { Caller } from "./fixtures.ts";
import { type McpStack, startMcpStack } from "./mcp_fixtures.ts";
import { saveCredentials } from "./relayer_process.ts";
import { Captured } from "./cli_fixtures.ts";
import { generateKeyPair } from "@svc/util/keys";

/** `svc-mcp <args>` in this process with `HOME` at `home`, and an MCP client on its pipes. */
async function host(args: string[], home: string) {
  const stdin = new TransformStream<Uint8Array, Uint8Array>();
  const stdout = new TransformStream<Uint8Array, Uint8Array>();
  const stderr = new Captured();
  const exited = main(args, {
    env: { HOME: home },
    stdin: { readable: stdin.readable, isTerminal: () => false },
    stdout: stdout.writable,
    stderr,
    hostname: "test-host",
  });
  // The host keeps stdin's writer: closing its client does not close a pipe it was given.
  const toServer = stdin.writable.getWriter();
  const client = new Client({ name: "host", version: "1.0.0" });
  const written = new WritableStream<Uint8Array>({ write: (chunk) => toServer.write(chunk) });
  await client.connect(new StdioTransport(stdout.readable, written));
  return {
    client,
    stderr: () => stderr.text(),
    /** Closes stdin, as a host that quits; the exit code. */
    async close() {
      await client.close();
      await toServer.close();
      return await exited;
    },
  };
}

/** The texts `caller` has in `namespace`, once its remember jobs are done. */
async function storedIn(stack: McpStack, caller: Caller, namespace: string) {
  const client = await SvcClient.create({
    baseUrl: stack.url,
    privateKey: caller.key.privateKey,
    accountId: caller.accountId,
  });
  for (let i = 0; i < 500; i++) {
    const { memories } = await client.list({ namespace });
    if (memories.length) return memories.map((memory) => memory.text);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return [];
}

/** What a tool call answered, in words. */
const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as { type: string; text: string }[]).map((part) => part.text).join("\n");

Deno.test("svc-mcp in-process: signed in, the memory tools reach the relayer; stdin closed, it exits 0", async () => {
  await using stack = await startMcpStack();
  const alice = await stack.test.newCaller();
  const home = await Deno.makeTempDir({ prefix: "svc-mcp-home-" });
  try {
    await saveCredentials(home, stack.url, alice.accountId, alice.key);
    const { client, close } = await host(["--namespace", "notes"], home);
    const { tools } = await client.listTools();
    for (const name of ["svc_remember", "svc_recall", "svc_login", "svc_logout"]) {
      assert.ok(tools.some((tool: { name: string }) => tool.name === name), `${name} is listed`);
    }
    const saved = await client.callTool({
      name: "svc_remember",
      arguments: { text: "I keep bees in the garden" },
    });
    assert.equal(saved.isError, undefined, textOf(saved));
    assert.deepEqual(await storedIn(stack, alice, "notes"), ["I keep bees in the garden"]);
    const found = await client.callTool({ name: "svc_recall", arguments: { query: "bees" } });
    assert.match(textOf(found), /I keep bees in the garden/);
    assert.equal(await close(), 0);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("svc-mcp in-process: signed out, a memory tool says how to sign in", async () => {
  const home = await Deno.makeTempDir({ prefix: "svc-mcp-home-" });
  try {
    const { client, close } = await host(["--no-browser"], home);
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool: { name: string }) => tool.name === "svc_login"));
    const refused = await client.callTool({ name: "svc_recall", arguments: { query: "bees" } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /svc_login/);
    assert.equal(await close(), 0);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("svc-mcp in-process: --help exits 0 and a wrong flag 2, saying so on stderr", async () => {
  const run = async (args: string[], env: Record<string, string>) => {
    const stderr = new Captured();
    const code = await main(args, {
      env,
      stdin: { readable: ReadableStream.from([]), isTerminal: () => false },
      stdout: new WritableStream(),
      stderr,
      hostname: "test-host",
    });
    return { code, stderr: stderr.text() };
  };
  const help = await run(["--help"], { HOME: "/nonexistent-svc-home" });
  assert.equal(help.code, 0);
  assert.match(help.stderr, /svc-mcp/);
  const wrong = await run(["--no-such-flag"], { HOME: "/nonexistent-svc-home" });
  assert.equal(wrong.code, 2);
  assert.match(wrong.stderr, /^svc-mcp: .*\n\(`svc-mcp --help` lists its commands and options\)/);
  const homeless = await run([], {});
  assert.equal(homeless.code, 2);
  assert.equal(homeless.stderr, "svc-mcp: cannot find the home directory (set HOME)\n");
});

Deno.test("svc-mcp status: names the relayer's version and embedder, and whether the saved key works", async () => {
  await using stack = await startMcpStack();
  const alice = await stack.test.newCaller();
  const home = await Deno.makeTempDir({ prefix: "svc-mcp-home-" });
  const status = async (args: string[] = []) => {
    const stderr = new Captured();
    const code = await main(["status", ...args], {
      env: { HOME: home },
      stdin: { readable: ReadableStream.from([]), isTerminal: () => true },
      stdout: new WritableStream(),
      stderr,
      hostname: "test-host",
    });
    return { code, stderr: stderr.text() };
  };
  try {
    const { version, backends } = await (await fetch(`${stack.url}/health`)).json();
    const relayerLine = `Relayer ${stack.url}: version ${version}, embedder ${backends.embedder}\n`;
    const out = await status(["--relayer", stack.url]);
    assert.deepEqual(out, {
      code: 1,
      stderr: relayerLine + "Not signed in with this relayer: run `svc-mcp login`.\n",
    });
    await saveCredentials(home, stack.url, alice.accountId, alice.key);
    const signedIn = await status();
    assert.equal(signedIn.code, 0, signedIn.stderr);
    assert.match(signedIn.stderr, new RegExp(`^${relayerLine.replace(/[().]/g, "\\$&")}`));
    assert.match(
      signedIn.stderr,
      new RegExp(`Signed in: account ${alice.accountId}, .* \\(it works\\)\n$`),
    );
    // A key the account does not hold.
    await Deno.remove(`${home}/.svc`, { recursive: true });
    await saveCredentials(home, stack.url, alice.accountId, await generateKeyPair());
    const removed = await status();
    assert.equal(removed.code, 1);
    assert.match(removed.stderr, /\(it no longer works: .+\)\n$/);
    // A file that is not JSON is named, not taken for no sign-in.
    await Deno.writeTextFile(`${home}/.svc/credentials.json`, "{broken");
    const corrupt = await status(["--relayer", stack.url]);
    assert.equal(corrupt.code, 1);
    assert.match(corrupt.stderr, /Not signed in: .*credentials\.json is not valid JSON\. Run/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

/** Waits until `captured` holds a sign-in link (5 s at most) and answers its parameters. */
async function signInLink(captured: Captured): Promise<URLSearchParams> {
  for (let i = 0; i < 500; i++) {
    const link = captured.text().match(/http:\/\/\S+\/connect\/mcp\?(\S+)/)?.[1];
    if (link) return new URLSearchParams(link);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no sign-in link was printed:\n${captured.text()}`);
}

Deno.test("svc-mcp login (the command): signs in with a new key even when the saved one works", async () => {
  await using stack = await startMcpStack();
  const alice = await stack.test.newCaller();
  const home = await Deno.makeTempDir({ prefix: "svc-mcp-home-" });
  await using dashboard = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("dashboard"),
  );
  const webUrl = `http://localhost:${dashboard.addr.port}`;
  try {
    await saveCredentials(home, stack.url, alice.accountId, alice.key);
    const stderr = new Captured();
    const exited = main(["login", "--no-browser", "--web-url", webUrl], {
      env: { HOME: home },
      stdin: { readable: ReadableStream.from([]), isTerminal: () => true },
      stdout: new WritableStream(),
      stderr,
      hostname: "test-host",
    });
    // Ended by a Deny on the dashboard, so that nothing is saved.
    const link = await Promise.race([signInLink(stderr), exited.then(() => undefined)]);
    assert.ok(link, `a sign-in link, not:\n${stderr.text()}`);
    const denied = await fetch(`http://127.0.0.1:${link.get("port")}/deny`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: webUrl },
      body: JSON.stringify({ state: link.get("state") }),
    });
    assert.equal(denied.status, 200);
    await denied.body?.cancel();
    assert.equal(await exited, 1);
    assert.doesNotMatch(stderr.text(), /Already signed in/);
    assert.match(
      stderr.text(),
      new RegExp(`^Signing in again: the key saved for account ${alice.accountId} `),
    );
    assert.match(stderr.text(), /denied on the dashboard/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
