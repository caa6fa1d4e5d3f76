/**
 * `svc`: the operator CLI. Manages local-ledger accounts and delegate keys in `SVC_DATA_DIR`
 * (safe while the relayer runs) through the same owner-signed transactions as the dashboard,
 * and talks to a relayer as a signed client.
 *
 *   deno task svc account create
 *   deno task svc account deactivate|reactivate --account 0x…
 *   deno task svc key add --account 0x… [--label laptop] [--public-key <hex>] [--expires-at <ISO>]
 *     [--namespace a,b] [--read-only | --operations read,write] [--audit] [--expires 30d]
 *   deno task svc key list --account 0x…
 *   deno task svc key remove --account 0x… --public-key <hex>
 *   SVC_DELEGATE_KEY=… deno task svc remember "I am vegetarian" --account 0x… [--tag diet] [--wait]
 *   SVC_DELEGATE_KEY=… deno task svc recall "what do I eat?" --account 0x…
 *   SVC_DELEGATE_KEY=… deno task svc list|get|forget|update … --account 0x…
 *   SVC_DELEGATE_KEY=… deno task svc restore --namespace default --account 0x…
 *   SVC_DELEGATE_KEY=… deno task svc export [--namespace NS... | --all] -o FILE --account 0x…
 *   SVC_DELEGATE_KEY=… deno task svc import FILE | --from mcp-memory|mem0 FILE --account 0x…
 *   deno task svc reindex --embedder local          (the relayer stopped)
 *   deno task svc migrate                             (SVC_STORE=postgres)
 *   deno task svc migrate-store --to postgres         (the relayer stopped)
 *   deno task svc migrate-store --to sqlite           (the relayer stopped)
 *   deno task svc log --account 0x… [--key 0x…] [--op recall] [--since 7d]
 *
 * Every command takes `--json` and then prints exactly one JSON object on stdout.
 */
import { parseArgs } from "node:util";
import { argsMessage, callerPath, flagValues, repeatedFlag } from "./args.ts";
import { visible } from "./visible_text.ts";
import { addressOf, generateKeyPair, isKeyHex, keyPairFromSeed } from "../src/auth/keys.ts";
import { LocalLedger, type TransactionEffects } from "../plugins/local_ledger/mod.ts";
import { submitTransaction, type TransactionKind } from "../plugins/local_ledger/transactions.ts";
import { SvcError } from "../src/errors.ts";
import { describeKeyLimits, keyLimitsJson } from "../src/auth/key_limits.ts";
import { restrictNewFiles } from "../src/compose/private_files.ts";
import { bypassProxyForLoopback } from "../src/http/relayer_names.ts";
import { type Config, openLedger, readConfig } from "../src/compose/mod.ts";
import {
  delegateKeyJson,
  delegateKeyLine,
  expiryFromFlag,
  scopeFromFlags,
  ScopeUsageError,
} from "./key_scope_flags.ts";
import { accountIdArg, accountIdOf, askedRelayer, need, UsageError } from "./client_flags.ts";
import { MEMORY_COMMANDS, MEMORY_USAGE, type Output, runMemoryCommand } from "./svc_memories.ts";
import {
  PORTABILITY_COMMANDS,
  PORTABILITY_USAGE,
  runPortabilityCommand,
} from "./svc_portability.ts";
import { REINDEX_USAGE, runReindex } from "./svc_reindex.ts";
import { LOG_USAGE, runLogCommand } from "./svc_log.ts";
import { runMigrate, STORE_USAGE } from "./svc_store.ts";
import { MIGRATE_STORE_USAGE, runMigrateStore } from "./svc_migrate_store.ts";

const USAGE = `usage: svc <command> [options]

Ledger (reads SVC_DATA_DIR, default ./data):
  account create                         create an owner key and its account
  account deactivate|reactivate --account ID
  key add --account ID [--label TEXT] [--public-key HEX] [--expires-at TIME]
          [--namespace NS[,NS…]] [--read-only | --operations OP[,OP…]] [--audit]
          [--expires 30d|TIME]
                                         add a delegate key (generated unless given), valid
                                         until TIME (ISO 8601 UTC) or for a duration (s, m,
                                         h, d, w) if given; limited to some namespaces and
                                         operations (read, write, erase, audit, or all) if given
  key list --account ID                  list the account's delegate keys and their scopes
  key remove --account ID --public-key HEX|--address ADDR

${MEMORY_USAGE}

${PORTABILITY_USAGE}
${REINDEX_USAGE}
${STORE_USAGE}
${MIGRATE_STORE_USAGE}
${LOG_USAGE}

Every command: --json prints exactly one JSON object on stdout.`;

/** Runs `parse`, turning a scope flag's problem into a usage error. */
function scoped<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof ScopeUsageError) throw new UsageError(error.message);
    throw error;
  }
}

/** Where the relayer keeps its ledger: only the settings that tell are read. */
function configIn(dataDir: string): Config {
  const env = Deno.env.toObject();
  const names = ["SVC_STORE", "SVC_DATABASE_URL", "SVC_DATABASE_POOL", "SVC_MASTER_KEY"];
  const result = readConfig(Object.fromEntries(names.map((name) => [name, env[name]])));
  if (!result.ok) throw new UsageError(result.problems.join("\n"));
  return { ...result.config, dataDir };
}

/** Runs `use` on the relayer's ledger: `ledger.kv` in the data directory, or the database. */
async function withLedger<T>(dataDir: string, use: (ledger: LocalLedger) => Promise<T>) {
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { ledger, close } = await openLedger(configIn(dataDir));
  try {
    return await use(ledger);
  } finally {
    await close();
  }
}

/** Signs `kind` with the account owner's key from the data directory and executes it. */
async function transact(
  dataDir: string,
  ledger: LocalLedger,
  accountId: string,
  kind: TransactionKind,
): Promise<TransactionEffects> {
  const account = await ledger.getAccount(accountId);
  if (!account) throw new SvcError("not_found", `No account ${accountId}`);
  const path = `${dataDir}/owner_keys/${account.owner}.key`;
  let seed: string;
  try {
    seed = (await Deno.readTextFile(path)).trim();
  } catch {
    throw new SvcError(
      "forbidden",
      `Cannot sign for account ${accountId}: its owner key is not in ${dataDir}/owner_keys ` +
        "(an account created on the dashboard is managed there)",
    );
  }
  const { effects } = await submitTransaction(ledger, await keyPairFromSeed(seed), kind);
  return effects as TransactionEffects;
}

/** The private key of an account's owner saved in the data directory, or `undefined`. */
async function savedOwnerKey(dataDir: string, accountId: string): Promise<string | undefined> {
  // Not created when missing: the log may be read from a relayer on another machine.
  const embedded = configIn(dataDir).store.kind === "embedded";
  if (embedded && !(await Deno.stat(`${dataDir}/ledger.kv`).catch(() => null))) return undefined;
  const account = await withLedger(dataDir, (l) => l.getAccount(accountId));
  if (!account) return undefined;
  return await Deno.readTextFile(`${dataDir}/owner_keys/${account.owner}.key`)
    .then((seed) => seed.trim(), () => undefined);
}

/** Saves an owner's private key in the data directory, readable by its user only. */
async function saveOwnerKey(dataDir: string, address: string, privateKey: string) {
  await Deno.mkdir(`${dataDir}/owner_keys`, { recursive: true, mode: 0o700 });
  const path = `${dataDir}/owner_keys/${address}.key`;
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  await file.write(new TextEncoder().encode(privateKey + "\n"));
  await file.sync();
  file.close();
  return path;
}

async function run(args: string[]): Promise<Output> {
  const { values, positionals, tokens } = parseArgs({
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
    },
  });
  const dataDir = Deno.env.get("SVC_DATA_DIR") || "./data";
  const [command, sub, ...rest] = positionals;
  if (values.help) return { text: USAGE, json: { usage: USAGE } };
  if (!command) throw new UsageError("");
  // A flag given twice is refused rather than its last value kept, but for those that collect.
  const collecting = command === "export" ? ["tag", "namespace"] : ["tag"];
  const repeated = repeatedFlag(tokens, collecting);
  if (repeated) {
    throw new UsageError(`${repeated} (only --tag, and export's --namespace, may be repeated)`);
  }
  if ((command === "account" || command === "key") && Deno.env.get("SVC_CHAIN") === "sui") {
    console.error(
      `svc: note: accounts and keys here are the local ledger's (in ${dataDir}); with ` +
        "SVC_CHAIN=sui the relayer reads them from Sui instead (README: Network mode)",
    );
  }

  if (command === "account" && sub === "create") {
    const owner = await generateKeyPair();
    const address = addressOf(owner.publicKey);
    let keyFile = "";
    // Saved once the ledger is open, and before the account exists: never an account without it.
    const { effects } = await withLedger(dataDir, async (l) => {
      keyFile = await saveOwnerKey(dataDir, address, owner.privateKey);
      return await submitTransaction(l, owner, { kind: "create_account" });
    });
    const accountId = (effects as TransactionEffects).account_id;
    return {
      json: { accountId, owner: address },
      text: `account ${accountId}\nowner   ${address}\nowner key saved to ${keyFile}`,
    };
  }

  if (command === "account" && (sub === "deactivate" || sub === "reactivate")) {
    const accountId = accountIdArg(need(values.account, "--account"), "--account");
    const kind = sub === "deactivate" ? "deactivate_account" : "reactivate_account";
    await withLedger(
      dataDir,
      (l) => transact(dataDir, l, accountId, { kind, account_id: accountId }),
    );
    return { json: { accountId, active: sub === "reactivate" }, text: `account ${sub}d` };
  }

  if (command === "key") {
    const accountId = accountIdArg(need(values.account, "--account"), "--account");
    if (sub === "add") {
      const given = values["public-key"];
      if (given !== undefined && !isKeyHex(given)) {
        throw new UsageError("--public-key must be 64 lowercase hex characters");
      }
      // Any time, past ones too (a key that is already expired).
      const expiresAt = values["expires-at"];
      if (
        expiresAt !== undefined &&
        (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}T/.test(expiresAt) || Number.isNaN(Date.parse(expiresAt)))
      ) {
        throw new UsageError("--expires-at must be a time such as 2026-07-01T00:00:00Z");
      }
      if (expiresAt !== undefined && values.expires !== undefined) {
        throw new UsageError("give --expires or --expires-at, not both");
      }
      const [scope, expires] = scoped(() =>
        [
          scopeFromFlags(values),
          values.expires === undefined ? undefined : expiryFromFlag(values.expires, "--expires"),
        ] as const
      );
      const until = expires ?? (expiresAt === undefined ? undefined : Date.parse(expiresAt));
      const pair = given ? undefined : await generateKeyPair();
      const publicKey = given ?? pair!.publicKey;
      await withLedger(dataDir, (l) =>
        transact(dataDir, l, accountId, {
          kind: "add_delegate_key",
          account_id: accountId,
          public_key: publicKey,
          label: values.label ?? "",
          ...scope,
          ...(until === undefined ? {} : { expires_at: new Date(until).toISOString() }),
        }));
      const key = { address: addressOf(publicKey) };
      const json: Record<string, unknown> = {
        accountId,
        publicKey,
        address: key.address,
        ...(pair ? { privateKey: pair.privateKey } : {}),
        ...keyLimitsJson(scope, until),
      };
      const limits = `scope       ${describeKeyLimits(scope, until)}`;
      const text = pair
        ? `public key  ${publicKey}\naddress     ${key.address}\n${limits}\n` +
          `private key ${pair.privateKey}\nStore the private key now; it is not shown again.`
        : `added ${publicKey} (${key.address})\n${limits}`;
      return { json, text };
    }
    if (sub === "list") {
      const account = await withLedger(dataDir, (l) => l.getAccount(accountId));
      if (!account) throw new SvcError("not_found", `No account ${accountId}`);
      return {
        json: {
          accountId,
          owner: account.owner,
          active: account.active,
          keys: account.delegate_keys.map(delegateKeyJson),
        },
        text: account.delegate_keys.map((key) => visible(delegateKeyLine(key))).join("\n") ||
          "(no delegate keys)",
      };
    }
    if (sub === "remove") {
      const target = need(values["public-key"] ?? values.address, "--public-key or --address");
      const key = await withLedger(dataDir, async (l) => {
        const found = (await l.getAccount(accountId))?.delegate_keys.find((k) =>
          k.public_key === target || k.address === target
        );
        if (!found) throw new SvcError("not_found", "That key is not on this account");
        await transact(dataDir, l, accountId, {
          kind: "remove_delegate_key",
          account_id: accountId,
          public_key: found.public_key,
        });
        return found;
      });
      return {
        json: { accountId, removed: key.public_key, address: key.address },
        text: `removed ${key.public_key}; a running relayer refuses it from the next request`,
      };
    }
  }

  if (command === "reindex" && sub === undefined) {
    return await runReindex(values.embedder, Deno.env.toObject(), {
      write: (text) => Deno.stderr.writeSync(new TextEncoder().encode(text)),
      terminal: Deno.stderr.isTerminal(),
    });
  }
  if (command === "reindex") {
    throw new UsageError(`reindex takes the embedder as a flag: svc reindex --embedder ${sub}`);
  }
  if (command === "migrate" && sub === undefined) return await runMigrate(Deno.env.toObject());
  if (command === "migrate-store" && sub === undefined) {
    return await runMigrateStore(values.to, Deno.env.toObject(), Deno.stderr);
  }
  if (command === "log") {
    if (sub !== undefined) throw new UsageError(`unexpected argument: ${sub}`);
    accountIdOf(values.account, (name) => Deno.env.get(name));
    // The owner's own key when the data directory has it; else a delegate key with `audit`.
    const ownerKey = values.account && await savedOwnerKey(dataDir, values.account);
    const privateKey = ownerKey || need(Deno.env.get("SVC_DELEGATE_KEY"), "SVC_DELEGATE_KEY");
    return await runLogCommand(values, privateKey, (name) => Deno.env.get(name));
  }

  if (MEMORY_COMMANDS.includes(command)) {
    return await runMemoryCommand(
      command,
      [sub, ...rest].filter((word) => word !== undefined),
      values,
      (name) => Deno.env.get(name),
      Deno.stdin,
    );
  }
  if (PORTABILITY_COMMANDS.includes(command)) {
    const path = (given: string | undefined) =>
      given === undefined
        ? undefined
        : callerPath(given, Deno.env.get("INIT_CWD"), Deno.cwd(), taskFolder());
    return await runPortabilityCommand(
      command,
      [path(sub), ...rest].filter((word) => word !== undefined),
      {
        ...values,
        namespaces: flagValues(tokens, "namespace"),
        output: path(values.output),
        "passphrase-file": path(values["passphrase-file"]),
      },
      (name) => Deno.env.get(name),
      { terminal: { stdin: Deno.stdin, stderr: Deno.stderr }, stderr: Deno.stderr },
    );
  }
  throw new UsageError(`unknown command: ${positionals.join(" ")}`);
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

const UNREACHABLE_HINT = "\nIs it running (`deno task start`)? --relayer or SVC_SERVER_URL " +
  "gives another address.";

/** Whether `error` is the client's failure to connect at all (not an answer of the relayer). */
const unreachable = (error: unknown) =>
  error instanceof SvcError && error.message.startsWith("Cannot reach the relayer");

if (import.meta.main) {
  // The ledger and owner keys it creates in the data directory are the user's only.
  restrictNewFiles();
  bypassProxyForLoopback();
  const json = Deno.args.includes("--json");
  try {
    const out = await run(Deno.args);
    // Memory texts, tags and labels are the agents': their control characters are shown.
    console.log(json ? JSON.stringify(out.json) : visible(out.text, "\n\t"));
    if (out.failed) Deno.exit(1);
  } catch (error) {
    const usage = error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith?.("ERR_PARSE_ARGS");
    const message = argsMessage(error);
    const code = error instanceof SvcError ? error.code : usage ? "usage" : "internal";
    const details = error instanceof SvcError ? error.details : {};
    if (json) console.log(JSON.stringify({ error: message || "usage", code, ...details }));
    if (usage) console.error(message ? `svc: ${visible(message, "\n")}\n${HELP_HINT}` : USAGE);
    else if (!json) {
      const hint = unreachable(error)
        ? UNREACHABLE_HINT
        : code === "unauthorized" && askedRelayer && details.reason !== "wrong_passphrase"
        ? `\n(The relayer at ${askedRelayer} refused the key; --relayer or SVC_SERVER_URL ` +
          "names another relayer.)"
        : "";
      console.error(`svc: ${visible(message, "\n")}${hint}`);
    }
    Deno.exit(usage ? 2 : 1);
  }
}
