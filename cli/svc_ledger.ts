/**
 * The ledger commands of `svc`: `account create|deactivate|reactivate` and `key add|list|remove`,
 * on the relayer's ledger (`ledger.kv` in `SVC_DATA_DIR`, or the database; safe while the relayer
 * runs), or with `SVC_CHAIN=sui` on Sui (`svc_ledger_sui.ts`), through transactions signed by the
 * account owner's key saved in the data directory, as the dashboard signs them.
 */
import { addressOf, generateKeyPair, isKeyHex } from "@svc/util/keys";
import { type LedgerAccount, MAX_LABEL_BYTES } from "@svc/local-ledger";
import type { TransactionKind } from "@svc/local-ledger/transactions";
import { SvcError, UNSHOWN_IN_LABELS } from "@svc/relayer/kit";
import { isSmallOrderKey } from "@svc/util/ed25519";
import { describeKeyLimits, keyLimitsJson } from "@svc/relayer/rules";
import {
  delegateKeyJson,
  delegateKeyLine,
  expiryFromFlag,
  type ListedKey,
  scopeFromFlags,
} from "./key_scope_flags.ts";
import { accountIdArg, expiryTime, need, UsageError } from "./client_flags.ts";
import type { Output } from "./svc_memories.ts";
import type { Flags, Invocation } from "./svc_command_line.ts";
import { visibleName } from "./visible_text.ts";
import { givenOwnerKey, saveOwnerKey, transact, withLedger } from "./svc_ledger_access.ts";

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

/**
 * Runs a ledger command on the ledger of `SVC_DATA_DIR`'s settings; `undefined` for a subcommand
 * it does not know.
 */
export async function runLedgerCommand(
  { command, words: [sub], flags: values, io }: Invocation,
): Promise<Output | undefined> {
  const home = { dataDir: io.env.SVC_DATA_DIR || "./data", env: io.env };
  if (command === "account") {
    if (sub === "create") return await createAccount(home);
    if (sub === "deactivate" || sub === "reactivate") {
      return await setAccountActive(home, sub, values);
    }
    return undefined;
  }
  if (command !== "key") return undefined;
  const accountId = accountIdArg(need(values.account, "--account"), "--account");
  if (sub === "add") return await addKey(home, accountId, keyToAdd(values));
  if (sub === "list") return await listKeys(home, accountId);
  if (sub === "remove") return await removeKey(home, accountId, keyToRemove(values));
  return undefined;
}

/** `account create`: the account of SVC_OWNER_KEY, or of a new key saved in the data directory. */
async function createAccount(home: Home): Promise<Output> {
  const given = givenOwnerKey(home.env);
  const owner = given ? undefined : await generateKeyPair();
  const seed = given?.seed ?? owner!.privateKey;
  const address = given?.address ?? addressOf(owner!.publicKey);
  let keyFile = "";
  // Saved once the ledger is open, and before the account exists: never an account without it.
  const accountId = await withLedger(home, async (l) => {
    if (!given) keyFile = await saveOwnerKey(home.dataDir, address, seed);
    return await l.submit(seed, { kind: "create_account" }).catch((error) =>
      accountNotCreated(error, { address, given: given !== undefined, keyFile })
    );
  }, true);
  return {
    json: { accountId, owner: address },
    text: `account ${accountId}\nowner   ${address}` +
      (keyFile ? `\nowner key saved to ${keyFile}` : ""),
  };
}

/**
 * Throws why `account create` made no account: its owner key file is removed when the account
 * surely does not exist, and kept (and named) when it may.
 */
async function accountNotCreated(
  error: unknown,
  { address, given, keyFile }: { address: string; given: boolean; keyFile: string },
): Promise<never> {
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
}

/** `account deactivate|reactivate --account ID`. */
async function setAccountActive(
  home: Home,
  sub: "deactivate" | "reactivate",
  values: Flags,
): Promise<Output> {
  const accountId = accountIdArg(need(values.account, "--account"), "--account");
  const kind = sub === "deactivate" ? "deactivate_account" : "reactivate_account";
  await withLedger(
    home,
    (l) => transact(home, l, accountId, { kind, account_id: accountId }),
  );
  return { json: { accountId, active: sub === "reactivate" }, text: `account ${sub}d` };
}

/**
 * The delegate key `key add` adds, as its flags describe it, checked before anything is read or
 * sent: its public key (absent: a key pair is generated), label, scope, and when it expires (ms
 * since the epoch), if it does.
 */
function keyToAdd(values: Flags) {
  const given = values["public-key"];
  if (given !== undefined && !isKeyHex(given)) {
    throw new UsageError("--public-key must be 64 lowercase hex characters");
  }
  if (given !== undefined && isSmallOrderKey(given)) {
    throw new UsageError(
      "--public-key is a point of small order, under which anyone can sign: no one's key",
    );
  }
  const label = values.label ?? "";
  if (UNSHOWN_IN_LABELS.test(label)) {
    throw new UsageError("--label must not hold control, text-direction or invisible characters");
  }
  if (new TextEncoder().encode(label).length > MAX_LABEL_BYTES) {
    throw new UsageError(`--label must be at most ${MAX_LABEL_BYTES} bytes`);
  }
  // Any time, past ones too (a key that is already expired); a date is its midnight, UTC.
  const expiresAt = expiryTime(values["expires-at"], "--expires-at");
  if (expiresAt !== undefined && values.expires !== undefined) {
    throw new UsageError("give --expires or --expires-at, not both");
  }
  const scope = scopeFromFlags(values);
  const expires = values.expires === undefined
    ? undefined
    : expiryFromFlag(values.expires, "--expires");
  const until = expires ?? (expiresAt === undefined ? undefined : Date.parse(expiresAt));
  return { publicKey: given, label, scope, until };
}

/** `key add`: adds the key (generated unless given) to the account. */
async function addKey(
  home: Home,
  accountId: string,
  key: ReturnType<typeof keyToAdd>,
): Promise<Output> {
  const { scope, until } = key;
  const pair = key.publicKey ? undefined : await generateKeyPair();
  const publicKey = key.publicKey ?? pair!.publicKey;
  await withLedger(home, (l) =>
    transact(home, l, accountId, {
      kind: "add_delegate_key",
      account_id: accountId,
      public_key: publicKey,
      label: key.label,
      ...scope,
      ...(until === undefined ? {} : { expires_at: new Date(until).toISOString() }),
    }));
  const address = addressOf(publicKey);
  const json: Record<string, unknown> = {
    accountId,
    publicKey,
    address,
    ...(pair ? { privateKey: pair.privateKey } : {}),
    ...keyLimitsJson(scope, until),
  };
  const limits = `scope       ${describeKeyLimits(scope, until)}`;
  const text = pair
    ? `public key  ${publicKey}\naddress     ${address}\n${limits}\n` +
      `private key ${pair.privateKey}\nStore the private key now; it is not shown again.`
    : `added ${publicKey} (${address})\n${limits}`;
  return { json, text };
}

/** `key list`: the account's delegate keys and their scopes. */
async function listKeys(home: Home, accountId: string): Promise<Output> {
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

/** The key `key remove` removes: its public key or its address. */
function keyToRemove(values: Flags): string {
  if (values["public-key"] !== undefined && values.address !== undefined) {
    throw new UsageError("give --public-key or --address, not both");
  }
  return need(values["public-key"] ?? values.address, "--public-key or --address");
}

/** `key remove`: removes the key of the account that `target` names. */
async function removeKey(home: Home, accountId: string, target: string): Promise<Output> {
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
      (home.env.SVC_CHAIN === "sui"
        ? "relayers refuse it once their account cache reads it again " +
          "(SVC_ACCOUNT_CACHE_SECONDS, 60 s by default)"
        : "a running relayer refuses it from the next request"),
  };
}
