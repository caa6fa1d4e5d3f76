/**
 * The local ledger of embedded mode, in Deno KV: accounts with their delegate keys, mirroring
 * the on-chain `SvcAccount` model (DESIGN §5.7). It is the `AccountDirectory` of the relayer.
 *
 * Keys: `["account", id]` → account, `["account_owner", owner]` → id,
 * `["delegate_key", publicKey]` → id.
 */
import type { AccountDirectory, ResolvedAccount } from "../backends/types.ts";
import { addressOf, isKeyHex, sha256Hex } from "../auth/keys.ts";
import { SvcError } from "../errors.ts";

export const MAX_DELEGATE_KEYS = 20;
export const MAX_LABEL_BYTES = 64;

/** The fixed package id of the local ledger, reported by `/health`. */
export const LOCAL_PACKAGE_ID = "0x" + await sha256Hex("svc local ledger v1");

export interface DelegateKey {
  public_key: string;
  address: string;
  label: string;
  created_at: string;
}

export interface LedgerAccount {
  id: string;
  owner: string;
  delegate_keys: DelegateKey[];
  active: boolean;
  created_at: string;
}

export class LocalLedger implements AccountDirectory {
  readonly name = "local-ledger";
  #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async resolve(publicKey: string, accountIdHint?: string): Promise<ResolvedAccount | null> {
    const ref = await this.#kv.get<string>(["delegate_key", publicKey]);
    if (!ref.value || (accountIdHint !== undefined && ref.value !== accountIdHint)) return null;
    const account = await this.getAccount(ref.value);
    if (!account || !account.delegate_keys.some((k) => k.public_key === publicKey)) return null;
    return { accountId: account.id, owner: account.owner, active: account.active };
  }

  async getAccount(accountId: string): Promise<LedgerAccount | null> {
    return (await this.#kv.get<LedgerAccount>(["account", accountId])).value;
  }

  async accountOf(owner: string): Promise<LedgerAccount | null> {
    const ref = await this.#kv.get<string>(["account_owner", owner]);
    return ref.value ? this.getAccount(ref.value) : null;
  }

  /** Creates the account of an owner (an address); one account per owner. */
  async createAccount(owner: string): Promise<LedgerAccount> {
    const account: LedgerAccount = {
      id: "0x" + crypto.getRandomValues(new Uint8Array(32)).toHex(),
      owner,
      delegate_keys: [],
      active: true,
      created_at: new Date().toISOString(),
    };
    const result = await this.#kv.atomic()
      .check({ key: ["account_owner", owner], versionstamp: null })
      .set(["account", account.id], account)
      .set(["account_owner", owner], account.id)
      .commit();
    if (!result.ok) {
      throw new SvcError("conflict", `Cannot create account: ${owner} already has one`);
    }
    return account;
  }

  /** Adds a delegate public key (hex) with a label to an account. */
  async addDelegateKey(accountId: string, publicKey: string, label = ""): Promise<DelegateKey> {
    if (!isKeyHex(publicKey)) {
      throw new SvcError(
        "bad_request",
        "Cannot add key: a public key is 64 lowercase hex characters",
      );
    }
    if (new TextEncoder().encode(label).byteLength > MAX_LABEL_BYTES) {
      throw new SvcError(
        "bad_request",
        `Cannot add key: the label exceeds ${MAX_LABEL_BYTES} bytes`,
      );
    }
    const entry = await this.#kv.get<LedgerAccount>(["account", accountId]);
    const account = entry.value;
    if (!account) throw new SvcError("not_found", `Cannot add key: no account ${accountId}`);
    if (!account.active) throw new SvcError("forbidden", "Cannot add key: the account is inactive");
    if (account.delegate_keys.length >= MAX_DELEGATE_KEYS) {
      throw new SvcError(
        "conflict",
        `Cannot add key: the account already has ${MAX_DELEGATE_KEYS} keys`,
      );
    }
    const key: DelegateKey = {
      public_key: publicKey,
      address: addressOf(publicKey),
      label,
      created_at: new Date().toISOString(),
    };
    const updated = { ...account, delegate_keys: [...account.delegate_keys, key] };
    const result = await this.#kv.atomic()
      .check(entry)
      .check({ key: ["delegate_key", publicKey], versionstamp: null })
      .set(["account", accountId], updated)
      .set(["delegate_key", publicKey], accountId)
      .commit();
    if (!result.ok) {
      throw new SvcError("conflict", "Cannot add key: it is already registered (or retry)");
    }
    return key;
  }

  /** Removes a delegate key (by public key or address) from an account. */
  async removeDelegateKey(accountId: string, keyOrAddress: string): Promise<DelegateKey> {
    const entry = await this.#kv.get<LedgerAccount>(["account", accountId]);
    const account = entry.value;
    if (!account) throw new SvcError("not_found", `Cannot remove key: no account ${accountId}`);
    const key = account.delegate_keys.find((k) =>
      k.public_key === keyOrAddress || k.address === keyOrAddress
    );
    if (!key) throw new SvcError("not_found", "Cannot remove key: it is not on this account");
    const updated = {
      ...account,
      delegate_keys: account.delegate_keys.filter((k) => k !== key),
    };
    const result = await this.#kv.atomic()
      .check(entry)
      .set(["account", accountId], updated)
      .delete(["delegate_key", key.public_key])
      .commit();
    if (!result.ok) throw new SvcError("conflict", "Cannot remove key: the account changed; retry");
    return key;
  }
}
