/**
 * The local ledger's storage in Deno KV (one machine; the relayer, the sidecar and the CLI may
 * open the same file). A transaction applies in one atomic commit that checks every entry its
 * rules read, so a concurrent change makes it retry rather than commit over what it did not see.
 *
 * Keys: `["account", id]` → account, `["account_owner", owner]` → id,
 * `["delegate_key", publicKey]` → id, `["tx_pending", digest]` → sponsored bytes,
 * `["tx_done", digest]` → effects, `["ledger_version"]` → a counter bumped in the commit of
 * every transaction, whose versionstamp tells whether the ledger changed.
 *
 * Opened from the file's path (`open`), the store also asks SQLite itself whether anything
 * committed to the file since the version was last read (a few microseconds), and reads the
 * version from Deno KV only then: the relayer asks for the version on every request.
 */
import { DatabaseSync, type StatementSync } from "node:sqlite";
import { retryWhileLocked } from "@svc/util/kv_locked";
import type {
  LedgerAccount,
  LedgerChange,
  LedgerStore,
  StoredTransaction,
  TransactionEffects,
} from "./store.ts";

/** Tries of a commit the file's write lock refused (another process was writing). */
const LOCKED_TRIES = 20;

const VERSION = ["ledger_version"];

/** The ledger's storage in a Deno KV database; see the module documentation. */
export class KvLedgerStore implements LedgerStore {
  #kv: Deno.Kv;
  /** Set by `open`: the store's own connection to the file, and the handle it opened. */
  #file?: { sqlite: DatabaseSync; commits: StatementSync };
  /** The version last read, and SQLite's count of commits taken just before reading it. */
  #known?: { commits: unknown; version: string | null };

  /** The ledger in `kv`, its version read on every call (see `open` for the file of a path). */
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * The ledger in the Deno KV file at `path`, its version read only after a commit to the file
   * (SQLite's `data_version` on a read-only connection of the store's own, which counts the
   * commits of every other connection: the CLI's, the sidecar's, this process's Deno KV).
   * `close` closes both.
   */
  static async open(path: string): Promise<KvLedgerStore> {
    const store = new KvLedgerStore(await Deno.openKv(path));
    try {
      const sqlite = new DatabaseSync(path, { readOnly: true });
      store.#file = { sqlite, commits: sqlite.prepare("PRAGMA data_version") };
    } catch (error) {
      store.#kv.close();
      throw error;
    }
    return store;
  }

  async version(): Promise<string | null> {
    // Taken before the read: a commit after it changes the count, so the pair is never stale.
    const commits = this.#commits();
    if (commits !== undefined && this.#known?.commits === commits) return this.#known.version;
    const { versionstamp } = await this.#kv.get(VERSION);
    if (commits !== undefined) this.#known = { commits, version: versionstamp };
    return versionstamp;
  }

  /** SQLite's count of commits to the file; `undefined` without one, or when it cannot tell. */
  #commits(): unknown {
    try {
      return this.#file?.commits.get()?.data_version;
    } catch {
      return undefined; // then the version is read, which is always right
    }
  }

  /** Closes what `open` opened (a store made from a handle leaves it open). */
  close(): void {
    if (!this.#file) return;
    try {
      this.#file.sqlite.close();
    } finally {
      this.#kv.close();
    }
  }

  async account(id: string): Promise<LedgerAccount | null> {
    return (await this.#kv.get<LedgerAccount>(["account", id])).value;
  }

  async accountOfOwner(owner: string): Promise<LedgerAccount | null> {
    const ref = await this.#kv.get<string>(["account_owner", owner]);
    return ref.value ? this.account(ref.value) : null;
  }

  async accountOfKey(publicKey: string): Promise<LedgerAccount | null> {
    const ref = await this.#kv.get<string>(["delegate_key", publicKey]);
    return ref.value ? this.account(ref.value) : null;
  }

  /** Every account, in id order (for copying the ledger elsewhere). */
  async *accounts(): AsyncIterable<LedgerAccount> {
    for await (const entry of this.#kv.list<LedgerAccount>({ prefix: ["account"] })) {
      yield entry.value;
    }
  }

  async putPending(digest: string, bytes: Uint8Array, keepMs: number): Promise<void> {
    await this.#kv.set(["tx_pending", digest], bytes, { expireIn: keepMs });
  }

  async transaction(digest: string): Promise<StoredTransaction | null> {
    // One snapshot: an execution committed between two reads would find neither.
    const [done, pending] = await this.#kv.getMany<[unknown, Uint8Array]>([
      ["tx_done", digest],
      ["tx_pending", digest],
    ]);
    if (done.value) return { executed: true };
    return pending.value ? { executed: false, bytes: pending.value } : null;
  }

  async apply(
    digest: string,
    change: (view: LedgerChange) => Promise<TransactionEffects>,
    keepMs: number,
  ): Promise<TransactionEffects | null> {
    // The relayer, its sidecar and the CLI write the file from three processes: SQLite refuses a
    // commit while another holds the write lock, and the change is read and tried again.
    return await retryWhileLocked(() => this.#applyOnce(digest, change, keepMs), LOCKED_TRIES);
  }

  async #applyOnce(
    digest: string,
    change: (view: LedgerChange) => Promise<TransactionEffects>,
    keepMs: number,
  ): Promise<TransactionEffects | null> {
    const kv = this.#kv;
    const op = kv.atomic()
      .check({ key: ["tx_done", digest], versionstamp: null })
      .delete(["tx_pending", digest]);
    const read = async <T>(key: Deno.KvKey) => {
      const entry = await kv.get<T>(key);
      op.check(entry);
      return entry.value;
    };
    const effects = await change({
      account: (id) => read<LedgerAccount>(["account", id]),
      accountIdOfOwner: (owner) => read<string>(["account_owner", owner]),
      isKeyRegistered: async (publicKey) => Boolean(await read(["delegate_key", publicKey])),
      putAccount(account) {
        op.set(["account", account.id], account).set(["account_owner", account.owner], account.id);
      },
      putKey(publicKey, accountId) {
        op.set(["delegate_key", publicKey], accountId);
      },
      deleteKey(publicKey) {
        op.delete(["delegate_key", publicKey]);
      },
    });
    op.set(["tx_done", digest], effects, { expireIn: keepMs }).sum(VERSION, 1n);
    return (await op.commit()).ok ? effects : null;
  }
}
