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
import { type BridgeIdentity, createStdioBridge, type SignedOut } from "./svc_mcp/bridge.ts";
import { StdioTransport } from "./svc_mcp/stdio_transport.ts";
import { describeKeyLimits } from "@svc/relayer/rules";
import { createMcpServer } from "@svc/relayer/mcp";
import { openBlindMemory } from "./blind_memory.ts";
import { blindToolSession } from "./svc_mcp/blind_session.ts";
import { bypassProxyForLoopback, LOOPBACK_HOSTS } from "@svc/relayer/http";
import { SvcClient } from "@svc/relayer/client";
import { parseKeyLimits, SvcError } from "@svc/relayer/kit";
import { sleep } from "@svc/util/sleep";
import { openBrowser } from "./svc_mcp/browser.ts";
import { type Credentials, CredentialsFile } from "./svc_mcp/credentials.ts";
import { type PendingLogin, startLogin } from "./svc_mcp/login.ts";
import { writeLine } from "./io.ts";
import { visibleName } from "./visible_text.ts";
import {
  localPreset,
  parseStdioOptions,
  signInLabel,
  type StdioOptions,
  USAGE,
} from "./svc_mcp/options.ts";
import { UsageError } from "./client_flags.ts";

/** What `svc-mcp` reads and writes besides files and the network. */
export interface StdioIo {
  env: Record<string, string | undefined>;
  stdin: { readable: ReadableStream<Uint8Array>; isTerminal(): boolean };
  /** MCP frames only. */
  stdout: WritableStream<Uint8Array>;
  /** Everything else. */
  stderr: { writeSync(bytes: Uint8Array): number };
  /** This machine's name, for a new key's label. */
  hostname: string;
}

/** What the commands share: the options, the streams and the credentials file. */
interface Context {
  options: StdioOptions;
  io: StdioIo;
  file: CredentialsFile;
  /** Writes a line on stderr. */
  say(text: string): void;
  debug(message: string, fields?: Record<string, unknown>): void;
  /** Until when `login` waits for a relayer on this machine, its own and its dashboard. */
  localStartUntil: number;
}

/** How long `login` waits for a relayer or dashboard on this machine: it may be starting. */
const LOCAL_START_WAIT_MS = 30_000;

/**
 * Runs `svc-mcp <args>` with `io`, and answers its exit code once it is done: 0, 1 when it
 * failed, 2 for a usage error. Serving MCP, it is done when the host closes stdin.
 */
export async function main(args: string[], io: StdioIo): Promise<number> {
  const say = (text: string) => writeLine(io.stderr, text);
  let options: StdioOptions;
  try {
    options = parseStdioOptions(args, io.env, io.hostname);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    say(`svc-mcp: ${error.message}\n(\`svc-mcp --help\` lists its commands and options)`);
    return 2;
  }
  const home = io.env.HOME ?? io.env.USERPROFILE;
  if (!home) {
    say("svc-mcp: cannot find the home directory (set HOME)");
    return 2;
  }
  const context: Context = {
    options,
    io,
    file: CredentialsFile.inHome(home),
    say,
    debug(message, fields = {}) {
      if (options.debug) say(JSON.stringify({ svc_mcp: message, ...fields }));
    },
    localStartUntil: Date.now() + LOCAL_START_WAIT_MS,
  };
  if (options.command === "help") {
    say(USAGE);
    return 0;
  }
  if (options.command === "logout") {
    try {
      say((await signOut(context)) ?? "Not signed in.");
      return 0;
    } catch (error) {
      say(`svc-mcp: ${(error as Error).message}`);
      return 1;
    }
  }
  if (options.command === "status") return await status(context);
  if (options.command === "login" || (options.forceLogin && io.stdin.isTerminal())) {
    return await login(context);
  }
  if (io.stdin.isTerminal() && (await context.file.load()).kind !== "ok") {
    say(
      "svc-mcp is started by an MCP host over stdio. To sign in first, run:\n\n" +
        "  svc-mcp login --local    (or the preset of your relayer)\n\n" + USAGE,
    );
    return 1;
  }
  return options.blind ? await serveBlind(context) : await serve(context);
}

/**
 * Serves the memory tools over the operator-blind namespace on this machine (`--blind`), with
 * the saved credentials: the relayer only stores and syncs.
 */
async function serveBlind(context: Context): Promise<number> {
  const { options, file, io, say } = context;
  const loaded = await file.load();
  if (loaded.kind !== "ok") {
    say("svc-mcp --blind serves with saved credentials: sign in first (svc-mcp login)");
    return 1;
  }
  const { credentials } = loaded;
  let opened;
  try {
    opened = await openBlindMemory(
      {
        baseUrl: options.relayer ?? credentials.relayerUrl,
        privateKey: credentials.delegatePrivateKey,
        accountId: credentials.accountId,
      },
      (name) => io.env[name],
      { namespace: options.namespace, cacheFile: options.cacheFile },
    );
  } catch (error) {
    say(`svc-mcp: ${(error as Error).message}`);
    return 1;
  }
  const server = createMcpServer(blindToolSession(opened.memory));
  const closed = Promise.withResolvers<void>();
  const transport = new StdioTransport(io.stdin.readable, io.stdout);
  transport.onclose = () => closed.resolve();
  await server.connect(transport);
  context.debug("serving the operator-blind namespace on stdio", { ns: opened.memory.namespace });
  await closed.promise;
  await Promise.all([server.close(), opened.close()]).catch(() => {});
  return 0;
}

/** What signing out leaves: the key on the account, and how to revoke it. */
const removedKeyHint = ({ delegateAddress, accountId }: Credentials) =>
  `The delegate key ${delegateAddress} stays registered on account ${accountId}: remove it on ` +
  "the dashboard to revoke it (for an account made with `svc account create`: `deno task svc " +
  `key remove --account ${accountId} --address ${delegateAddress}\`).`;

/** Deletes the credentials; what that leaves, or `undefined` when there were none. */
async function signOut({ file }: Context): Promise<string | undefined> {
  const saved = await file.load();
  if (!await file.remove()) return undefined;
  const hint = saved.kind === "ok" ? ` ${removedKeyHint(saved.credentials)}` : "";
  return `Signed out: deleted ${file.path}.${hint}`;
}

/** The relayer a new sign-in registers with: flag, preset or environment, else local. */
async function loginRelayer({ options, file, io }: Context): Promise<string> {
  if (options.relayer) return options.relayer;
  const saved = await file.load();
  return saved.kind === "ok" ? saved.credentials.relayerUrl : localPreset(io.env).relayer;
}

/** What a sign-in asks for, in words: the scope of `--scope` and the expiry of `--expires`. */
function asked({ scope, expires }: StdioOptions): string {
  return `The key it adds asks for: ${describeKeyLimits(scope)}${
    expires ? `, expiring ${expires.includes("T") ? "at" : "after"} ${expires}` : ""
  } (you may narrow it on the dashboard).`;
}

/** Starts a sign-in and opens its link in the browser unless told not to (or headless). */
async function beginLogin(
  context: Context,
  host?: string,
): Promise<{ login: PendingLogin; opened: boolean }> {
  const { options, file, io } = context;
  const login = await startLogin({
    webUrl: options.webUrl,
    relayerUrl: await loginRelayer(context),
    label: signInLabel(options, host),
    file,
    scope: options.scope,
    expires: options.expires,
  });
  const opened = !options.noBrowser && openBrowser(login.url, { env: io.env });
  context.debug("sign-in link made", { browser: opened ? "opened" : "not opened" });
  return { login, opened };
}

/**
 * Whether `url` answers; one on this machine is waited for (a relayer started a moment ago, as in
 * `deno task start &` followed by this command), saying so: `waiting` says what for.
 */
async function answers(context: Context, url: string, waiting: string): Promise<boolean> {
  const answered = () =>
    fetch(url, { signal: AbortSignal.timeout(10_000) })
      .then(async (response) => (await response.body?.cancel(), true), () => false);
  if (await answered()) return true;
  if (!LOOPBACK_HOSTS.includes(new URL(url).hostname)) return false;
  context.say(`Waiting for ${waiting}…`);
  while (Date.now() < context.localStartUntil) {
    await sleep(250);
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

/**
 * `svc-mcp status`: the relayer it would bridge to (its version and embedder), and the saved
 * sign-in; exits 0 when the relayer answers and the saved key works.
 */
async function status(context: Context): Promise<number> {
  const { say, file } = context;
  const relayer = (await loginRelayer(context)).replace(/\/+$/, "");
  const health = await fetch(`${relayer}/health`, { signal: AbortSignal.timeout(10_000) })
    .then((response) => response.json())
    .catch(() => undefined);
  say(
    health?.backends
      ? `Relayer ${relayer}: version ${visibleName(String(health.version))}, embedder ` +
        visibleName(String(health.backends.embedder))
      : `Relayer ${relayer}: does not answer`,
  );
  const saved = await file.load();
  if (saved.kind === "corrupt") {
    say(`Not signed in: ${saved.reason}. Run \`svc-mcp login\` to sign in anew.`);
    return 1;
  }
  if (saved.kind !== "ok" || saved.credentials.relayerUrl.replace(/\/+$/, "") !== relayer) {
    say("Not signed in with this relayer: run `svc-mcp login`.");
    return 1;
  }
  const { accountId, delegateAddress } = saved.credentials;
  const { works, reason } = health ? await keyWorks(saved.credentials) : { reason: "" };
  say(
    `Signed in: account ${accountId}, key ${delegateAddress}` +
      (works
        ? " (it works)"
        : works === false
        ? ` (it no longer works: ${reason})`
        : ` (not checked: ${reason || "the relayer does not answer"})`),
  );
  return works ? 0 : 1;
}

/**
 * `svc-mcp login` (or `--login` in a terminal): signs in on the dashboard and saves the new key,
 * even when the saved one works (the specification: the `login` command forces a new sign-in).
 * The saved key, checked first, is named as the one replaced unless the relayer no longer knows it.
 */
async function login(context: Context): Promise<number> {
  const { options, file, say } = context;
  const saved = await file.load();
  const previous = saved.kind === "ok" ? saved.credentials : undefined;
  let replaced = previous;
  if (previous && (options.relayer ?? previous.relayerUrl) === previous.relayerUrl) {
    const relayer = previous.relayerUrl;
    const { works, gone, reason } = await answers(
        context,
        `${relayer.replace(/\/+$/, "")}/health`,
        `the relayer at ${relayer} to answer (it may be starting)`,
      )
      ? await keyWorks(previous)
      : { reason: `the relayer at ${relayer} does not answer` };
    if (works === false) {
      say(`The saved key no longer works (${reason}); signing in again.`);
      if (gone === "unknown_key") replaced = undefined; // on no account: nothing to remove
    } else {
      say(
        `Signing in again: the key saved for account ${previous.accountId} ` +
          `(${previous.delegateAddress}) is replaced once you approve.`,
      );
    }
  }
  // The link is the dashboard's: one that does not answer would be a dead link to wait on.
  const dashboard = `the dashboard at ${options.webUrl} to answer (its relayer may be starting)`;
  if (!await answers(context, options.webUrl, dashboard)) {
    say(
      `svc-mcp: cannot sign in: the dashboard at ${options.webUrl} does not answer. Start the ` +
        "relayer (`deno task start`, which serves it), or give --web-url (for --local, the " +
        "port is SVC_DASHBOARD_PORT's).",
    );
    return 1;
  }
  const { login, opened } = await beginLogin(context);
  say(
    `${opened ? "Opened your browser. If it did not appear, open" : "Open"} this link within ` +
      `5 minutes to sign in:\n\n  ${login.url}\n\n` +
      `Confirmation code: ${login.code} (the dashboard shows the same code).\n${asked(options)}`,
  );
  try {
    const credentials = await login.done;
    // The scope the dashboard approved, as the listener checked and saved it.
    const limits = credentials.scope && parseKeyLimits({ ...credentials.scope });
    const approved = limits
      ? ` The key may do: ${describeKeyLimits(limits.scope, limits.expiresAt)}.`
      : "";
    say(
      `Signed in: account ${credentials.accountId}, saved to ${file.path}.${approved}` +
        (replaced ? ` It replaces the key saved before. ${removedKeyHint(replaced)}` : ""),
    );
    return 0;
  } catch (error) {
    say(`svc-mcp: ${(error as Error).message}; run \`svc-mcp login\` again to retry`);
    return 1;
  }
}

/**
 * Serves MCP on stdio, bridged to the relayer of the saved credentials (or signed out, with
 * `svc_login`), until the host closes stdin and the requests read were answered (see
 * `END_WAIT_MS`); then ends the pending sign-in and the relayer session, within 2 s whatever the
 * relayer does.
 */
async function serve(context: Context): Promise<number> {
  const { options, file, io, debug } = context;
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
      const { login, opened } = await beginLogin(context, host);
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
        `approve; calling svc_login again makes a new link. ${asked(options)}`;
    },
    async logout() {
      return (await signOut(context)) ?? "Not signed in: there were no credentials to delete.";
    },
  });

  const closed = Promise.withResolvers<void>();
  const transport = new StdioTransport(io.stdin.readable, io.stdout);
  transport.onclose = () => closed.resolve();
  await bridge.server.connect(transport);
  debug("serving MCP on stdio", { relayer: options.relayer ?? "(saved)", ns: options.namespace });
  await closed.promise;
  debug("stdin closed; exiting");
  const cleanUp = Promise.all([pending?.close(), bridge.close()]).catch(() => {});
  // With END_WAIT_MS before it, well inside the 2 s docs/mcp.md promises.
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([cleanUp, new Promise((resolve) => timer = setTimeout(resolve, 1200))]);
  clearTimeout(timer);
  return 0;
}

if (import.meta.main) {
  bypassProxyForLoopback();
  Deno.exit(
    await main(Deno.args, {
      env: Deno.env.toObject(),
      stdin: Deno.stdin,
      stdout: Deno.stdout.writable,
      stderr: Deno.stderr,
      hostname: Deno.hostname(),
    }),
  );
}
