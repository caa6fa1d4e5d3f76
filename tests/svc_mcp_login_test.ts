/**
 * `svc-mcp login` from a terminal: it waits for a dashboard on this machine that is starting
 * (`deno task start &` and the login typed at once), keeps a saved key that works rather than
 * adding a second one, and signs in again when the relayer refuses the saved key.
 */
import assert from "node:assert/strict";
import { generateKeyPair } from "../src/auth/keys.ts";
import {
  approveSignIn,
  exitWithin,
  freePort,
  ROOT,
  saveCredentials,
  startRelayer,
  startTerminalLogin,
  svcCli,
} from "./relayer_process.ts";

/** Runs `svc-mcp login ARGS` with `home` as HOME to its end: exit code and stderr's last line. */
async function loginOutput(args: string[], home: string) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}cli/svc_mcp.ts`, "login", ...args, "--no-browser"],
    env: { HOME: home, PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdin: "null",
  }).output();
  assert.equal(new TextDecoder().decode(stdout), "", "stdout carries only MCP frames");
  const printed = new TextDecoder().decode(stderr);
  return { code, printed, last: printed.trimEnd().split("\n").at(-1) };
}

/** A stand-in for the dashboard's page on `port` (the sign-in's callbacks go to svc-mcp). */
const fakeDashboard = (port = 0) =>
  Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, () => new Response("dashboard"));

Deno.test("svc-mcp login: a dashboard on this machine that never answers is waited for, then named", async () => {
  const home = await Deno.makeTempDir();
  const webUrl = `http://localhost:${freePort()}`;
  const { code, printed, last } = await loginOutput(["--web-url", webUrl], home);
  assert.equal(code, 1);
  assert.match(
    printed,
    new RegExp(
      `Waiting for the dashboard at ${webUrl} to answer \\(its relayer may be starting\\)`,
    ),
  );
  assert.equal(
    last,
    `svc-mcp: cannot sign in: the dashboard at ${webUrl} does not answer. Start the relayer ` +
      "(`deno task start`, which serves it), or give --web-url (for --local, the port is " +
      "SVC_DASHBOARD_PORT's).",
  );
  await Deno.remove(home, { recursive: true });
});

Deno.test("svc-mcp login: a dashboard that starts a moment after the command is waited for", async () => {
  const home = await Deno.makeTempDir();
  const port = freePort();
  const webUrl = `http://localhost:${port}`;
  let dashboard: Deno.HttpServer | undefined;
  const starting = setTimeout(() => dashboard = fakeDashboard(port), 1_500);
  try {
    const login = await startTerminalLogin(
      ["--relayer", "http://127.0.0.1:9", "--web-url", webUrl],
      home,
    );
    assert.ok(dashboard, "the link came before the dashboard answered");
    assert.equal(login.link.origin, webUrl);
    login.process.kill();
    assert.match(await login.stderr(), /Waiting for the dashboard[\s\S]*Open this link/);
  } finally {
    clearTimeout(starting);
    await dashboard?.shutdown();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("svc-mcp login while signed in: keeps a key that works; --login replaces it and names it", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  await using relayer = await startRelayer(dataDir);
  await using dashboard = fakeDashboard();
  const webUrl = `http://localhost:${dashboard.addr.port}`;
  const account = await svcCli(dataDir, ["account", "create"]);
  const key = await svcCli(dataDir, ["key", "add", "--account", account.accountId]);
  await saveCredentials(home, relayer.url, account.accountId, key);
  const saved = await Deno.readTextFile(`${home}/.svc/credentials.json`);

  const again = await loginOutput(["--web-url", webUrl], home);
  assert.equal(again.code, 0);
  assert.equal(
    again.last,
    `Already signed in: account ${account.accountId}, key ${key.address}, saved in ` +
      `${home}/.svc/credentials.json. To sign in with a new key (another scope, say), add ` +
      "--login; `svc-mcp --logout` signs this one out.",
  );
  assert.equal(await Deno.readTextFile(`${home}/.svc/credentials.json`), saved);
  assert.equal(
    (await svcCli(dataDir, ["key", "list", "--account", account.accountId])).keys.length,
    1,
  );

  const login = await startTerminalLogin(["--web-url", webUrl, "--login"], home);
  assert.equal(await approveSignIn(dataDir, login.link, account, webUrl), 200);
  assert.equal((await exitWithin(login.process, 10_000))?.code, 0);
  assert.match(
    await login.stderr(),
    new RegExp(
      `Signed in: account ${account.accountId}, .* It replaces the key saved before\\. The ` +
        `delegate key ${key.address} stays registered on account ${account.accountId}`,
    ),
  );
  await Deno.remove(dataDir, { recursive: true });
  await Deno.remove(home, { recursive: true });
});

Deno.test("svc-mcp login: a saved key the relayer refuses is replaced by a new sign-in", async () => {
  const dataDir = await Deno.makeTempDir();
  const home = await Deno.makeTempDir();
  await using relayer = await startRelayer(dataDir);
  await using dashboard = fakeDashboard();
  const webUrl = `http://localhost:${dashboard.addr.port}`;
  const account = await svcCli(dataDir, ["account", "create"]);
  // A key no account knows: removed on the dashboard since, say.
  await saveCredentials(home, relayer.url, account.accountId, await generateKeyPair());

  const login = await startTerminalLogin(["--web-url", webUrl], home);
  assert.equal(await approveSignIn(dataDir, login.link, account, webUrl), 200);
  assert.equal((await exitWithin(login.process, 10_000))?.code, 0);
  const printed = await login.stderr();
  assert.match(printed, /The saved key no longer works \(.+\); signing in again\./);
  assert.match(printed, /Signed in: account /);
  assert.doesNotMatch(printed, /It replaces the key saved before/);
  await Deno.remove(dataDir, { recursive: true });
  await Deno.remove(home, { recursive: true });
});
