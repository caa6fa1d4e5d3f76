/**
 * The local ledger's storage in Deno KV (one machine; the relayer, the sidecar and the CLI may
 * open the same file): a `StateLedgerStore` over the file, its entries as they are.
 *
 * Opened from the file's path (`open`), the store also asks SQLite itself whether anything
 * committed to the file since the version was last read (a few microseconds), and reads the
 * version from Deno KV only then: the relayer asks for the version on every request.
 */
import { DatabaseSync } from "node:sqlite";
import { KvStateStore } from "@svc/denokv";
import { retryWhileLocked } from "@svc/util/kv_locked";
import { StateLedgerStore } from "./state_store.ts";
import type { LedgerChange, TransactionEffects } from "./store.ts";

/** Tries of a change the file's write lock refused (another process was writing). */
const LOCKED_TRIES = 20;

/** The ledger's storage in a Deno KV database; see the module documentation. */
export class KvLedgerStore extends StateLedgerStore {
  #close: () => void;

  /** The ledger in `kv`, its version read on every call (see `open` for the file of a path). */
  constructor(kv: Deno.Kv, commits?: () => unknown, close: () => void = () => {}) {
    super(new KvStateStore(kv), { commits });
    this.#close = close;
  }

  /**
   * The ledger in the Deno KV file at `path`, its version read only after a commit to the file
   * (SQLite's `data_version` on a read-only connection of the store's own, which counts the
   * commits of every other connection: the CLI's, the sidecar's, this process's Deno KV).
   * `close` closes both.
   */
  static async open(path: string): Promise<KvLedgerStore> {
    const kv = await Deno.openKv(path);
    let sqlite: DatabaseSync;
    try {
      sqlite = new DatabaseSync(path, { readOnly: true });
    } catch (error) {
      kv.close();
      throw error;
    }
    const commits = sqlite.prepare("PRAGMA data_version");
    const count = () => {
      try {
        return commits.get()?.data_version;
      } catch {
        return undefined; // then the version is read, which is always right
      }
    };
    return new KvLedgerStore(kv, count, () => {
      try {
        sqlite.close();
      } finally {
        kv.close();
      }
    });
  }

  /** Closes what `open` opened (a store made from a handle leaves it open). */
  close(): void {
    this.#close();
  }

  /** A change met by another process's write lock on the file is read and tried again. */
  override apply(
    digest: string,
    change: (view: LedgerChange) => Promise<TransactionEffects>,
    keepMs: number,
  ): Promise<TransactionEffects | null> {
    return retryWhileLocked(() => super.apply(digest, change, keepMs), LOCKED_TRIES);
  }
}
