/**
 * `svc-mcp login` from a terminal: it waits for a dashboard on this machine that is starting
 * (`deno task start &` and the login typed at once), signs in with a new key even when the saved
 * one works (naming the key it replaces), and says so when the relayer refuses the saved key.
 */
import assert from "node:assert/strict";
import { generateKeyPair } from "@svc/util/keys";
import { taskCommand } from "../task_flags.ts";
import {
  approveSignIn,
  exitWithin,
  freePort,
  hostEnv,
  saveCredentials,
  startRelayer,
  startTerminalLogin,
  svcCli,
} from "../relayer_process.ts";

const LOGIN_ARGS = taskCommand("svc-mcp", ["login", "--no-browser"]);

/** `svc-mcp login ARGS` with `home` as HOME, ended after a minute at most. */
function login(args: string[], home: string) {
  return new Deno.Command(Deno.execPath(), {
    args: [...LOGIN_ARGS, ...args],
    env: hostEnv(home),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(60_000),
  });
}

/** Runs `svc-mcp login ARGS` to its end: exit code, stderr and its last line. */
async function loginOutput(args: string[], home: string) {
  const { code, stdout, stderr } = await login(args, home).output();
  assert.equal(new TextDecoder().decode(stdout), "", "stdout carries only MCP frames");
  const printed = new TextDecoder().decode(stderr);
  return { code, printed, last: printed.trimEnd().split("\n").at(-1) };
}

/** A stand-in for the dashboard's page on `port` (the sign-in's callbacks go to svc-mcp). */
const fakeDashboard = (port = 0) =>
  Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, () => new Response("dashboard"));

const notAnswering = (webUrl: string) =>
  `svc-mcp: cannot sign in: the dashboard at ${webUrl} does not answer. Start the relayer ` +
  "(`deno task start`, which serves it), or give --web-url (for --local, the port is " +
  "SVC_DASHBOARD_PORT's).";

/** A data directory and a HOME, removed after `use` (and what it started). */
async function withDirs(use: (dataDir: string, home: string) => Promise<void>): Promise<void> {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  try {
    await use(dataDir, home);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("svc-mcp login: a dashboard on this machine that never answers is waited for, then named", async () => {
  await withDirs(async (_, home) => {
    const webUrl = `http://localhost:${freePort()}`;
    const { code, printed, last } = await loginOutput(["--web-url", webUrl], home);
    assert.equal(code, 1);
    assert.match(
      printed,
      new RegExp(
        `Waiting for the dashboard at ${webUrl} to answer \\(its relayer may be starting\\)`,
      ),
    );
    assert.equal(last, notAnswering(webUrl));
  });
});

Deno.test("svc-mcp login: a dashboard elsewhere that does not answer is named without waiting", async () => {
  await withDirs(async (_, home) => {
    // A documentation address (TEST-NET-1): no host answers there.
    const webUrl = "http://192.0.2.1:9";
    const { code, printed, last } = await loginOutput(["--web-url", webUrl], home);
    assert.equal(code, 1);
    assert.doesNotMatch(printed, /Waiting for the dashboard/);
    assert.equal(last, notAnswering(webUrl));
  });
});

Deno.test("svc-mcp login: a dashboard that starts once the command waits for it is used", async () => {
  await withDirs(async (_, home) => {
    const port = freePort();
    const process = login([
      "--relayer",
      "http://127.0.0.1:9",
      "--web-url",
      `http://localhost:${port}`,
    ], home)
      .spawn();
    const lines = process.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let printed = "";
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(printed)) {
        const { value, done } = await lines.read();
        if (done) throw new Error(`svc-mcp login exited early:\n${printed}`);
        printed += value;
      }
    };
    await readUntil(/Waiting for the dashboard/);
    await using _dashboard = fakeDashboard(port);
    await readUntil(
      new RegExp(
        `Open this link within 5 minutes to sign in:\\s+http://localhost:${port}/connect/mcp\\?`,
      ),
    );
    process.kill();
    await process.status;
    await lines.cancel();
    await process.stdout.cancel();
  });
});

Deno.test("svc-mcp login while signed in: a relayer on this machine that is starting is waited for before the key is checked", async () => {
  await withDirs(async (dataDir, home) => {
    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    const account = await svcCli(dataDir, ["account", "create"]);
    const key = await svcCli(dataDir, ["key", "add", "--account", account.accountId]);
    await saveCredentials(home, url, account.accountId, key);
    await using dashboard = fakeDashboard();
    const process = login(["--web-url", `http://localhost:${dashboard.addr.port}`], home).spawn();
    const lines = process.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let printed = "";
    const readUntil = async (pattern: RegExp) => {
      while (!pattern.test(printed)) {
        const { value, done } = await lines.read();
        if (done) throw new Error(`svc-mcp login exited early:\n${printed}`);
        printed += value;
      }
    };
    await readUntil(/Waiting for the relayer/);
    assert.match(printed, new RegExp(`Waiting for the relayer at ${url} to answer`));
    await using _relayer = await startRelayer(dataDir, { SVC_PORT: String(port) });
    await readUntil(/Open this link within 5 minutes/);
    assert.match(
      printed,
      new RegExp(
        `Signing in again: the key saved for account ${account.accountId} \\(${key.address}\\)`,
      ),
    );
    process.kill();
    await process.status;
    await lines.cancel();
    await process.stdout.cancel();
  });
});

Deno.test("svc-mcp login while signed in: signs in with a new key even when the saved one works, and names the one it replaces", async () => {
  await withDirs(async (dataDir, home) => {
    await using relayer = await startRelayer(dataDir);
    await using dashboard = fakeDashboard();
    const webUrl = `http://localhost:${dashboard.addr.port}`;
    const account = await svcCli(dataDir, ["account", "create"]);
    const key = await svcCli(dataDir, ["key", "add", "--account", account.accountId]);
    await saveCredentials(home, relayer.url, account.accountId, key);
    const saved = await Deno.readTextFile(`${home}/.svc/credentials.json`);

    for (const args of [[], ["--login"]]) {
      const signIn = await startTerminalLogin(["--web-url", webUrl, ...args], home);
      assert.equal(await approveSignIn(dataDir, signIn.link, account, webUrl), 200);
      assert.equal((await exitWithin(signIn.process, 10_000))?.code, 0);
      const printed = await signIn.stderr();
      assert.doesNotMatch(printed, /Already signed in/);
      assert.match(printed, /Signing in again: the key saved for account /);
      assert.match(
        printed,
        /It replaces the key saved before\. The delegate key 0x[0-9a-f]+ stays/,
      );
    }
    assert.notEqual(await Deno.readTextFile(`${home}/.svc/credentials.json`), saved);
    const keys = await svcCli(dataDir, ["key", "list", "--account", account.accountId]);
    assert.equal(keys.keys.length, 3, "the first key and the two signed in since");
    const now = JSON.parse(await Deno.readTextFile(`${home}/.svc/credentials.json`));
    assert.equal(now.accountId, account.accountId);
  });
});

Deno.test("svc-mcp login: a saved key the relayer does not know is replaced by a new sign-in", async () => {
  await withDirs(async (dataDir, home) => {
    await using relayer = await startRelayer(dataDir);
    await using dashboard = fakeDashboard();
    const webUrl = `http://localhost:${dashboard.addr.port}`;
    const account = await svcCli(dataDir, ["account", "create"]);
    // A key no account knows: removed on the dashboard since, say.
    await saveCredentials(home, relayer.url, account.accountId, await generateKeyPair());

    const signIn = await startTerminalLogin(["--web-url", webUrl], home);
    assert.equal(await approveSignIn(dataDir, signIn.link, account, webUrl), 200);
    assert.equal((await exitWithin(signIn.process, 10_000))?.code, 0);
    const printed = await signIn.stderr();
    assert.match(
      printed,
      /The saved key no longer works \(This public key is not a delegate key .+\); signing in again\./,
    );
    assert.match(printed, /Signed in: account /);
    assert.doesNotMatch(printed, /It replaces the key saved before/, "a key on no account");
  });
});
