/**
 * The local ledger's storage in a `StateStore`: the data directory's `ledger.kv` (through
 * `KvLedgerStore`) or the state many relayers share in PostgreSQL. Every transaction rewrites the
 * ledger's version and applies in one batch that checks it unchanged since its rules started
 * reading, so a concurrent change makes it look again rather than commit over what it did not see.
 *
 * Keys, under the store's prefix: `["account", id]` → account, `["account_owner", owner]` → id,
 * `["delegate_key", publicKey]` → id, `["tx_pending", digest]` → sponsored bytes,
 * `["tx_done", digest]` → effects, `["ledger_version"]`, rewritten by every transaction.
 *
 * Opened with a secret (`StateLedgerStore.sealed`), nothing is readable at rest: ids, owners and
 * keys are filed under HMAC-SHA-256 hashes (hex) under a key HKDF derives from the secret, and
 * accounts, sponsored bytes and effects are sealed with AES-256-GCM. `["key_check"]` then refuses
 * a store written under another secret. The derivation is the one of the PostgreSQL ledger
 * tables of earlier versions, so their rows move into the state as they are.
 *
 * @example
 * ```ts
 * const store = await StateLedgerStore.sealed(new MemoryStateStore(), { secret, prefix: ["ledger"] });
 * const ledger = await LocalLedger.open({ store });
 * ```
 * @module
 */
import { type StateBatch, type StateKey, type StateStore, SvcError } from "@svc/relayer/kit";
import { inTurn } from "@svc/util/in_turn";
import { deriveAesKey, deriveHmacKey, hkdfMaster, openBytes, sealBytes } from "@svc/util/sealing";
import {
  type LedgerAccount,
  type LedgerChange,
  type LedgerStore,
  type StoredTransaction,
  type TransactionEffects,
  untilApplied,
} from "./store.ts";

const SALT = "svc-postgres-ledger-v1";
const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Accounts one commit of `importAccounts` copies at most. */
const IMPORT_BATCH = 20;

/** The entries that lead to an account, and what kind of value each is filed under. */
const REF_KIND = { account: "account", account_owner: "owner", delegate_key: "key" } as const;
type Filed = keyof typeof REF_KIND;

/** How a store files and keeps what it is given: as it is, or hashed and sealed. */
interface Sealing {
  /** Where a `kind` of value ("account", "owner", "key") is filed. */
  ref(kind: string, value: string): Promise<string>;
  /** `value` as stored, sealed for `context`. */
  seal(value: unknown, context: string): Promise<unknown>;
  /** What `seal` stored, opened: as the bytes sealed when `raw`, else as the value. */
  open<T>(stored: unknown, context: string, raw?: boolean): Promise<T>;
}

const CLEAR: Sealing = {
  ref: (_kind, value) => Promise.resolve(value),
  seal: (value) => Promise.resolve(value),
  open: <T>(stored: unknown) => Promise.resolve(stored as T),
};

/** Hashes and seals under keys derived from `secret` (see the module documentation). */
async function sealing(secret: Uint8Array<ArrayBuffer>): Promise<Sealing & { check: string }> {
  const master = await hkdfMaster(secret);
  const lookup = await deriveHmacKey(master, SALT, "lookup");
  const key = await deriveAesKey(master, SALT, "seal");
  const ref = async (kind: string, value: string) =>
    new Uint8Array(await crypto.subtle.sign("HMAC", lookup, encoder.encode(`${kind}:${value}`)))
      .toHex();
  // An account is sealed for its hash's bytes, a transaction for its digest and state.
  const data = (context: string) =>
    /^[0-9a-f]{64}$/.test(context) ? Uint8Array.fromHex(context) : encoder.encode(context);
  return {
    check: await ref("key check", SALT),
    ref,
    seal: (value, context) =>
      sealBytes(
        key,
        value instanceof Uint8Array ? new Uint8Array(value) : encoder.encode(JSON.stringify(value)),
        data(context),
      ),
    async open<T>(stored: unknown, context: string, raw = false) {
      const bytes = new Uint8Array(
        await openBytes(key, stored as Uint8Array<ArrayBuffer>, data(context)),
      );
      return (raw ? bytes : JSON.parse(decoder.decode(bytes))) as T;
    },
  };
}

/** How to open a {@link StateLedgerStore}. */
export interface StateLedgerOptions {
  /** Where in the state its entries are (default: at the top). */
  prefix?: StateKey;
  /**
   * A count of commits to the state that changes whenever anything commits: the version is read
   * again only when it changed (`undefined`: read it).
   */
  commits?: () => unknown;
}

/** The local ledger's storage in a `StateStore`; see the module documentation. */
export class StateLedgerStore implements LedgerStore {
  readonly #state: StateStore;
  readonly #prefix: StateKey;
  #sealing: Sealing = CLEAR;
  readonly #commits?: () => unknown;
  /** The version last read, and the count of commits taken just before reading it. */
  #known?: { commits: unknown; version: string | null };
  /** Runs the store's changes one after another. */
  readonly #inTurn = inTurn();

  /** The ledger in `state`, kept as it is (see `sealed` for a sealed one). */
  constructor(state: StateStore, options: StateLedgerOptions = {}) {
    this.#state = state;
    this.#prefix = options.prefix ?? [];
    this.#commits = options.commits;
  }

  /**
   * The ledger in `state`, sealed under `secret` (32 bytes); refuses a ledger written under
   * another secret with a `conflict`.
   */
  static async sealed(
    state: StateStore,
    options: StateLedgerOptions & { secret: Uint8Array<ArrayBuffer> },
  ): Promise<StateLedgerStore> {
    if (options.secret.byteLength !== 32) {
      throw new SvcError("bad_request", "Cannot open the ledger: the master key must be 32 bytes");
    }
    const seal = await sealing(options.secret);
    const store = new StateLedgerStore(state, options);
    store.#sealing = seal;
    const at = store.#key("key_check");
    await state.batch().check(at, null).set(at, seal.check).commit();
    if ((await state.get(at))?.value !== seal.check) {
      throw new SvcError(
        "conflict",
        "Cannot open the ledger: it was written under another master key. Every relayer on " +
          "the database must start with the same SVC_MASTER_KEY",
      );
    }
    return store;
  }

  #key(...parts: string[]): StateKey {
    return [...this.#prefix, ...parts];
  }

  async version(): Promise<string | null> {
    // Taken before the read: a commit after it changes the count, so the pair is never stale.
    const commits = this.#commits?.();
    if (commits !== undefined && this.#known?.commits === commits) return this.#known.version;
    const version = (await this.#state.get(this.#key("ledger_version")))?.version ?? null;
    if (commits !== undefined) this.#known = { commits, version };
    return version;
  }

  async account(id: string): Promise<LedgerAccount | null> {
    return await this.#read("account", id);
  }

  async accountOfOwner(owner: string): Promise<LedgerAccount | null> {
    return await this.#read("account_owner", owner);
  }

  async accountOfKey(publicKey: string): Promise<LedgerAccount | null> {
    return await this.#read("delegate_key", publicKey);
  }

  /** The key a `kind` of entry ("account", "account_owner", "delegate_key") of `value` is at. */
  async #filed(kind: Filed, value: string): Promise<StateKey> {
    return this.#key(kind, await this.#sealing.ref(REF_KIND[kind], value));
  }

  /** The account the entry `kind` of `value` leads to, or `null`. */
  async #read(kind: Filed, value: string): Promise<LedgerAccount | null> {
    let entry = await this.#state.get(await this.#filed(kind, value));
    if (entry && kind !== "account") {
      entry = await this.#state.get(this.#key("account", entry.value as string));
    }
    return entry && await this.#sealing.open<LedgerAccount>(entry.value, String(entry.key.at(-1)));
  }

  /** Every account, in the order they are filed (for copying the ledger elsewhere). */
  async *accounts(): AsyncIterable<LedgerAccount> {
    for await (const { key, value } of this.#state.list({ prefix: this.#key("account") })) {
      yield await this.#sealing.open<LedgerAccount>(value, String(key.at(-1)));
    }
  }

  async putPending(digest: string, bytes: Uint8Array, keepMs: number): Promise<void> {
    const sealed = await this.#sealing.seal(new Uint8Array(bytes), `${digest}:pending`);
    await this.#state.set(this.#key("tx_pending", digest), sealed, { expireIn: keepMs });
  }

  async transaction(digest: string): Promise<StoredTransaction | null> {
    // One read: an execution committed between two reads would find neither.
    const [done, pending] = await this.#state.getMany([
      this.#key("tx_done", digest),
      this.#key("tx_pending", digest),
    ]);
    if (done) return { executed: true };
    if (!pending) return null;
    const bytes = await this.#sealing.open<Uint8Array>(pending.value, `${digest}:pending`, true);
    return { executed: false, bytes };
  }

  async apply(
    digest: string,
    change: (view: LedgerChange) => Promise<TransactionEffects>,
    keepMs: number,
  ): Promise<TransactionEffects | null> {
    let effects: TransactionEffects | undefined;
    const done = this.#key("tx_done", digest);
    const applied = await this.#change(async (view, batch) => {
      batch.check(done, null).delete(this.#key("tx_pending", digest));
      effects = await change(view);
      batch.set(done, await this.#sealing.seal(effects, `${digest}:done`), { expireIn: keepMs });
    });
    return applied ? effects! : null;
  }

  /**
   * Copies accounts (from another ledger: `svc migrate-store` reads them from `ledger.kv`), a
   * few a commit, each commit changing the version as a transaction does. Copying an account
   * again overwrites it, so an interrupted copy is resumed by copying again. An owner or a key
   * another account holds is a `conflict`, and nothing of that commit is copied.
   */
  async importAccounts(accounts: LedgerAccount[]): Promise<void> {
    for (let i = 0; i < accounts.length; i += IMPORT_BATCH) {
      const some = accounts.slice(i, i + IMPORT_BATCH);
      await untilApplied(
        async () => await this.#change((view) => this.#copy(view, some)) || null,
        "The ledger is busy; copy again",
      );
    }
  }

  async #copy(view: LedgerChange, accounts: LedgerAccount[]): Promise<void> {
    for (const account of accounts) {
      const holders = await Promise.all([
        this.#read("account_owner", account.owner),
        ...account.delegate_keys.map((key) => this.#read("delegate_key", key.public_key)),
      ]);
      if (holders.some((holder) => holder && holder.id !== account.id)) {
        throw new SvcError(
          "conflict",
          "Cannot copy the accounts: an owner or a delegate key of theirs is held by another " +
            "account of the database",
        );
      }
      view.putAccount(account);
      for (const { public_key } of account.delegate_keys) view.putKey(public_key, account.id);
    }
  }

  /**
   * Runs `build` on a view whose writes are committed together with a new version, unless the
   * version changed since `build` started reading (every change writes it, so what `build` read
   * is then stale); resolves to whether they were. A store's changes run one after another, so
   * only another handle's commit can beat one.
   */
  #change(build: (view: LedgerChange, batch: StateBatch) => Promise<void>): Promise<boolean> {
    return this.#inTurn(async () => {
      const batch = this.#state.batch();
      const version = this.#key("ledger_version");
      const seen = await this.#state.get(version);
      batch.check(version, seen?.version ?? null).set(version, (Number(seen?.value) || 0) + 1);
      const writes: (() => Promise<void>)[] = [];
      await build(this.#view(batch, writes), batch);
      for (const write of writes) await write();
      return await batch.commit();
    });
  }

  /** The view a change reads and writes, its writes queued in `writes` for `batch`. */
  #view(batch: StateBatch, writes: (() => Promise<void>)[]): LedgerChange {
    const { ref, seal } = this.#sealing;
    const write = (task: () => Promise<unknown>) => void writes.push(async () => void await task());
    return {
      account: (id) => this.#read("account", id),
      accountIdOfOwner: async (owner) => (await this.#read("account_owner", owner))?.id ?? null,
      isKeyRegistered: async (publicKey) =>
        (await this.#state.get(await this.#filed("delegate_key", publicKey))) !== null,
      putAccount: (account) =>
        write(async () => {
          const at = await ref("account", account.id);
          batch.set(this.#key("account", at), await seal(account, at))
            .set(await this.#filed("account_owner", account.owner), at);
        }),
      putKey: (publicKey, accountId) =>
        write(async () =>
          batch.set(await this.#filed("delegate_key", publicKey), await ref("account", accountId))
        ),
      deleteKey: (publicKey) =>
        write(async () => batch.delete(await this.#filed("delegate_key", publicKey))),
    };
  }
}
