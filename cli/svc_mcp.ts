/**
 * `svc-mcp`: the stdio MCP package that MCP hosts launch. It signs in through the dashboard
 * (`svc_login` or the `login` command), keeps credentials in `~/.svc/credentials.json`, and
 * bridges the memory tools to a relayer. stdout carries only MCP frames; everything else goes
 * to stderr.
 *
 *   svc-mcp [--local | --prod | --dev | --staging] [--relayer URL] [--namespace NS]
 *   svc-mcp login --local [--scope read,write:work] [--expires 30d]
 *   svc-mcp --logout
 */
import { type BridgeIdentity, createStdioBridge, type SignedOut } from "../src/mcp/bridge.ts";
import { StdioTransport } from "../src/mcp/stdio_transport.ts";
import { describeKeyLimits } from "../src/auth/key_limits.ts";
import { bypassProxyForLoopback, LOOPBACK_HOSTS } from "../src/http/relayer_names.ts";
import { SvcClient, SvcError } from "../src/client/mod.ts";
import { openBrowser } from "./svc_mcp/browser.ts";
import { type Credentials, CredentialsFile } from "./svc_mcp/credentials.ts";
import { type PendingLogin, startLogin } from "./svc_mcp/login.ts";
import {
  localPreset,
  parseStdioOptions,
  signInLabel,
  type StdioOptions,
  USAGE,
  UsageError,
} from "./svc_mcp/options.ts";

bypassProxyForLoopback();
const env = Deno.env.toObject();
let options: StdioOptions;
try {
  options = parseStdioOptions(Deno.args, env, Deno.hostname());
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`svc-mcp: ${error.message}\n(\`svc-mcp --help\` lists its commands and options)`);
  Deno.exit(2);
}
const home = env.HOME ?? env.USERPROFILE;
if (!home) {
  console.error("svc-mcp: cannot find the home directory (set HOME)");
  Deno.exit(2);
}
const file = CredentialsFile.inHome(home);
const debug = (message: string, fields: Record<string, unknown> = {}) => {
  if (options.debug) console.error(JSON.stringify({ svc_mcp: message, ...fields }));
};
/** What signing out leaves: the key on the account, and how to revoke it. */
const removedKeyHint = ({ delegateAddress, accountId }: Credentials) =>
  `The delegate key ${delegateAddress} stays registered on account ${accountId}: remove it on ` +
  "the dashboard to revoke it (for an account made with `svc account create`: `deno task svc " +
  `key remove --account ${accountId} --address ${delegateAddress}\`).`;

/** Deletes the credentials; what that leaves, or `undefined` when there were none. */
async function signOut(): Promise<string | undefined> {
  const saved = await file.load();
  if (!await file.remove()) return undefined;
  const hint = saved.kind === "ok" ? ` ${removedKeyHint(saved.credentials)}` : "";
  return `Signed out: deleted ${file.path}.${hint}`;
}

/** The relayer a new sign-in registers with: flag, preset or environment, else local. */
async function loginRelayer(): Promise<string> {
  if (options.relayer) return options.relayer;
  const saved = await file.load();
  return saved.kind === "ok" ? saved.credentials.relayerUrl : localPreset(env).relayer;
}

if (options.command === "help") {
  console.error(USAGE);
  Deno.exit(0);
}
if (options.command === "logout") {
  try {
    console.error((await signOut()) ?? "Not signed in.");
  } catch (error) {
    console.error(`svc-mcp: ${(error as Error).message}`);
    Deno.exit(1);
  }
  Deno.exit(0);
}
/** What a sign-in asks for, in words: the scope of `--scope` and the expiry of `--expires`. */
const asked = `The key it adds asks for: ${describeKeyLimits(options.scope)}${
  options.expires
    ? `, expiring ${options.expires.includes("T") ? "at" : "after"} ${options.expires}`
    : ""
} (you may narrow it on the dashboard).`;

/** Starts a sign-in and opens its link in the browser unless told not to (or headless). */
async function beginLogin(host?: string): Promise<{ login: PendingLogin; opened: boolean }> {
  const login = await startLogin({
    webUrl: options.webUrl,
    relayerUrl: await loginRelayer(),
    label: signInLabel(options, host),
    file,
    scope: options.scope,
    expires: options.expires,
  });
  const opened = !options.noBrowser && openBrowser(login.url, { env });
  debug("sign-in link made", { browser: opened ? "opened" : "not opened" });
  return { login, opened };
}

/** How long `login` waits for a relayer or dashboard on this machine: it may be starting. */
const LOCAL_START_WAIT_MS = 30_000;

/** Until when `login` waits for a relayer on this machine, its own and its dashboard. */
const localStartUntil = Date.now() + LOCAL_START_WAIT_MS;

/**
 * Whether `url` answers; one on this machine is waited for (a relayer started a moment ago, as in
 * `deno task start &` followed by this command), saying so: `waiting` says what for.
 */
async function answers(url: string, waiting: string): Promise<boolean> {
  const answered = () =>
    fetch(url, { signal: AbortSignal.timeout(10_000) })
      .then(async (response) => (await response.body?.cancel(), true), () => false);
  if (await answered()) return true;
  if (!LOOPBACK_HOSTS.includes(new URL(url).hostname)) return false;
  console.error(`Waiting for ${waiting}…`);
  while (Date.now() < localStartUntil) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (await answered()) return true;
  }
  return false;
}

/**
 * Whether the saved credentials' key still works with their relayer: `works` true, false (the
 * relayer refuses it as removed, `unknown_key`, or expired, `expired_key`: `gone` says which) or
 * absent (not checked: why in `reason`, such as a relayer that does not answer within 10 s).
 */
async function keyWorks(
  credentials: Credentials,
): Promise<{ works?: boolean; gone?: string; reason: string }> {
  try {
    const client = await SvcClient.create({
      baseUrl: credentials.relayerUrl,
      privateKey: credentials.delegatePrivateKey,
      accountId: credentials.accountId,
      retries: 0,
      fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(10_000) }),
    });
    await client.whoami();
    return { works: true, reason: "" };
  } catch (error) {
    if (!(error instanceof SvcError)) return { reason: "no answer it could read" };
    const gone = error.details.reason;
    return gone === "unknown_key" || gone === "expired_key"
      ? { works: false, gone, reason: error.message }
      : { reason: error.message };
  }
}

if (options.command === "login" || (options.forceLogin && Deno.stdin.isTerminal())) {
  // Signed in already with this relayer: a working key is kept (a second key only with --login,
  // and then the one it replaces is named); the saved relayer's key is checked first.
  const saved = await file.load();
  const previous = saved.kind === "ok" ? saved.credentials : undefined;
  let replaced = previous;
  if (previous && (options.relayer ?? previous.relayerUrl) === previous.relayerUrl) {
    const relayer = previous.relayerUrl;
    const { works, gone, reason } = await answers(
        `${relayer.replace(/\/+$/, "")}/health`,
        `the relayer at ${relayer} to answer (it may be starting)`,
      )
      ? await keyWorks(previous)
      : { reason: `the relayer at ${relayer} does not answer` };
    if (works === false) {
      console.error(`The saved key no longer works (${reason}); signing in again.`);
      if (gone === "unknown_key") replaced = undefined; // on no account: nothing to remove
    } else if (!options.forceLogin) {
      console.error(
        `Already signed in: account ${previous.accountId}, key ${previous.delegateAddress}` +
          `${works ? "" : ` (not checked: ${reason.replace(/\.$/, "")})`}, saved in ` +
          `${file.path}. To sign in with a new key (another scope, say), add --login; ` +
          "`svc-mcp --logout` signs this one out.",
      );
      Deno.exit(0);
    }
  }
  // The link is the dashboard's: one that does not answer would be a dead link to wait on.
  const dashboard = `the dashboard at ${options.webUrl} to answer (its relayer may be starting)`;
  if (!await answers(options.webUrl, dashboard)) {
    console.error(
      `svc-mcp: cannot sign in: the dashboard at ${options.webUrl} does not answer. Start the ` +
        "relayer (`deno task start`, which serves it), or give --web-url (for --local, the " +
        "port is SVC_DASHBOARD_PORT's).",
    );
    Deno.exit(1);
  }
  const { login, opened } = await beginLogin();
  console.error(
    `${opened ? "Opened your browser. If it did not appear, open" : "Open"} this link within ` +
      `5 minutes to sign in:\n\n  ${login.url}\n\n` +
      `Confirmation code: ${login.code} (the dashboard shows the same code).\n${asked}`,
  );
  try {
    const credentials = await login.done;
    const { scope } = credentials;
    const approved = scope
      ? ` The key may do: ${
        describeKeyLimits(
          {
            ...(scope.namespaces ? { namespaces: scope.namespaces } : {}),
            ...(scope.operations ? { operations: scope.operations } : {}),
          },
          scope.expires_at ? Date.parse(scope.expires_at) : undefined,
        )
      }.`
      : "";
    console.error(
      `Signed in: account ${credentials.accountId}, saved to ${file.path}.${approved}` +
        (replaced ? ` It replaces the key saved before. ${removedKeyHint(replaced)}` : ""),
    );
    Deno.exit(0);
  } catch (error) {
    console.error(`svc-mcp: ${(error as Error).message}; run \`svc-mcp login\` again to retry`);
    Deno.exit(1);
  }
}
if (Deno.stdin.isTerminal() && (await file.load()).kind !== "ok") {
  console.error(
    "svc-mcp is started by an MCP host over stdio. To sign in first, run:\n\n" +
      "  svc-mcp login --local    (or the preset of your relayer)\n\n" + USAGE,
  );
  Deno.exit(1);
}

let ignoreSaved = options.forceLogin;
let pending: PendingLogin | undefined;

async function identity(): Promise<BridgeIdentity | SignedOut> {
  // How the last sign-in of this process ended: saved credentials, or why not (denied, expired).
  const outcome = pending?.outcome();
  const reason = outcome instanceof Error ? outcome.message.replace(/\.?$/, ".") : undefined;
  if (ignoreSaved && (outcome === undefined || reason)) return { reason };
  const loaded = await file.load();
  if (loaded.kind === "missing") return { reason };
  if (loaded.kind === "corrupt") {
    debug("credentials unusable", { reason: loaded.reason });
    return { reason: `The svc credentials are unusable (${loaded.reason}).` };
  }
  const { credentials } = loaded;
  debug("credentials loaded", { path: file.path, account: credentials.accountId });
  return {
    relayerUrl: options.relayer ?? credentials.relayerUrl,
    delegatePrivateKey: credentials.delegatePrivateKey,
    accountId: credentials.accountId,
  };
}

const bridge = createStdioBridge({
  identity,
  namespace: options.namespace,
  debug,
  async login(host) {
    await pending?.close();
    const { login, opened } = await beginLogin(host);
    pending = login;
    login.done.then((credentials) => {
      ignoreSaved = false;
      debug("signed in", { account: credentials.accountId });
      bridge.identityChanged();
    }, () => {});
    return `${
      opened
        ? "A browser window was opened to sign in to svc memory. If it did not " +
          "appear, open"
        : "To sign in to svc memory, open"
    } this link within 5 minutes (it ` +
      `works once):\n\n${login.url}\n\nConfirmation code: ${login.code} — the dashboard ` +
      "shows the same code; approve only if they match. The memory tools work as soon as you " +
      `approve; calling svc_login again makes a new link. ${asked}`;
  },
  async logout() {
    return (await signOut()) ?? "Not signed in: there were no credentials to delete.";
  },
});

/**
 * The host closed stdin (it quit, or dropped this server) and the requests read were answered
 * (see `END_WAIT_MS`): end the pending sign-in and the relayer session, then exit, within 2 s
 * whatever the relayer does.
 */
let exiting = false;
async function exit(): Promise<never> {
  if (!exiting) {
    exiting = true;
    debug("stdin closed; exiting");
    const cleanUp = Promise.all([pending?.close(), bridge.close()]).catch(() => {});
    // With END_WAIT_MS before it, well inside the 2 s the README promises.
    await Promise.race([cleanUp, new Promise((resolve) => setTimeout(resolve, 1200))]);
  }
  Deno.exit(0);
}
const transport = new StdioTransport();
transport.onclose = exit;
await bridge.server.connect(transport);
debug("serving MCP on stdio", { relayer: options.relayer ?? "(saved)", ns: options.namespace });
