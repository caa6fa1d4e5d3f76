/**
 * The command line of `svc`: the flags every command takes, and the checks that refuse a command
 * line that would do other than it says before anything is read or sent.
 */
import { parseArgs } from "node:util";
import { type FlagToken, flagValues, repeatedFlag } from "./args.ts";
import { visible } from "./visible_text.ts";
import { validNamespace } from "@svc/relayer/rules";
import { asRelayerChecks, UsageError } from "./client_flags.ts";
import type { CliIo } from "./io.ts";

/**
 * How many words each command takes after its name (a subcommand counts as one); any more is a
 * usage error rather than ignored. `remember` and `recall` take any number (their text).
 */
const WORDS: Record<string, number> = {
  account: 1,
  key: 1,
  list: 0,
  get: 1,
  forget: 1,
  update: 1,
  restore: 0,
  whoami: 0,
  namespaces: 0,
  export: 0,
  import: 1,
  log: 0,
  reindex: 0,
  migrate: 0,
  upgrade: 0,
  "migrate-store": 0,
};

/** The flags of the client commands, which sign requests to a relayer. */
const CLIENT = ["relayer", "account", "key"];

/** The flags of every `blind` subcommand: a client's, and where its namespace is read. */
const BLIND = [...CLIENT, "namespace", "model-dir", "cache"];

/**
 * The flags each command takes besides `--json` and `--help`: any other is a usage error
 * rather than ignored (`remember --expires 30d` would store a memory that never expires).
 */
const FLAGS: Record<string, string[]> = {
  "account create": [],
  "account deactivate": ["account"],
  "account reactivate": ["account"],
  "key add": [
    "account",
    "label",
    "public-key",
    "expires",
    "expires-at",
    "namespace",
    "operations",
    "read-only",
    "audit",
  ],
  "key list": ["account"],
  "key remove": ["account", "public-key", "address"],
  remember: [...CLIENT, "namespace", "tag", "thread", "ttl", "expires-at", "replaces", "wait"],
  recall: [...CLIENT, "namespace", "limit", "tag", "since", "until", "min-score", "explain"],
  list: [...CLIENT, "namespace", "limit", "cursor", "tag", "since", "until"],
  get: CLIENT,
  forget: [...CLIENT, "namespace", "confirm"],
  update: [...CLIENT, "text", "tag", "ttl", "expires-at", "wait"],
  restore: [...CLIENT, "namespace", "limit"],
  whoami: CLIENT,
  namespaces: CLIENT,
  export: [...CLIENT, "namespace", "all", "output", "passphrase-file", "passphrase"],
  import: [...CLIENT, "namespace", "from", "wait", "passphrase-file", "passphrase"],
  log: [...CLIENT, "op", "namespace", "memory", "since", "until", "limit", "cursor"],
  reindex: ["embedder"],
  migrate: [],
  upgrade: [],
  "migrate-store": ["to"],
  "blind enable": BLIND,
  "blind move": BLIND,
  "blind remember": [...BLIND, "tag", "thread"],
  "blind recall": [...BLIND, "limit", "tag", "min-score", "explain"],
  "blind list": BLIND,
  "blind update": [...BLIND, "text", "tag"],
  "blind forget": BLIND,
  "blind erase": [...BLIND, "confirm"],
  "blind let-in": [...BLIND, "public-key"],
  "blind export": [...BLIND, "output"],
  "blind import": BLIND,
};

/** The subcommands of `command` (`blind`), in the order `FLAGS` lists them. */
export function subcommandsOf(command: string): string[] {
  const prefix = `${command} `;
  return Object.keys(FLAGS).flatMap((name) =>
    name.startsWith(prefix) ? [name.slice(prefix.length)] : []
  );
}

/** Why a flag of the command line is not one its command takes, or `undefined`. */
function foreignFlag(command: string, sub: string | undefined, tokens: FlagToken[]) {
  const name = ["account", "key", "blind"].includes(command) ? `${command} ${sub}` : command;
  const takes = FLAGS[name];
  if (!takes) return undefined; // an unknown command or subcommand: said below
  const other = tokens.find((token) =>
    token.kind === "option" && !["json", "help"].includes(token.name!) &&
    !takes.includes(token.name!)
  );
  if (!other) return undefined;
  const listed = takes.map((flag) => `--${flag}`).join(", ");
  return `${name} does not take ${other.rawName}` +
    (listed ? ` (it takes ${listed})` : " (it takes no options)");
}

/**
 * The command line's flags and words: every command's flags are known, any other refused. An
 * argument that is not UTF-8 reaches Deno with U+FFFD in place of its bytes: refused, as on
 * standard input, rather than stored so.
 */
export function parseCommandLine(args: string[]) {
  const garbled = args.findIndex((arg) => arg.includes("\uFFFD"));
  if (garbled >= 0) {
    throw new UsageError(`Argument ${garbled + 1} is not UTF-8 text (or holds U+FFFD)`);
  }
  return parseArgs({
    args,
    allowPositionals: true,
    tokens: true,
    options: {
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      account: { type: "string" },
      label: { type: "string" },
      "public-key": { type: "string" },
      "expires-at": { type: "string" },
      expires: { type: "string" },
      operations: { type: "string" },
      "read-only": { type: "boolean" },
      audit: { type: "boolean" },
      address: { type: "string" },
      namespace: { type: "string" },
      limit: { type: "string" },
      wait: { type: "boolean" },
      relayer: { type: "string" },
      key: { type: "string" },
      tag: { type: "string", multiple: true },
      thread: { type: "string" },
      "min-score": { type: "string" },
      explain: { type: "boolean" },
      ttl: { type: "string" },
      replaces: { type: "string" },
      cursor: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      text: { type: "string" },
      confirm: { type: "string" },
      all: { type: "boolean" },
      output: { type: "string", short: "o" },
      from: { type: "string" },
      "passphrase-file": { type: "string" },
      passphrase: { type: "string" },
      embedder: { type: "string" },
      op: { type: "string" },
      memory: { type: "string" },
      to: { type: "string" },
      "model-dir": { type: "string" },
      cache: { type: "string" },
    },
  });
}

/** The command line as parsed: its flags' values, its words and its tokens. */
export type CommandLine = ReturnType<typeof parseCommandLine>;

/** The flags' values, as the commands read them, with every `--namespace` given (in order). */
export type Flags = CommandLine["values"] & { namespaces?: string[] };

/** A command as `svc` runs it: its name, the words after it, its flags, and the process's io. */
export interface Invocation {
  command: string;
  words: string[];
  flags: Flags;
  io: CliIo;
}

/**
 * Refuses a command line that would do other than it says: a flag given twice or not the
 * command's, a namespace the relayer refuses, a word too many. `words`: those after the command.
 */
export function checkCommandLine(command: string, words: string[], tokens: CommandLine["tokens"]) {
  // A flag given twice is refused rather than its last value kept, but for those that collect.
  const collecting = command === "export" ? ["tag", "namespace"] : ["tag"];
  const repeated = repeatedFlag(tokens, collecting);
  if (repeated) {
    throw new UsageError(`${repeated} (only --tag, and export's --namespace, may be repeated)`);
  }
  const foreign = foreignFlag(command, words[0], tokens);
  if (foreign) throw new UsageError(foreign);
  // A namespace the relayer would refuse is a usage error before anything is read or sent
  // (`key add` takes a list of them, checked with its scope).
  if (command !== "key") {
    for (const namespace of flagValues(tokens, "namespace")) {
      asRelayerChecks(() => validNamespace(namespace, "--namespace"));
    }
  }
  const most = WORDS[command];
  if (most !== undefined && words.length > most) {
    const word = visible(words[most]);
    const hint = command === "update"
      ? " (update takes its text as --text TEXT or on stdin)"
      : command === "reindex"
      ? ` (reindex takes the embedder as a flag: svc reindex --embedder ${word})`
      : "";
    throw new UsageError(`unexpected argument: ${word}${hint}`);
  }
}
