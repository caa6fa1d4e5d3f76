/**
 * The ledger commands of `svc`: `account create|deactivate|reactivate` and `key add|list|remove`,
 * on the relayer's ledger (`ledger.kv` in `SVC_DATA_DIR`, or the database; safe while the relayer
 * runs), or with `SVC_CHAIN=sui` on Sui (`svc_ledger_sui.ts`), through transactions signed by the
 * account owner's key saved in the data directory, as the dashboard signs them.
 */
import { addressOf, generateKeyPair, isKeyHex, keyPairFromSeed } from "../src/auth/keys.ts";
import {
  type LedgerAccount,
  LocalLedger,
  MAX_LABEL_BYTES,
  type TransactionEffects,
} from "../plugins/local_ledger/mod.ts";
import { submitTransaction, type TransactionKind } from "../plugins/local_ledger/transactions.ts";
import { SvcError } from "../src/errors.ts";
import { isSmallOrderKey } from "../src/auth/ed25519.ts";
import { pathExists } from "../src/files.ts";
import { UNPRINTABLE } from "../src/validate.ts";
import { describeKeyLimits, keyLimitsJson } from "../src/auth/key_limits.ts";
import { type Config, openLedger, readConfig } from "../src/compose/mod.ts";
import { checkNotMoved } from "../src/compose/moved.ts";
import {
  delegateKeyJson,
  delegateKeyLine,
  expiryFromFlag,
  type ListedKey,
  type ScopeFlags,
  scopeFromFlags,
  ScopeUsageError,
} from "./key_scope_flags.ts";
import { accountIdArg, need, relayerUrl, UsageError } from "./client_flags.ts";
import { suiLedger } from "./svc_ledger_sui.ts";
import { suiKeypair, suiSeed } from "../plugins/sui/keys.ts";
import type { Output } from "./svc_memories.ts";
import { visibleName } from "./visible_text.ts";
import { parseIsoTime } from "../src/validate.ts";

export const LEDGER_COMMANDS = ["account", "key"];

/** The environment a command reads its settings from. */
export type Env = Record<string, string | undefined>;

/** Where the ledger commands work: the data directory, and the settings that say which ledger. */
export interface Home {
  dataDir: string;
  env: Env;
}

/** An account as the commands show it (Sui keeps no dates of accounts and keys). */
export type ListedAccount =
  & Omit<LedgerAccount, "created_at" | "delegate_keys">
  & { delegate_keys: ListedKey[] };

/** What the commands do on a ledger: read an account, and submit a signed transaction. */
export interface Ledger {
  getAccount(accountId: string): Promise<ListedAccount | null>;
  /** Signs `kind` with `ownerKey` (a private key) and executes it; a created account's id. */
  submit(ownerKey: string, kind: TransactionKind): Promise<string | undefined>;
}

export const LEDGER_USAGE = `Ledger (reads SVC_DATA_DIR, default ./data; with SVC_CHAIN=sui, Sui,
through the relayer's /sponsor; signed with SVC_OWNER_KEY or the owner key saved there):
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
  key remove --account ID --public-key HEX|--address ADDR`;

/** The flags the ledger commands read. */
export interface LedgerFlags extends ScopeFlags {
  account?: string;
  label?: string;
  "public-key"?: string;
  "expires-at"?: string;
  expires?: string;
  address?: string;
}

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
function configIn({ dataDir, env }: Home): Config {
  const names = ["SVC_STORE", "SVC_DATABASE_URL", "SVC_DATABASE_POOL", "SVC_MASTER_KEY"];
  const result = readConfig(Object.fromEntries(names.map((name) => [name, env[name]])));
  if (!result.ok) throw new UsageError(result.problems.join("\n"));
  return { ...result.config, dataDir };
}

/** Whether the relayer's ledger is there: in the database, or `ledger.kv` in the data directory. */
async function holdsLedger(home: Home, config = configIn(home)): Promise<boolean> {
  return config.store.kind !== "embedded" || await pathExists(`${home.dataDir}/ledger.kv`);
}

/**
 * Runs `use` on the ledger the relayer reads accounts from: with `SVC_CHAIN=sui` Sui's, whose
 * transactions the relayer (`SVC_SERVER_URL`, else this machine's) pays; else its own.
 */
function withLedger<T>(home: Home, use: (ledger: Ledger) => Promise<T>, create = false) {
  const { env } = home;
  if (env.SVC_CHAIN === "sui") {
    return use(suiLedger(env, relayerUrl(undefined, (name) => env[name])));
  }
  return withLocalLedger(home, (ledger) =>
    use({
      getAccount: (accountId) => ledger.getAccount(accountId),
      async submit(ownerKey, kind) {
        const { effects } = await submitTransaction(ledger, await keyPairFromSeed(ownerKey), kind);
        return (effects as TransactionEffects).account_id;
      },
    }), create);
}

/**
 * Runs `use` on the relayer's own ledger: `ledger.kv` in the data directory, or the database.
 * Only `create` makes a ledger where there is none: a command about an account refuses a data
 * directory without one (a mistyped `SVC_DATA_DIR`) rather than making it.
 */
async function withLocalLedger<T>(
  home: Home,
  use: (ledger: LocalLedger) => Promise<T>,
  create = false,
) {
  const { dataDir } = home;
  const config = configIn(home);
  if (config.store.kind === "embedded") await checkNotMoved(dataDir, "use the ledger");
  if (!create && !await holdsLedger(home, config)) {
    throw new SvcError(
      "not_found",
      `There is no ledger in ${dataDir} (SVC_DATA_DIR): no account was made there. Set ` +
        "SVC_DATA_DIR to the relayer's data directory",
    );
  }
  await Deno.mkdir(dataDir, { recursive: true, mode: 0o700 });
  const { ledger, close } = await openLedger(config);
  try {
    return await use(ledger);
  } finally {
    await close();
  }
}

/**
 * Signs `kind` with the account owner's key (`SVC_OWNER_KEY`, else the one saved in the data
 * directory) and executes it.
 */
async function transact(
  { dataDir, env }: Home,
  ledger: Ledger,
  accountId: string,
  kind: TransactionKind,
): Promise<void> {
  const account = await ledger.getAccount(accountId);
  if (!account) throw new SvcError("not_found", `No account ${accountId}`);
  const given = givenOwnerKey(env);
  // SVC_OWNER_KEY if it is this owner's (a shell may hold another account's), else the saved one.
  const seed = given?.address === account.owner
    ? given.seed
    : await Deno.readTextFile(`${dataDir}/owner_keys/${account.owner}.key`)
      .then((text) => text.trim(), () => undefined);
  if (seed === undefined) {
    throw new SvcError(
      "forbidden",
      `Cannot sign for account ${accountId}: its owner key is not in ${dataDir}/owner_keys ` +
        (given
          ? `and SVC_OWNER_KEY is the key of ${given.address}, not of its owner ${account.owner}`
          : env.SVC_CHAIN === "sui"
          ? "(give it as SVC_OWNER_KEY, or change the account with a Sui wallet)"
          : "(an account created on the dashboard is managed on the dashboard)"),
    );
  }
  await ledger.submit(seed, kind);
}

/** The owner key of `SVC_OWNER_KEY` (`suiprivkey1…` or 64 hex) and its address, if set. */
function givenOwnerKey(env: Env): { seed: string; address: string } | undefined {
  const text = env.SVC_OWNER_KEY;
  if (!text) return undefined;
  try {
    const seed = suiSeed(text);
    return { seed, address: suiKeypair(seed).toSuiAddress() };
  } catch (error) {
    throw new UsageError(`SVC_OWNER_KEY: ${(error as Error).message}`);
  }
}

/**
 * The private key of an account's owner saved in the data directory, else `SVC_OWNER_KEY` (which
 * the relayer refuses if it is not the owner's), or `undefined`.
 */
export async function savedOwnerKey(
  home: Home,
  accountId: string,
): Promise<string | undefined> {
  const given = givenOwnerKey(home.env)?.seed;
  // Not created when missing: the log may be read from a relayer on another machine.
  if (!await holdsLedger(home)) return given;
  const account = await withLocalLedger(home, (l) => l.getAccount(accountId));
  if (!account) return given;
  return await Deno.readTextFile(`${home.dataDir}/owner_keys/${account.owner}.key`)
    .then((seed) => seed.trim(), () => given);
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

/**
 * Runs a ledger command on the ledger of `home`; `undefined` for a subcommand it does not know.
 */
export async function runLedgerCommand(
  command: string,
  sub: string | undefined,
  values: LedgerFlags,
  home: Home,
): Promise<Output | undefined> {
  const { dataDir, env } = home;
  if (command === "account" && sub === "create") {
    // The account of SVC_OWNER_KEY, or of a new key saved in the data directory.
    const given = givenOwnerKey(env);
    const owner = given ? undefined : await generateKeyPair();
    const seed = given?.seed ?? owner!.privateKey;
    const address = given?.address ?? addressOf(owner!.publicKey);
    let keyFile = "";
    // Saved once the ledger is open, and before the account exists: never an account without it.
    const accountId = await withLedger(home, async (l) => {
      if (!given) keyFile = await saveOwnerKey(dataDir, address, seed);
      return await l.submit(seed, { kind: "create_account" }).catch(async (error) => {
        if (!(error instanceof SvcError)) throw error;
        if (given && error.details.reason === "account_exists") {
          throw new SvcError(
            "conflict",
            `SVC_OWNER_KEY's address ${address} has an account already; unset SVC_OWNER_KEY ` +
              "for a new owner key and its account",
            { details: error.details },
          );
        }
        // Refused, or never sent (no sponsor, a limit, no relayer): no account has the key.
        if (
          error.status < 500 || error.code === "not_implemented" ||
          error.details.reason === "unreachable"
        ) {
          if (keyFile) await Deno.remove(keyFile);
        } else if (keyFile) {
          // Perhaps made, its answer lost: the key is kept.
          throw new SvcError(error.code, `${error.message} (its owner key stays in ${keyFile})`, {
            details: error.details,
          });
        }
        throw error;
      });
    }, true);
    return {
      json: { accountId, owner: address },
      text: `account ${accountId}\nowner   ${address}` +
        (keyFile ? `\nowner key saved to ${keyFile}` : ""),
    };
  }

  if (command === "account" && (sub === "deactivate" || sub === "reactivate")) {
    const accountId = accountIdArg(need(values.account, "--account"), "--account");
    const kind = sub === "deactivate" ? "deactivate_account" : "reactivate_account";
    await withLedger(
      home,
      (l) => transact(home, l, accountId, { kind, account_id: accountId }),
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
      if (given !== undefined && isSmallOrderKey(given)) {
        throw new UsageError(
          "--public-key is a point of small order, under which anyone can sign: no one's key",
        );
      }
      if (values.label !== undefined && UNPRINTABLE.test(values.label)) {
        throw new UsageError("--label must not hold control or text-direction characters");
      }
      if (
        values.label !== undefined &&
        new TextEncoder().encode(values.label).length > MAX_LABEL_BYTES
      ) {
        throw new UsageError(`--label must be at most ${MAX_LABEL_BYTES} bytes`);
      }
      // Any time, past ones too (a key that is already expired).
      const expiresAt = values["expires-at"];
      // A date or a time, as remember's --expires-at takes it (a date: its midnight, UTC).
      if (expiresAt !== undefined && Number.isNaN(parseIsoTime(expiresAt))) {
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
      await withLedger(home, (l) =>
        transact(home, l, accountId, {
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
      const account = await withLedger(home, (l) => l.getAccount(accountId));
      if (!account) throw new SvcError("not_found", `No account ${accountId}`);
      return {
        json: {
          accountId,
          owner: account.owner,
          active: account.active,
          keys: account.delegate_keys.map(delegateKeyJson),
        },
        text: account.delegate_keys.map((key) => visibleName(delegateKeyLine(key))).join("\n") ||
          "(no delegate keys)",
      };
    }
    if (sub === "remove") {
      if (values["public-key"] !== undefined && values.address !== undefined) {
        throw new UsageError("give --public-key or --address, not both");
      }
      const target = need(values["public-key"] ?? values.address, "--public-key or --address");
      const key = await withLedger(home, async (l) => {
        const found = (await l.getAccount(accountId))?.delegate_keys.find((k) =>
          k.public_key === target || k.address === target
        );
        if (!found) throw new SvcError("not_found", "That key is not on this account");
        await transact(home, l, accountId, {
          kind: "remove_delegate_key",
          account_id: accountId,
          public_key: found.public_key,
        });
        return found;
      });
      return {
        json: { accountId, removed: key.public_key, address: key.address },
        text: `removed ${key.public_key}; ` +
          (env.SVC_CHAIN === "sui"
            ? "relayers refuse it once their account cache reads it again " +
              "(SVC_ACCOUNT_CACHE_SECONDS, 60 s by default)"
            : "a running relayer refuses it from the next request"),
      };
    }
  }
  return undefined;
}
