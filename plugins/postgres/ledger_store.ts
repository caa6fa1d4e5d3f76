/**
 * The local ledger's storage in PostgreSQL, shared by every relayer on the database:
 *
 * ```ts ignore
 * const ledger = await LocalLedger.open({
 *   store: await PgLedgerStore.open({ database, masterKey }),
 * });
 * ```
 *
 * Nothing is readable without the master key: accounts (`svc_ledger_accounts`) and delegate
 * keys (`svc_ledger_keys`) are found by HMAC-SHA-256 hashes of the account id, the owner's
 * address and the key, under a key HKDF derives from the relayers' shared secret; an account's
 * JSON and a transaction's bytes or effects (`svc_ledger_transactions`, by digest) are sealed
 * with AES-256-GCM. A transaction applies in one database transaction that locks its row, then
 * the ledger's version (so the ledger's transactions apply one after another across relayers,
 * each seeing the last), writes, marks the digest executed and notifies `svc_ledger` with the
 * new version: of two relayers applying the same digest, one applies it, the other finds it
 * executed. Every relayer reads the version once per request (the ledger shares that read
 * between concurrent requests), so a removed key is refused by the next request on any relayer;
 * the notification only frees what idle relayers keep in memory early.
 */
import { pgError } from "./database.ts";
import { SvcError } from "@svc/relayer/kit";
import { deriveAesKey, deriveHmacKey, hkdfMaster, openBytes, sealBytes } from "@svc/util/sealing";
import type {
  LedgerAccount,
  LedgerChange,
  LedgerStore,
  StoredTransaction,
  TransactionEffects,
} from "@svc/local-ledger";
import type { Database, Sql, Transaction } from "./database.ts";

/** The channel every applied transaction notifies, with the ledger's new version. */
export const LEDGER_CHANNEL = "svc_ledger";

const SALT = "svc-postgres-ledger-v1";
const encoder = new TextEncoder();

/** How to open the ledger's storage. */
export interface PgLedgerStoreOptions {
  /** The shared database, migrated. */
  database: Database;
  /** The relayers' shared 32-byte secret (`SVC_MASTER_KEY`): the same on every relayer. */
  masterKey: Uint8Array<ArrayBuffer>;
}

/** The ledger's storage in PostgreSQL; see the module documentation. */
export class PgLedgerStore implements LedgerStore {
  readonly #database: Database;
  readonly #lookupKey: CryptoKey;
  readonly #sealKey: CryptoKey;
  readonly #listeners = new Set<() => void>();

  private constructor(database: Database, lookupKey: CryptoKey, sealKey: CryptoKey) {
    this.#database = database;
    this.#lookupKey = lookupKey;
    this.#sealKey = sealKey;
  }

  /** The database's pool now (it is renewed after a lost connection). */
  get #sql(): Sql {
    return this.#database.sql;
  }

  /**
   * Derives the store's keys, refuses a ledger written under another master key, and listens
   * for the other relayers' changes.
   */
  static async open(options: PgLedgerStoreOptions): Promise<PgLedgerStore> {
    if (options.masterKey.byteLength !== 32) {
      throw new SvcError("bad_request", "Cannot open the ledger: the master key must be 32 bytes");
    }
    const master = await hkdfMaster(options.masterKey);
    const lookupKey = await deriveHmacKey(master, SALT, "lookup");
    const sealKey = await deriveAesKey(master, SALT, "seal");
    const { database } = options;
    const store = new PgLedgerStore(database, lookupKey, sealKey);
    const check = await store.#hash("key check", SALT);
    let kept: Uint8Array;
    try {
      [{ key_check: kept }] = await database.sql`
        update svc_ledger_version set key_check = coalesce(key_check, ${check})
        returning key_check`;
      await database.listen(LEDGER_CHANNEL, () => {
        for (const listener of store.#listeners) listener();
      });
    } catch (error) {
      throw pgError("open the ledger", error);
    }
    if (new Uint8Array(kept).toHex() !== check.toHex()) {
      throw new SvcError(
        "conflict",
        "Cannot open the ledger: the database's ledger was written under another master key. " +
          "Every relayer on the database must start with the same SVC_MASTER_KEY",
      );
    }
    return store;
  }

  onChange(listener: () => void): void {
    this.#listeners.add(listener);
  }

  async version(): Promise<string | null> {
    try {
      const [row] = await this.#sql`select version::text as version from svc_ledger_version`;
      return row?.version ?? null;
    } catch (error) {
      throw pgError("read the ledger's version", error);
    }
  }

  account(id: string): Promise<LedgerAccount | null> {
    return this.#account(this.#sql, id);
  }

  accountOfOwner(owner: string): Promise<LedgerAccount | null> {
    return this.#accountOfOwner(this.#sql, owner);
  }

  async accountOfKey(publicKey: string): Promise<LedgerAccount | null> {
    const hash = await this.#hash("key", publicKey);
    return await this.#readAccount(
      "read a delegate key's account",
      (sql) =>
        sql`select a.account_hash, a.sealed from svc_ledger_keys k
          join svc_ledger_accounts a on a.account_hash = k.account_hash
          where k.key_hash = ${hash}`,
    );
  }

  async putPending(digest: string, bytes: Uint8Array, keepMs: number): Promise<void> {
    const sealed = await this.#seal(new Uint8Array(bytes), `${digest}:pending`);
    const keepSeconds = keepMs / 1000;
    try {
      // Transactions past their time are pruned as new ones come, a few at a time, by any relayer
      // (skipping rows another relayer is pruning or applying: never waiting, never deadlocked).
      await this.#sql`
        with pruned as (
          delete from svc_ledger_transactions where digest in (
            select digest from svc_ledger_transactions where expires_at < now()
            limit 100 for update skip locked
          )
        )
        insert into svc_ledger_transactions (digest, executed, sealed, expires_at)
        values (${digest}, false, ${sealed}, now() + make_interval(secs => ${keepSeconds}))
        on conflict (digest) do nothing`;
    } catch (error) {
      throw pgError("keep a sponsored transaction", error);
    }
  }

  async transaction(digest: string): Promise<StoredTransaction | null> {
    let row;
    try {
      [row] = await this.#sql`
        select executed, sealed from svc_ledger_transactions
        where digest = ${digest} and expires_at > now()`;
    } catch (error) {
      throw pgError("read a transaction", error);
    }
    if (!row) return null;
    if (row.executed) return { executed: true };
    return { executed: false, bytes: await this.#open(row.sealed, `${digest}:pending`) };
  }

  async apply(
    digest: string,
    change: (view: LedgerChange) => Promise<TransactionEffects>,
    keepMs: number,
  ): Promise<TransactionEffects | null> {
    const keepSeconds = keepMs / 1000;
    try {
      return await this.#sql.begin(async (tx) => {
        const [row] = await tx`
          select executed from svc_ledger_transactions
          where digest = ${digest} and expires_at > now() for update`;
        if (!row || row.executed) return null;
        // Every transaction of the ledger takes this row's lock: they apply one after another,
        // and what this one reads from here on includes every one committed before it.
        const [{ version }] = await tx`
          update svc_ledger_version set version = version + 1 returning version::text as version`;
        const writes: ((tx: Transaction) => Promise<unknown>)[] = [];
        const effects = await change(this.#view(tx, writes));
        for (const write of writes) await write(tx);
        const sealed = await this.#seal(encoder.encode(JSON.stringify(effects)), `${digest}:done`);
        await tx`
          update svc_ledger_transactions
          set executed = true, sealed = ${sealed},
            expires_at = now() + make_interval(secs => ${keepSeconds})
          where digest = ${digest}`;
        await tx`select pg_notify(${LEDGER_CHANNEL}, ${version})`;
        return effects;
      }) as TransactionEffects | null;
    } catch (error) {
      throw pgError("apply a ledger transaction", error);
    }
  }

  /**
   * Copies accounts (from another ledger: `svc migrate-store` reads them from `ledger.kv` with
   * `KvLedgerStore.accounts()`) in one transaction that bumps the version, as a ledger
   * transaction does. Copying an account again overwrites it, so an interrupted copy is resumed
   * by copying again. An owner or a key held by another account of the database is a `conflict`.
   */
  async importAccounts(accounts: LedgerAccount[]): Promise<void> {
    try {
      await this.#sql.begin(async (tx) => {
        const [{ version }] = await tx`
          update svc_ledger_version set version = version + 1 returning version::text as version`;
        const writes: ((tx: Transaction) => Promise<unknown>)[] = [];
        for (const account of accounts) this.#view(tx, writes).putAccount(account);
        for (const write of writes) await write(tx);
        for (const account of accounts) {
          const accountHash = await this.#hash("account", account.id);
          for (const { public_key } of account.delegate_keys) {
            const keyHash = await this.#hash("key", public_key);
            const [held] = await tx`
              insert into svc_ledger_keys (key_hash, account_hash) values (${keyHash}, ${accountHash})
              on conflict (key_hash) do update set account_hash = svc_ledger_keys.account_hash
              returning account_hash`;
            if (new Uint8Array(held.account_hash).toHex() !== accountHash.toHex()) {
              throw Object.assign(new Error("a delegate key of another account"), {
                code: "23505",
              });
            }
          }
        }
        await tx`select pg_notify(${LEDGER_CHANNEL}, ${version})`;
      });
    } catch (error) {
      if ((error as { code?: string })?.code === "23505") {
        throw new SvcError(
          "conflict",
          "Cannot copy the accounts: an owner or a delegate key of theirs is held by another " +
            "account of the database",
          { cause: error },
        );
      }
      throw pgError("copy accounts into the ledger", error);
    }
  }

  /** The view a transaction's rules read (in `tx`) and write (queued in `writes`). */
  #view(tx: Transaction, writes: ((tx: Transaction) => Promise<unknown>)[]): LedgerChange {
    return {
      account: (id) => this.#account(tx, id),
      accountIdOfOwner: async (owner) => (await this.#accountOfOwner(tx, owner))?.id ?? null,
      isKeyRegistered: async (publicKey) => {
        const hash = await this.#hash("key", publicKey);
        const rows = await tx`select 1 from svc_ledger_keys where key_hash = ${hash}`;
        return rows.length > 0;
      },
      putAccount: (account) => {
        writes.push(async (tx) => {
          const hash = await this.#hash("account", account.id);
          const owner = await this.#hash("owner", account.owner);
          const sealed = await this.#seal(encoder.encode(JSON.stringify(account)), hash);
          await tx`
            insert into svc_ledger_accounts (account_hash, owner_hash, sealed)
            values (${hash}, ${owner}, ${sealed})
            on conflict (account_hash) do update set sealed = excluded.sealed`;
        });
      },
      putKey: (publicKey, accountId) => {
        writes.push(async (tx) => {
          const key = await this.#hash("key", publicKey);
          const account = await this.#hash("account", accountId);
          await tx`insert into svc_ledger_keys (key_hash, account_hash) values (${key}, ${account})`;
        });
      },
      deleteKey: (publicKey) => {
        writes.push(async (tx) => {
          const key = await this.#hash("key", publicKey);
          await tx`delete from svc_ledger_keys where key_hash = ${key}`;
        });
      },
    };
  }

  async #account(sql: Sql | Transaction, id: string): Promise<LedgerAccount | null> {
    const hash = await this.#hash("account", id);
    return await this.#readAccount(
      "read an account",
      (sql) =>
        sql`select account_hash, sealed from svc_ledger_accounts where account_hash = ${hash}`,
      sql,
    );
  }

  async #accountOfOwner(sql: Sql | Transaction, owner: string): Promise<LedgerAccount | null> {
    const hash = await this.#hash("owner", owner);
    return await this.#readAccount(
      "read an owner's account",
      (sql) => sql`select account_hash, sealed from svc_ledger_accounts where owner_hash = ${hash}`,
      sql,
    );
  }

  /** The account the query selects (`account_hash`, `sealed`), opened; `null` when none. */
  async #readAccount(
    action: string,
    query: (
      sql: Sql | Transaction,
    ) => Promise<{ account_hash?: Uint8Array; sealed?: Uint8Array }[]>,
    sql: Sql | Transaction = this.#sql,
  ): Promise<LedgerAccount | null> {
    let row;
    try {
      [row] = await query(sql);
    } catch (error) {
      throw pgError(action, error);
    }
    if (!row?.sealed || !row.account_hash) return null;
    const json = await this.#open(row.sealed, new Uint8Array(row.account_hash));
    return JSON.parse(new TextDecoder().decode(json));
  }

  /** HMAC-SHA-256 of `value` as a `kind` (account, owner, key) under the lookup key. */
  async #hash(kind: string, value: string): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(
      await crypto.subtle.sign("HMAC", this.#lookupKey, encoder.encode(`${kind}:${value}`)),
    );
  }

  #seal(
    plaintext: Uint8Array<ArrayBuffer>,
    context: string | Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    return sealBytes(
      this.#sealKey,
      plaintext,
      typeof context === "string" ? encoder.encode(context) : context,
    );
  }

  async #open(
    sealed: Uint8Array,
    context: string | Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer>> {
    try {
      return new Uint8Array(
        await openBytes(
          this.#sealKey,
          new Uint8Array(sealed),
          typeof context === "string" ? encoder.encode(context) : context,
        ),
      );
    } catch (error) {
      throw pgError("open a sealed ledger row", error);
    }
  }
}
