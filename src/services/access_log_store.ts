/**
 * Where the access log keeps its entries: sealed records in per-owner logs, ordered by time.
 * A store sees no owner address, operation, key or namespace: a record's log is an opaque
 * per-owner tag, its id a time-ordered UUID, its body AES-GCM ciphertext. Besides the Deno KV
 * store (`KvAccessLogStore`) there is an in-memory twin (`MemoryAccessLogStore`), and
 * `accessLogStoreSuite` (in the testing module) checks any other, PostgreSQL for instance:
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

/** Records a Deno KV commit takes at most, and bytes (its limit is 800 KiB). */
const PER_COMMIT = 200;
const BYTES_PER_COMMIT = 400_000;

/**
 * The access log in Deno KV. Keys: `["access_log", log, id]` → the sealed bytes;
 * `["access_log_logs", log]` → `true`, the logs that prune walks.
 */
export class KvAccessLogStore implements AccessLogStore {
  #kv: Deno.Kv;
  /** The logs known to be listed in `access_log_logs` already. */
  #listed = new Set<string>();

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async append(records: SealedAccessRecord[]): Promise<void> {
    let op = this.#kv.atomic();
    let count = 0, bytes = 0;
    const commit = async () => {
      if (count === 0) return;
      const result = await op.commit();
      if (!result.ok) throw new Error("Cannot write the access log: a commit failed");
      op = this.#kv.atomic();
      count = bytes = 0;
    };
    const fresh = new Set(records.map((r) => r.log).filter((log) => !this.#listed.has(log)));
    for (const log of fresh) {
      op.set(["access_log_logs", log], true);
      count++;
    }
    for (const { log, id, sealed } of records) {
      if (count >= PER_COMMIT || bytes + sealed.byteLength > BYTES_PER_COMMIT) await commit();
      op.set(["access_log", log, id], sealed);
      count++;
      bytes += sealed.byteLength;
    }
    await commit();
    for (const log of fresh) this.#listed.add(log);
  }

  async scan(
    log: string,
    range: AccessRecordRange,
    limit: number,
  ): Promise<SealedAccessRecord[]> {
    const prefix = ["access_log", log];
    const start = range.from === undefined ? undefined : [...prefix, range.from];
    const end = range.to === undefined ? undefined : [...prefix, range.to];
    const selector = start && end
      ? { start, end }
      : start
      ? { prefix, start }
      : end
      ? { prefix, end }
      : { prefix };
    const records: SealedAccessRecord[] = [];
    const entries = this.#kv.list<Uint8Array<ArrayBuffer>>(selector, {
      reverse: true,
      limit,
      batchSize: Math.min(limit, 500),
    });
    for await (const { key, value } of entries) {
      records.push({ log, id: key[2] as string, sealed: value });
    }
    return records;
  }

  /** Every record of every log, by log then id (for copying the log elsewhere). */
  async *entries(): AsyncIterable<SealedAccessRecord> {
    const entries = this.#kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["access_log"] });
    for await (const { key, value } of entries) {
      yield { log: key[1] as string, id: key[2] as string, sealed: value };
    }
  }

  async prune(before: string): Promise<number> {
    let pruned = 0;
    for await (const { key } of this.#kv.list({ prefix: ["access_log_logs"] })) {
      const log = key[1] as string;
      const old = this.#kv.list({ start: ["access_log", log], end: ["access_log", log, before] });
      let op = this.#kv.atomic();
      let count = 0;
      for await (const entry of old) {
        op.delete(entry.key);
        if (++count === PER_COMMIT) {
          await op.commit();
          pruned += count;
          op = this.#kv.atomic();
          count = 0;
        }
      }
      if (count > 0) await op.commit();
      pruned += count;
    }
    return pruned;
  }
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
