/**
 * Where the access log keeps its entries: sealed records in per-owner logs, ordered by time.
 * A store sees no owner address, operation, key or namespace: a record's log is an opaque
 * per-owner tag, its id a time-ordered UUID, its body AES-GCM ciphertext. The Deno KV store is
 * `@svc/denokv`'s; `MemoryAccessLogStore` keeps them in memory; `accessLogStoreSuite` (in the
 * testing module) checks any other, PostgreSQL for instance:
 *
 * ```sql
 * CREATE TABLE access_log (log text, id text, sealed bytea, PRIMARY KEY (log, id));
 * -- append: INSERT … (one statement per batch); prune: DELETE … WHERE id < $1;
 * -- scan:   SELECT … WHERE log = $1 AND id >= $2 AND id < $3 ORDER BY id DESC LIMIT $4
 * ```
 */

/** One sealed entry of an owner's access log. */
export interface SealedAccessRecord {
  /** The owner's log: an opaque tag (a keyed hash of the owner's address). */
  log: string;
  /** Time-ordered (a version 7 UUID of the entry's time), unique within its log. */
  id: string;
  /** The entry, sealed for the owner; at most `MAX_SEALED_BYTES`. */
  sealed: Uint8Array<ArrayBuffer>;
}

/** The largest sealed record a store must keep (Deno KV's value limit, with room to spare). */
export const MAX_SEALED_BYTES = 60_000;

/** Which records of a log a scan returns: `from <= id < to`, either bound optional. */
export interface AccessRecordRange {
  /** Records whose id sorts at or after this one. */
  from?: string;
  /** Records whose id sorts before this one. */
  to?: string;
}

/** Storage of sealed access-log records; see the module documentation. */
export interface AccessLogStore {
  /** Stores records (new ids); a store that can writes them in one transaction. */
  append(records: SealedAccessRecord[]): Promise<void>;
  /** The records of `log` in `range`, newest (greatest id) first, at most `limit`. */
  scan(log: string, range: AccessRecordRange, limit: number): Promise<SealedAccessRecord[]>;
  /** Deletes the records of every log whose id sorts before `before`; resolves to how many. */
  prune(before: string): Promise<number>;
}

/** The access log in memory: for tests, and the reference of the store's behaviour. */
export class MemoryAccessLogStore implements AccessLogStore {
  #logs = new Map<string, Map<string, Uint8Array<ArrayBuffer>>>();

  append(records: SealedAccessRecord[]): Promise<void> {
    for (const { log, id, sealed } of records) {
      const entries = this.#logs.get(log) ?? new Map();
      this.#logs.set(log, entries);
      entries.set(id, sealed.slice());
    }
    return Promise.resolve();
  }

  scan(log: string, range: AccessRecordRange, limit: number): Promise<SealedAccessRecord[]> {
    const ids = [...this.#logs.get(log)?.keys() ?? []]
      .filter((id) =>
        (range.from === undefined || id >= range.from) && (range.to === undefined || id < range.to)
      )
      .sort().reverse().slice(0, limit);
    const entries = this.#logs.get(log);
    return Promise.resolve(ids.map((id) => ({ log, id, sealed: entries!.get(id)!.slice() })));
  }

  prune(before: string): Promise<number> {
    let pruned = 0;
    for (const entries of this.#logs.values()) {
      for (const id of entries.keys()) {
        if (id < before && entries.delete(id)) pruned++;
      }
    }
    return Promise.resolve(pruned);
  }
}
