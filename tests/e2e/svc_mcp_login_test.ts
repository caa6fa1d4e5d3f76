/**
 * `svc-mcp login` from a terminal: it waits for a dashboard on this machine that is starting
 * (`deno task start &` and the login typed at once), keeps a saved key that works rather than
 * adding a second one, and signs in again when the relayer refuses the saved key.
 */
import assert from "node:assert/strict";
import { generateKeyPair } from "../../src/auth/keys.ts";
import {
  approveSignIn,
  exitWithin,
  freePort,
  hostEnv,
  ROOT,
  saveCredentials,
  startRelayer,
  startTerminalLogin,
  svcCli,
} from "../relayer_process.ts";

const LOGIN_ARGS = ["run", "-A", `${ROOT}cli/svc_mcp.ts`, "login", "--no-browser"];

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
    const process = login(["--web-url", `http://localhost:${freePort()}`], home).spawn();
    const lines = process.stderr.pipeThrough(new TextDecoderStream()).getReader();
    let printed = "";
    while (!/Waiting for the relayer/.test(printed)) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`svc-mcp login exited early:\n${printed}`);
      printed += value;
    }
    assert.match(printed, new RegExp(`Waiting for the relayer at ${url} to answer`));
    await using _relayer = await startRelayer(dataDir, { SVC_PORT: String(port) });
    for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) {
      printed += chunk.value;
    }
    assert.equal((await process.status).code, 0);
    await process.stdout.cancel();
    assert.match(
      printed,
      new RegExp(`Already signed in: account ${account.accountId}, key ${key.address}, saved`),
    );
  });
});

Deno.test("svc-mcp login while signed in: keeps a key that works; --login replaces it and names it", async () => {
  await withDirs(async (dataDir, home) => {
    await using relayer = await startRelayer(dataDir);
    await using dashboard = fakeDashboard();
    const webUrl = `http://localhost:${dashboard.addr.port}`;
    const account = await svcCli(dataDir, ["account", "create"]);
    const key = await svcCli(dataDir, ["key", "add", "--account", account.accountId]);
    await saveCredentials(home, relayer.url, account.accountId, key);
    const saved = await Deno.readTextFile(`${home}/.svc/credentials.json`);
    const kept = `Already signed in: account ${account.accountId}, key ${key.address}, saved in ` +
      `${home}/.svc/credentials.json. To sign in with a new key (another scope, say), add ` +
      "--login; `svc-mcp --logout` signs this one out.";

    const again = await loginOutput(["--web-url", webUrl], home);
    assert.deepEqual([again.code, again.last], [0, kept]);
    // Kept without the dashboard: a sign-in would need it, a kept key does not.
    const down = await loginOutput(["--web-url", `http://localhost:${freePort()}`], home);
    assert.deepEqual([down.code, down.last], [0, kept]);
    assert.equal(await Deno.readTextFile(`${home}/.svc/credentials.json`), saved);
    const keys = await svcCli(dataDir, ["key", "list", "--account", account.accountId]);
    assert.equal(keys.keys.length, 1);

    const forced = await startTerminalLogin(["--web-url", webUrl, "--login"], home);
    assert.equal(await approveSignIn(dataDir, forced.link, account, webUrl), 200);
    assert.equal((await exitWithin(forced.process, 10_000))?.code, 0);
    assert.match(
      await forced.stderr(),
      new RegExp(
        `Signed in: account ${account.accountId}, .* It replaces the key saved before\\. The ` +
          `delegate key ${key.address} stays registered on account ${account.accountId}`,
      ),
    );
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
