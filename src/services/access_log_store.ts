/**
 * Where the access log keeps its entries: sealed records in per-owner logs, ordered by time.
 * A store sees no owner address, operation, key or namespace: a record's log is an opaque
 * per-owner tag, its id a time-ordered UUID, its body AES-GCM ciphertext. `StateAccessLogStore`
 * keeps them in the relayer's `StateStore`; `accessLogStoreSuite` (in the testing module) checks
 * any other, PostgreSQL for instance:
 *
 * ```sql
 * CREATE TABLE access_log (log text, id text, sealed bytea, PRIMARY KEY (log, id));
 * -- append: INSERT … (one statement per batch); prune: DELETE … WHERE id < $1;
 * -- scan:   SELECT … WHERE log = $1 AND id >= $2 AND id < $3 ORDER BY id DESC LIMIT $4
 * ```
 */
import { STATE_LIMITS, type StateStore, writeInBatches } from "../state/state_store.ts";
import { MemoryStateStore } from "../state/memory_state_store.ts";

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

const RECORDS = "access_log";
/** The logs that hold records, for `prune` to walk. */
const LOGS = "access_log_logs";

/**
 * The access log in the relayer's `StateStore`. Keys: `["access_log", log, id]` → the sealed
 * bytes; `["access_log_logs", log]` → `true`, the logs that prune walks.
 */
export class StateAccessLogStore implements AccessLogStore {
  readonly #state: StateStore;
  /** The logs known to be listed in `access_log_logs` already. */
  readonly #listed = new Set<string>();

  /** The store in `state`. */
  constructor(state: StateStore) {
    this.#state = state;
  }

  /** Stores records (new ids), in as few batches as the state's limits allow. */
  async append(records: SealedAccessRecord[]): Promise<void> {
    const fresh = new Set(records.map((r) => r.log).filter((log) => !this.#listed.has(log)));
    const writes = [
      ...[...fresh].map((log) => ({ key: [LOGS, log], value: true as unknown, bytes: 0 })),
      ...records.map(({ log, id, sealed }) => ({
        key: [RECORDS, log, id],
        value: sealed as unknown,
        bytes: sealed.byteLength,
      })),
    ];
    await writeInBatches(
      this.#state,
      writes,
      (batch, { key, value }) => batch.set(key, value),
      "Cannot write the access log: a commit failed",
      { writesPerItem: 1, bytes: ({ bytes }) => bytes },
    );
    for (const log of fresh) this.#listed.add(log);
  }

  /** The records of `log` in `range`, newest first, at most `limit`. */
  async scan(log: string, range: AccessRecordRange, limit: number): Promise<SealedAccessRecord[]> {
    const prefix = [RECORDS, log];
    const start = range.from === undefined ? undefined : [...prefix, range.from];
    const end = range.to === undefined ? undefined : [...prefix, range.to];
    const selector = start && end ? { start, end } : start ? { prefix, start } : { prefix, end };
    const records: SealedAccessRecord[] = [];
    const entries = this.#state.list<Uint8Array<ArrayBuffer>>(selector, { reverse: true, limit });
    for await (const { key, value } of entries) {
      records.push({ log, id: key[2] as string, sealed: value });
    }
    return records;
  }

  /** Deletes the records before `before`, a batch at a time; a record another deletes first is not counted. */
  async prune(before: string): Promise<number> {
    let pruned = 0;
    for await (const { key } of this.#state.list({ prefix: [LOGS] })) {
      const prefix = [RECORDS, key[1]];
      const selector = { prefix, end: [...prefix, before] };
      for (;;) {
        const old = await Array.fromAsync(
          this.#state.list(selector, { limit: STATE_LIMITS.batchChecks }),
        );
        if (old.length === 0) break;
        const batch = this.#state.batch();
        for (const entry of old) batch.check(entry.key, entry.version).delete(entry.key);
        if (await batch.commit()) pruned += old.length;
      }
    }
    return pruned;
  }
}

/** The access log in memory: for tests. */
export class MemoryAccessLogStore extends StateAccessLogStore {
  constructor() {
    super(new MemoryStateStore());
  }
}
