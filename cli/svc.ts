/**
 * `svc`: the operator CLI. Manages local-ledger accounts and delegate keys in `SVC_DATA_DIR`
 * (safe while the relayer runs) through the same owner-signed transactions as the dashboard,
 * and talks to a relayer as a signed client. `svc --help` lists the commands (`USAGE`); every
 * command takes `--json` and then prints exactly one JSON object on stdout.
 */
import { argsMessage, callerPath, flagValues } from "./args.ts";
import { checkCommandLine, type CommandLine, parseCommandLine } from "./svc_command_line.ts";
import { visible } from "./visible_text.ts";
import { restrictNewFiles } from "@svc/app";
import { bypassProxyForLoopback } from "@svc/relayer/http";
import { SvcError } from "@svc/relayer/kit";
import { FileWriteError } from "./partial_file.ts";
import { accountIdOf, delegateKeyOf, relayerUrl, UsageError } from "./client_flags.ts";
import { type CliIo, processIo, writeLine } from "./io.ts";
import { LEDGER_COMMANDS, LEDGER_USAGE, runLedgerCommand } from "./svc_ledger.ts";
import { savedOwnerKey } from "./svc_ledger_access.ts";
import { MEMORY_COMMANDS, MEMORY_USAGE, type Output, runMemoryCommand } from "./svc_memories.ts";
import {
  PORTABILITY_COMMANDS,
  PORTABILITY_USAGE,
  runPortabilityCommand,
} from "./svc_portability.ts";
import { REINDEX_USAGE, runReindex } from "./svc_reindex.ts";
import { LOG_USAGE, runLogCommand } from "./svc_log.ts";
import { runMigrate, runUpgrade, STORE_USAGE } from "./svc_store.ts";
import { MIGRATE_STORE_USAGE, runMigrateStore } from "./svc_migrate_store.ts";
import { BLIND_USAGE, runBlind } from "./svc_blind.ts";

const USAGE = `usage: svc <command> [options]

${LEDGER_USAGE}

${MEMORY_USAGE}

${BLIND_USAGE}

${PORTABILITY_USAGE}
${REINDEX_USAGE}
${STORE_USAGE}
${MIGRATE_STORE_USAGE}
${LOG_USAGE}

Every command: --json prints exactly one JSON object on stdout.`;

/** Runs the command of `args`: what it prints, or the error it fails with. */
async function run(args: string[], io: CliIo): Promise<Output> {
  const line = parseCommandLine(args);
  const [command, sub, ...rest] = line.positionals;
  if (line.values.help) return { text: USAGE, json: { usage: USAGE } };
  if (!command) throw new UsageError("");
  const words = [sub, ...rest].filter((word) => word !== undefined);
  checkCommandLine(command, words, line.tokens);
  return await runCommand(command, words, line, io);
}

/** Runs `command` (`given`: the words after it) of a command line already checked. */
async function runCommand(
  command: string,
  given: string[],
  { values, positionals, tokens }: CommandLine,
  io: CliIo,
): Promise<Output> {
  const env = (name: string) => io.env[name];
  const dataDir = env("SVC_DATA_DIR") || "./data";
  // The files a command names, resolved from the folder it was given in.
  const path = callerFile(io);
  const fileAt = command === "import" ? 0 : command === "blind" && given[0] === "import" ? 1 : -1;
  const words = given.map((word, i) => i === fileAt ? path(word) : word);
  const flags = {
    ...values,
    output: path(values.output),
    cache: path(values.cache),
    "passphrase-file": path(values["passphrase-file"]),
  };
  if (LEDGER_COMMANDS.includes(command)) {
    const out = await runLedgerCommand(command, words[0], values, { dataDir, env: io.env });
    if (out) return out;
  }
  if (command === "reindex") {
    return await runReindex(values.embedder, io.env, {
      write: (text) => io.stderr.writeSync(new TextEncoder().encode(text)),
      terminal: io.stderr.isTerminal(),
    });
  }
  if (command === "migrate") return await runMigrate(io.env);
  if (command === "upgrade") return await runUpgrade(io.env);
  if (command === "migrate-store") {
    return await runMigrateStore(values.to, io.env, io.stderr);
  }
  if (command === "log") return await runLog(values, dataDir, io);
  if (command === "blind") return await runBlind(words[0], words.slice(1), flags, env, io.fetch);
  if (MEMORY_COMMANDS.includes(command)) {
    return await runMemoryCommand(command, words, values, env, io.stdin, io.fetch);
  }
  if (PORTABILITY_COMMANDS.includes(command)) {
    const namespaces = flagValues(tokens, "namespace");
    return await runPortabilityCommand(command, words, { ...flags, namespaces }, io);
  }
  throw new UsageError(`unknown command: ${positionals.join(" ")}`);
}

/** `log`, read with the account's owner key or a delegate key with the audit scope. */
async function runLog(values: CommandLine["values"], dataDir: string, io: CliIo): Promise<Output> {
  const env = (name: string) => io.env[name];
  const account = accountIdOf(values.account, env);
  const delegateKey = env("SVC_DELEGATE_KEY");
  // The account's owner key when the data directory has it: for --account, or for
  // SVC_ACCOUNT_ID without a SVC_DELEGATE_KEY, which is otherwise the key the log is read with
  // (it needs `audit`; --key is the log's filter, not a key).
  const byOwner = values.account !== undefined || !delegateKey ? account : undefined;
  const ownerKey = byOwner && await savedOwnerKey({ dataDir, env: io.env }, byOwner);
  if (!ownerKey && !delegateKey && account) {
    throw new UsageError(
      `missing SVC_DELEGATE_KEY: the owner key of account ${account} is not in ` +
        `${dataDir}/owner_keys nor SVC_OWNER_KEY, so the log is read with a delegate key that ` +
        "has the audit scope (or with SVC_DATA_DIR where `svc account create` made the account)",
    );
  }
  const privateKey = ownerKey ||
    delegateKeyOf(undefined, env, "SVC_DELEGATE_KEY");
  return await runLogCommand(values, privateKey, env, io.fetch);
}

/**
 * A file's path as given, resolved from the folder the command was given in; an empty path is
 * left empty (missing), not taken for the folder it is resolved in.
 */
function callerFile(io: CliIo) {
  return <P extends string | undefined>(given: P): P =>
    given === undefined || given === ""
      ? given
      : callerPath(given, io.env.INIT_CWD, io.cwd, taskFolder()) as P;
}

/** The folder `deno task svc` runs this in: the one of `deno.json`, above `cli/`. */
function taskFolder(): string | undefined {
  try {
    return Deno.realPathSync(new URL("..", import.meta.url));
  } catch {
    return undefined; // not run from a folder (from a URL, or compiled)
  }
}

const HELP_HINT = "(`svc --help` lists every command and its options)";

const UNREACHABLE_HINT = "\nIs it running (`deno task start`)? SVC_SERVER_URL (or a client " +
  "command's --relayer) gives another address.";

/**
 * Runs `svc <args>` with `io`'s environment and streams, and answers its exit code: 0, 1 when it
 * failed, 2 for a usage error.
 */
export async function main(args: string[], io: CliIo): Promise<number> {
  const json = args.includes("--json");
  try {
    const out = await run(args, io);
    // Memory texts, tags and labels are the agents': their control characters are shown.
    writeLine(io.stdout, json ? JSON.stringify(out.json) : visible(out.text, "\n\t"));
    return out.failed ? 1 : 0;
  } catch (error) {
    const usage = error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith?.("ERR_PARSE_ARGS");
    const message = argsMessage(error);
    const code = error instanceof SvcError
      ? error.code
      : usage
      ? "usage"
      : error instanceof FileWriteError
      ? "write_failed"
      : "internal";
    const details = error instanceof SvcError ? error.details : {};
    const said = message || "no command given: `svc --help` lists every command";
    if (json) writeLine(io.stdout, JSON.stringify({ error: said, code, ...details }));
    if (usage) {
      writeLine(io.stderr, message ? `svc: ${visible(message, "\n")}\n${HELP_HINT}` : USAGE);
    } else if (!json) {
      writeLine(io.stderr, `svc: ${visible(message, "\n")}${hint(error, args, io.env)}`);
    }
    return usage ? 2 : 1;
  }
}

/** What a user may do about a client command's `error`: a line to add to its message, or "". */
function hint(error: unknown, args: string[], env: CliIo["env"]): string {
  if (!(error instanceof SvcError)) return "";
  const { code, details, message } = error;
  // The client's failure to connect at all (not an answer of the relayer).
  if (message.startsWith("Cannot reach the relayer")) return UNREACHABLE_HINT;
  if (details.reason === "stale_timestamp" && typeof details.server_time === "number") {
    const offset = Math.round(Date.now() / 1000 - details.server_time);
    const ahead = offset > 0 ? "ahead of" : "behind";
    return `\n(This machine's clock is ${Math.abs(offset)} s ${ahead} the relayer's.)`;
  }
  if (code === "rate_limited" && typeof details.retry_after_seconds === "number") {
    return `\n(Try again in ${details.retry_after_seconds} s.)`;
  }
  if (code === "unauthorized" && details.reason !== "wrong_passphrase") {
    // The key was refused, so the relayer was asked: its address is valid.
    const { relayer } = parseCommandLine(args).values;
    return `\n(The relayer at ${relayerUrl(relayer, (name) => env[name])} refused the key; ` +
      "--relayer or SVC_SERVER_URL names another relayer.)";
  }
  return "";
}

if (import.meta.main) {
  // The ledger and owner keys it creates in the data directory are the user's only.
  restrictNewFiles();
  bypassProxyForLoopback();
  Deno.exit(await main(Deno.args, processIo()));
}
