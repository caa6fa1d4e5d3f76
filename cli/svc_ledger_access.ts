/**
 * Where the ledger commands of `svc` find the ledger (the relayer's own, in the data directory or
 * the database, or Sui's with `SVC_CHAIN=sui`) and the account owner's key they sign with
 * (`SVC_OWNER_KEY`, or the one saved in the data directory).
 */
import { isKeyHex, keyPairFromSeed } from "@svc/util/keys";
import { type LocalLedger, type TransactionEffects } from "@svc/local-ledger";
import { submitTransaction, type TransactionKind } from "@svc/local-ledger/transactions";
import { SvcError } from "@svc/relayer/kit";
import { nullIfMissing, pathExists } from "@svc/util/files";
import { checkNotMoved, type Config, openLedger } from "@svc/app";
import { relayerUrl, UsageError } from "./client_flags.ts";
import { configOf } from "./svc_store.ts";
import { suiLedger } from "./svc_ledger_sui.ts";
import { suiKeypair, suiSeed } from "@svc/sui/keys";
import type { Env, Home, Ledger } from "./svc_ledger.ts";

/** Where the relayer keeps its ledger: only the settings that tell are read. */
function configIn({ dataDir, env }: Home): Config {
  const names = ["SVC_STORE", "SVC_DATABASE_URL", "SVC_DATABASE_POOL", "SVC_MASTER_KEY"];
  return { ...configOf(Object.fromEntries(names.map((name) => [name, env[name]]))), dataDir };
}

/** Whether the relayer's ledger is there: in the database, or `ledger.kv` in the data directory. */
async function holdsLedger(home: Home, config = configIn(home)): Promise<boolean> {
  return config.store.kind !== "embedded" || await pathExists(`${home.dataDir}/ledger.kv`);
}

/**
 * Runs `use` on the ledger the relayer reads accounts from: with `SVC_CHAIN=sui` Sui's, whose
 * transactions the relayer (`SVC_SERVER_URL`, else this machine's) pays; else its own.
 */
export function withLedger<T>(home: Home, use: (ledger: Ledger) => Promise<T>, create = false) {
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
export async function transact(
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
    : await readOwnerKey(dataDir, account.owner);
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
export function givenOwnerKey(env: Env): { seed: string; address: string } | undefined {
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
  return await readOwnerKey(home.dataDir, account.owner) ?? given;
}

/**
 * The private key saved for `owner` in the data directory, or `undefined` without one; a file
 * that cannot be read, or holds no key, is named.
 */
async function readOwnerKey(dataDir: string, owner: string): Promise<string | undefined> {
  const path = `${dataDir}/owner_keys/${owner}.key`;
  const text = await nullIfMissing(Deno.readTextFile(path)).catch((error) => {
    throw new SvcError("internal", `Cannot read the owner key file ${path}: ${error.message}`);
  });
  if (text === null) return undefined;
  const seed = text.trim();
  if (!isKeyHex(seed)) {
    throw new SvcError(
      "internal",
      `The owner key file ${path} holds no private key (64 lowercase hex characters): it was ` +
        "damaged or replaced. Put back its backup",
    );
  }
  return seed;
}

/** Saves an owner's private key in the data directory, readable by its user only. */
export async function saveOwnerKey(dataDir: string, address: string, privateKey: string) {
  await Deno.mkdir(`${dataDir}/owner_keys`, { recursive: true, mode: 0o700 });
  const path = `${dataDir}/owner_keys/${address}.key`;
  const file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
  await file.write(new TextEncoder().encode(privateKey + "\n"));
  await file.sync();
  file.close();
  return path;
}
