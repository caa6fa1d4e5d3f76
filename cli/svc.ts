/**
 * `svc`: the operator CLI. Manages local-ledger accounts and delegate keys in `SVC_DATA_DIR`
 * (safe while the relayer runs) through the same owner-signed transactions as the dashboard,
 * and talks to a relayer as a signed client. `svc --help` lists the commands (`USAGE`); every
 * command takes `--json` and then prints exactly one JSON object on stdout.
 */
import { argsMessage, callerPath, flagValues } from "./args.ts";
import { checkCommandLine, type Invocation, parseCommandLine } from "./svc_command_line.ts";
import { visible } from "./visible_text.ts";
import { restrictNewFiles } from "@svc/app";
import { bypassProxyForLoopback } from "@svc/relayer/http";
import { SvcError } from "@svc/relayer/kit";
import { FileWriteError } from "./partial_file.ts";
import { relayerUrl, UsageError } from "./client_flags.ts";
import { type CliIo, processIo, writeLine } from "./io.ts";
import { LEDGER_USAGE, runLedgerCommand } from "./svc_ledger.ts";
import { MEMORY_COMMANDS, MEMORY_USAGE, type Output, runMemoryCommand } from "./svc_memories.ts";
import { PORTABILITY_USAGE, runPortabilityCommand } from "./svc_portability.ts";
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

/** The commands, by name; one answers `undefined` for a subcommand it does not know. */
const COMMANDS: Record<string, (invocation: Invocation) => Promise<Output | undefined>> = {
  account: runLedgerCommand,
  key: runLedgerCommand,
  ...Object.fromEntries(MEMORY_COMMANDS.map((name) => [name, runMemoryCommand])),
  export: runPortabilityCommand,
  import: runPortabilityCommand,
  blind: runBlind,
  log: runLogCommand,
  reindex: runReindex,
  migrate: runMigrate,
  upgrade: runUpgrade,
  "migrate-store": runMigrateStore,
};

/** Runs the command of `args`: what it prints, or the error it fails with. */
async function run(args: string[], io: CliIo): Promise<Output> {
  const { values, positionals, tokens } = parseCommandLine(args);
  const [command, ...given] = positionals;
  if (values.help) return { text: USAGE, json: { usage: USAGE } };
  if (!command) throw new UsageError("");
  checkCommandLine(command, given, tokens);
  // The files a command names, resolved from the folder it was given in.
  const path = callerFile(io);
  const fileAt = command === "import" ? 0 : command === "blind" && given[0] === "import" ? 1 : -1;
  // `svc import -` reads standard input.
  const stdin = command === "import" && given[0] === "-";
  const words = given.map((word, i) => i === fileAt && !stdin ? path(word) : word);
  const flags = {
    ...values,
    output: path(values.output),
    cache: path(values.cache),
    "passphrase-file": path(values["passphrase-file"]),
    namespaces: flagValues(tokens, "namespace"),
  };
  const out = Object.hasOwn(COMMANDS, command)
    ? await COMMANDS[command]({ command, words, flags, io })
    : undefined;
  if (out) return out;
  throw new UsageError(`unknown command: ${positionals.join(" ")}`);
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
  // Not after `--`, where it is text ("svc recall -- --json").
  const end = args.indexOf("--");
  const json = args.slice(0, end === -1 ? undefined : end).includes("--json");
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
    // Where stdout is gone (a pipe closed early), the error goes to stderr, as without --json.
    const told = json &&
      written(() => writeLine(io.stdout, JSON.stringify({ error: said, code, ...details })));
    if (usage) {
      writeLine(io.stderr, message ? `svc: ${visible(message, "\n")}\n${HELP_HINT}` : USAGE);
    } else if (!told) {
      writeLine(io.stderr, `svc: ${visible(message, "\n")}${hint(error, args, io.env)}`);
    }
    return usage ? 2 : 1;
  }
}

/** Whether `write` wrote, rather than threw. */
function written(write: () => void): boolean {
  try {
    write();
    return true;
  } catch {
    return false;
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
