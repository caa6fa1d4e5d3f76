/**
 * The local ledger: accounts with their delegate keys, mirroring the on-chain `SvcAccount`
 * model (DESIGN §5.7). It is the relayer's `AccountDirectory` and the sidecar's `Sponsor`, and
 * it changes only through transactions signed by the account owner (see `transactions.ts`),
 * each executed at most once. Its rules live here; its state lives in a `LedgerStore`
 * (`store.ts`), written once over a `StateStore` (`state_store.ts`): Deno KV in embedded mode
 * (`kv_store.ts`), the state many relayers share in PostgreSQL, sealed there.
 *
 * Resolving a key reads the ledger's version on every call, so a change committed through any
 * handle on the ledger (the CLI's, the sidecar's, another relayer's) is seen by the next call;
 * while the version is unchanged, the resolutions already made are answered from memory.
 * Concurrent calls share one read of the version, but only a read that started after they
 * were made.
 */
import {
  type AccountDirectory,
  backendError,
  type CallOptions,
  type KeyScope,
  rejected,
  type ResolvedAccount,
  type Sponsor,
  type SponsoredTransaction,
} from "@svc/relayer/kit";
import { freshRead } from "@svc/util/fresh_read";
import { addressOf, isAddress } from "@svc/util/keys";
import {
  decodeKind,
  digestOf,
  type TransactionData,
  verifyDigestSignature,
} from "./transactions.ts";
import { KvLedgerStore } from "./kv_store.ts";
import {
  type DelegateKey,
  type LedgerAccount,
  type LedgerChange,
  type LedgerStore,
  type TransactionEffects,
  untilApplied,
} from "./store.ts";

export type {
  DelegateKey,
  LedgerAccount,
  LedgerChange,
  LedgerStore,
  StoredTransaction,
  TransactionEffects,
} from "./store.ts";
export { KvLedgerStore } from "./kv_store.ts";
export type { TransactionKind } from "./transactions.ts";
export { type StateLedgerOptions, StateLedgerStore } from "./state_store.ts";
export type {
  AccountDirectory,
  KeyScope,
  ResolvedAccount,
  StateBatch,
  StateEntry,
  StateKey,
  StateKeyPart,
  StateListOptions,
  StateSelector,
  StateSetOptions,
} from "@svc/relayer/kit";

/** Most delegate keys one account holds. */
export const MAX_DELEGATE_KEYS = 20;
/** Longest delegate key label, in bytes. */
export const MAX_LABEL_BYTES = 64;

/** The fixed package id of the local ledger, reported by `/health`: sha256("svc local ledger v1"). */
export const LOCAL_PACKAGE_ID =
  "0x10bb88685fefc54a8e8c2922f50d7c3b2b6db010b1904acc2dee7374b645051b";

/** Options of {@link LocalLedger}. */
export interface LedgerOptions {
  /** How long a sponsored transaction may wait for its signature (default 5 minutes). */
  ttlMs?: number;
  /** The clock, in Unix milliseconds (default `Date.now`). */
  now?: () => number;
}

const DONE_EXPIRY_MS = 24 * 3600_000;
/** Resolutions kept for the current version at most. */
const MAX_RESOLUTIONS = 10_000;

/** The local ledger: an account directory and a sponsor; see the module documentation. */
export class LocalLedger implements AccountDirectory, Sponsor {
  readonly name = "local-ledger";
  /** Each resolution checks the ledger's version: the relayer asks on every request. */
  readonly cacheable = false;
  #store: LedgerStore;
  #ttlMs: number;
  #now: () => number;
  /** The version the kept resolutions were read at (`undefined`: none kept yet). */
  #resolvedAt: string | null | undefined;
  #resolutions = new Map<string, ResolvedAccount | null>();
  /**
   * The versionstamp of the ledger's version, from a read that starts after the call (calls made
   * while one is under way share the one queued behind it).
   */
  #version = freshRead(() => this.#store.version());

  /** The ledger kept in `storage`: a Deno KV database, or a `LedgerStore`. */
  constructor(storage: Deno.Kv | LedgerStore, options: LedgerOptions = {}) {
    this.#store = storage instanceof Deno.Kv ? new KvLedgerStore(storage) : storage;
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /**
   * The ledger in `options.kv` (embedded mode) or `options.store`, as every plugin is opened.
   *
   * @example Many relayers on PostgreSQL
   * ```ts ignore
   * const store = await StateLedgerStore.sealed(new PgStateStore(database), { secret, prefix: ["ledger"] });
   * const ledger = await LocalLedger.open({ store });
   * ```
   */
  static open(
    options: LedgerOptions & ({ kv: Deno.Kv } | { store: LedgerStore }),
  ): Promise<LocalLedger> {
    return Promise.resolve(
      new LocalLedger("store" in options ? options.store : options.kv, options),
    );
  }

  async resolve(
    publicKey: string,
    accountIdHint?: string,
    options?: CallOptions,
  ): Promise<ResolvedAccount | null> {
    options?.signal?.throwIfAborted();
    try {
      return await this.#resolve(publicKey, accountIdHint);
    } catch (error) {
      throw backendError("the local ledger", "resolve the delegate key", error);
    }
  }

  async #resolve(publicKey: string, accountIdHint?: string): Promise<ResolvedAccount | null> {
    const version = await this.#version();
    if (version !== this.#resolvedAt) {
      this.#resolutions.clear();
      this.#resolvedAt = version;
    }
    const id = `${publicKey}|${accountIdHint ?? ""}`;
    const kept = this.#resolutions.get(id);
    if (kept !== undefined) return kept && { ...kept };
    // Read after the version: it is at least as new, so it may be kept under that version.
    const resolved = await this.#lookUp(publicKey, accountIdHint);
    // Unknown keys are not kept: anyone can send them, and they would push out the known ones.
    if (resolved && this.#resolvedAt === version) {
      if (this.#resolutions.size >= MAX_RESOLUTIONS) this.#resolutions.clear();
      this.#resolutions.set(id, resolved);
    }
    return resolved && { ...resolved };
  }

  async resolveOwner(owner: string, options?: CallOptions): Promise<ResolvedAccount | null> {
    options?.signal?.throwIfAborted();
    try {
      const account = await this.accountOf(owner);
      return account && { accountId: account.id, owner: account.owner, active: account.active };
    } catch (error) {
      throw backendError("the local ledger", "resolve the owner key", error);
    }
  }

  async #lookUp(publicKey: string, accountIdHint?: string): Promise<ResolvedAccount | null> {
    const account = await this.#store.accountOfKey(publicKey);
    if (!account || (accountIdHint !== undefined && account.id !== accountIdHint)) return null;
    const key = account.delegate_keys.find((k) => k.public_key === publicKey);
    if (!key) return null;
    const scope: KeyScope = {
      ...(key.namespaces ? { namespaces: key.namespaces } : {}),
      ...(key.operations ? { operations: key.operations } : {}),
    };
    return {
      accountId: account.id,
      owner: account.owner,
      active: account.active,
      label: key.label,
      scope,
      ...(key.expires_at ? { expiresAt: Date.parse(key.expires_at) } : {}),
    };
  }

  /** The account `accountId`, or `null`. */
  getAccount(accountId: string): Promise<LedgerAccount | null> {
    return this.#store.account(accountId);
  }

  /** The account `owner` owns, or `null`. */
  accountOf(owner: string): Promise<LedgerAccount | null> {
    return this.#store.accountOfOwner(owner);
  }

  /** Wraps the sender's transaction kind into transaction bytes that expire. */
  async sponsor(
    transactionKind: Uint8Array,
    sender: string,
    options?: CallOptions,
  ): Promise<SponsoredTransaction> {
    options?.signal?.throwIfAborted();
    if (!isAddress(sender)) {
      throw rejected("malformed", "The sender must be an address: 0x and 64 lowercase hex");
    }
    const data: TransactionData = {
      version: 1,
      package_id: LOCAL_PACKAGE_ID,
      sender,
      kind: decodeKind(transactionKind),
      expires_at: this.#now() + this.#ttlMs,
      nonce: crypto.getRandomValues(new Uint8Array(16)).toHex(),
    };
    const bytes = new TextEncoder().encode(JSON.stringify(data));
    const digest = digestOf(bytes);
    await this.#store.putPending(digest, bytes, this.#ttlMs + 60_000);
    return { bytes, digest };
  }

  /** Executes a sponsored transaction signed by its sender, at most once. */
  async execute(
    digest: string,
    signature: string,
    options?: CallOptions,
  ): Promise<{ digest: string; effects: TransactionEffects }> {
    options?.signal?.throwIfAborted();
    if (typeof digest !== "string" || !/^[0-9a-f]{64}$/.test(digest)) {
      throw rejected("malformed", "The digest must be 64 lowercase hex characters");
    }
    const effects = await untilApplied(
      () => this.#executeOnce(digest, signature),
      "The ledger is busy; execute the transaction again",
      options?.signal,
    );
    return { digest, effects };
  }

  /**
   * One try of `execute`: the effects, or `null` when another handle's commit beat it (the
   * transaction is then read again).
   */
  async #executeOnce(digest: string, signature: string): Promise<TransactionEffects | null> {
    const stored = await this.#store.transaction(digest);
    if (stored?.executed) throw rejected("replayed", "This transaction was already executed");
    if (!stored) throw rejected("expired", "Unknown or expired transaction: sponsor it again");
    const data: TransactionData = JSON.parse(new TextDecoder().decode(stored.bytes));
    if (this.#now() > data.expires_at) {
      throw rejected(
        "expired",
        "The transaction expired before it was executed: sponsor it again",
      );
    }
    const signer = await verifyDigestSignature(digest, signature);
    if (signer !== data.sender) {
      throw rejected(
        "bad_signature",
        `The transaction is signed by ${signer}, not by its sender`,
      );
    }
    try {
      return await this.#store.apply(
        digest,
        (view) => this.#apply(view, data, digest),
        DONE_EXPIRY_MS,
      );
    } catch (error) {
      // A concurrent execution of this digest may have changed what the rules see.
      if ((await this.#store.transaction(digest))?.executed) {
        throw rejected("replayed", "This transaction was already executed");
      }
      throw error;
    }
  }

  /** The ledger's rules for one transaction: its writes on `view`, and its effects. */
  async #apply(
    view: LedgerChange,
    data: TransactionData,
    digest: string,
  ): Promise<TransactionEffects> {
    const { kind, sender } = data;
    const at = new Date(this.#now()).toISOString();
    const effects = (account_id: string, public_key?: string): TransactionEffects => ({
      status: "success",
      kind: kind.kind,
      account_id,
      sender,
      ...(public_key ? { public_key } : {}),
      executed_at: at,
    });

    if (kind.kind === "create_account") {
      const owned = await view.accountIdOfOwner(sender);
      if (owned) throw rejected("account_exists", `${sender} already has account ${owned}`);
      const account: LedgerAccount = {
        id: "0x" + digestOf(new TextEncoder().encode(`account:${digest}`)),
        owner: sender,
        delegate_keys: [],
        active: true,
        created_at: at,
      };
      view.putAccount(account);
      return effects(account.id);
    }
    const account = await view.account(kind.account_id);
    if (!account) throw rejected("no_account", `There is no account ${kind.account_id}`);
    if (account.owner !== sender) {
      throw rejected("not_owner", "Only the account's owner can change this account");
    }
    if (kind.kind === "add_delegate_key") {
      if (!account.active) throw rejected("inactive_account", "The account is inactive");
      if (new TextEncoder().encode(kind.label).byteLength > MAX_LABEL_BYTES) {
        throw rejected("label_too_long", `A label is at most ${MAX_LABEL_BYTES} bytes`);
      }
      if (account.delegate_keys.length >= MAX_DELEGATE_KEYS) {
        throw rejected("too_many_keys", `An account holds at most ${MAX_DELEGATE_KEYS} keys`);
      }
      if (await view.isKeyRegistered(kind.public_key)) {
        throw rejected("duplicate_key", "This delegate key is already registered");
      }
      // An owner's key signing without x-account-id would be taken for the delegate's.
      if (await view.accountIdOfOwner(addressOf(kind.public_key))) {
        throw rejected(
          "duplicate_key",
          "This key owns an account: an account owner's key cannot be a delegate key",
        );
      }
      const key: DelegateKey = {
        public_key: kind.public_key,
        address: addressOf(kind.public_key),
        label: kind.label,
        created_at: at,
        ...(kind.namespaces ? { namespaces: kind.namespaces } : {}),
        ...(kind.operations ? { operations: kind.operations } : {}),
        ...(kind.expires_at ? { expires_at: kind.expires_at } : {}),
      };
      view.putAccount({ ...account, delegate_keys: [...account.delegate_keys, key] });
      view.putKey(key.public_key, account.id);
      return effects(account.id, key.public_key);
    }
    if (kind.kind === "remove_delegate_key") {
      if (!account.delegate_keys.some((k) => k.public_key === kind.public_key)) {
        throw rejected("unknown_key", "This delegate key is not on the account");
      }
      view.putAccount({
        ...account,
        delegate_keys: account.delegate_keys.filter((k) => k.public_key !== kind.public_key),
      });
      view.deleteKey(kind.public_key);
      return effects(account.id, kind.public_key);
    }
    const active = kind.kind === "reactivate_account";
    if (account.active === active) {
      throw active
        ? rejected("already_active", "The account is already active")
        : rejected("inactive_account", "The account is already inactive");
    }
    view.putAccount({ ...account, active });
    return effects(account.id);
  }
}
