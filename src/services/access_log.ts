/**
 * The owner's access log: one entry per namespace a memory request touched — when, which
 * operation, which key (address and label), the memory ids (for recall: the ids returned), the
 * client's address and the request id. Never a query or a memory's text.
 *
 * Entries are sealed for their owner (AES-256-GCM under a key HKDF derives from the relayer's
 * secret and the owner's address, bound to the entry's log and id) and stored under an opaque
 * per-owner tag and a time-ordered id (`access_log_store.ts`): the store learns neither the
 * operation, the key nor the namespace, only how an owner's entries are spaced in time.
 *
 * Writing is off the request path: `append` only queues the entry; a flush up to a tenth of a
 * second later (at once past 1,000 queued entries) seals what queued meanwhile and writes it in
 * one batch (group commit), so the store's writer — which the replay guard and the job queue
 * share in Deno KV — is taken at most ten times a second, not once a request. A flush seals its
 * entries in one run of the event loop, so flushes are kept small: a second's worth at a thousand
 * recalls a second held requests up for 10 ms or more, and kept recall's p99 at three times its
 * p50. Entries still queued when the process dies are lost; `close` writes them, and a read
 * writes them first. Entries older than the retention are pruned in the background.
 *
 * At most 10,000 entries are queued or being written. Past that, an appender waits for a flush
 * (backpressure; its promise resolves once its entries are queued); only while the store is
 * failing are its own entries past that bound dropped, never those queued before.
 *
 * @example
 * ```ts
 * const log = await AccessLog.open({ store: new MemoryAccessLogStore(), secret });
 * log.append([{ owner, op: "recall", key, namespace: "default", memoryIds: ids, client, requestId }]);
 * const { entries } = await log.query(owner, { op: "recall" });
 * await log.close();
 * ```
 */
import { LruMap } from "@svc/util/lru_map";
import { deriveAesKey, deriveHmacKey, hkdfMaster, openBytes, sealBytes } from "@svc/util/sealing";
import { type Logger, silentLogger } from "../log.ts";
import {
  type AccessEntry,
  type AccessEvent,
  type AccessLogPage,
  type AccessLogQuery,
  beforeOf,
  cursorBefore,
  idFloor,
} from "./access_entry.ts";
import {
  type AccessLogStore,
  MAX_SEALED_BYTES,
  type SealedAccessRecord,
} from "./access_log_store.ts";

export * from "./access_entry.ts";

export interface AccessLogOptions {
  store: AccessLogStore;
  /** The relayer's 32 secret bytes, from which the owners' keys are derived. */
  secret: Uint8Array<ArrayBuffer>;
  /** Entries older than this many days are pruned (default 90). */
  retentionDays?: number;
  /** How long an appended entry waits for others to be written with it (default 100 ms). */
  flushDelayMs?: number;
  /** Queued entries that start a flush at once (default 1,000). */
  flushEntries?: number;
  /**
   * Entries queued or being written at most (10,000). Past it an appender waits for a flush, or,
   * while the store is failing, its entries past it are dropped.
   */
  maxPending?: number;
  /**
   * How long an appender waits for a flush to make room (10 s): a store that stalls counts as
   * down, and the appender's entries past the room are dropped.
   */
  waitMs?: number;
  logger?: Logger;
  /** Unix milliseconds (default `Date.now`). */
  now?: () => number;
}

/** An entry lists at most this many memory ids; a request touching more adds several. */
export const MAX_IDS_PER_ENTRY = 1000;
/** Records a page reads at most before it answers with what it found, and a cursor. */
const SCAN_BUDGET = 5000;
const DAY_MS = 86_400_000;
const LOG_INFO = "svc-access-log-v1";

/** The body of a sealed record: the entry without its id, at Unix milliseconds. */
type Sealed = Omit<AccessEntry, "id" | "at"> & { at: number };

interface Pending {
  owner: string;
  id: string;
  body: Sealed;
}

/** The access log; see the module documentation. */
export class AccessLog {
  #store: AccessLogStore;
  #master: CryptoKey;
  #tagKey: CryptoKey;
  #keys = new LruMap<string, Promise<CryptoKey>>(1024);
  #tags = new LruMap<string, Promise<string>>(1024);
  #retentionMs: number;
  #delayMs: number;
  #flushEntries: number;
  #maxPending: number;
  #waitMs: number;
  #logger: Logger;
  #now: () => number;
  #pending: Pending[] = [];
  #dropped = 0;
  /** Entries of the flush under way. */
  #writing = 0;
  /** Whether the last write failed. */
  #down = false;
  /** Scheduled writes failed in a row (the store is tried again every second). */
  #failures = 0;
  #timer?: ReturnType<typeof setTimeout>;
  #timerDelay = 0;
  #pruner?: ReturnType<typeof setInterval>;
  #flushing?: Promise<void>;
  #closed = false;
  #lastMs = 0;
  #counter = 0;

  private constructor(options: AccessLogOptions, master: CryptoKey, tagKey: CryptoKey) {
    this.#store = options.store;
    this.#master = master;
    this.#tagKey = tagKey;
    this.#retentionMs = (options.retentionDays ?? 90) * DAY_MS;
    this.#delayMs = options.flushDelayMs ?? 100;
    this.#flushEntries = options.flushEntries ?? 1000;
    this.#maxPending = options.maxPending ?? 10_000;
    this.#waitMs = options.waitMs ?? 10_000;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
  }

  /** The log over `options.store`, keyed by `options.secret`. */
  static async open(options: AccessLogOptions): Promise<AccessLog> {
    const master = await hkdfMaster(options.secret);
    const tagKey = await deriveHmacKey(master, LOG_INFO, "owner tags");
    return new AccessLog(options, master, tagKey);
  }

  /** How long entries are kept, in milliseconds. */
  get retentionMs(): number {
    return this.#retentionMs;
  }

  /**
   * Queues entries; they are written within a second, with others. Resolves once they are all
   * queued: at once unless 10,000 are waiting (then after flushes), or dropped while the store is
   * failing. Never rejects.
   */
  async append(events: AccessEvent[]): Promise<void> {
    if (this.#closed) return;
    const entries = this.#entriesOf(events);
    let queued = 0;
    while (queued < entries.length && !this.#closed) {
      const room = this.#maxPending - this.#pending.length - this.#writing;
      if (room > 0) {
        this.#pending.push(...entries.slice(queued, queued + room));
        queued += room;
        this.#schedule();
      } else if (this.#down || !await this.#flushedWithin(this.#waitMs)) {
        break;
      }
    }
    this.#dropped += Math.max(0, entries.length - queued);
  }

  /** Whether a flush wrote the queue within `ms`. */
  async #flushedWithin(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
    try {
      return await Promise.race([this.flush().then(() => true, () => false), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The entries of `events`, each listing at most `MAX_IDS_PER_ENTRY` memory ids. */
  #entriesOf(events: AccessEvent[]): Pending[] {
    const entries: Pending[] = [];
    for (const event of events) {
      const at = event.at ?? this.#now();
      const ids = [...new Set(event.memoryIds)];
      for (let i = 0; i === 0 || i < ids.length; i += MAX_IDS_PER_ENTRY) {
        entries.push({
          owner: event.owner,
          id: this.#idAt(at),
          body: {
            at,
            op: event.op,
            key: { address: event.key.address, label: event.key.label },
            namespace: event.namespace,
            memory_ids: ids.slice(i, i + MAX_IDS_PER_ENTRY),
            client: event.client,
            request_id: event.requestId,
          },
        });
      }
    }
    return entries;
  }

  /** Writes every entry queued so far; rejects when the store refuses them (they stay queued). */
  async flush(): Promise<void> {
    while (this.#flushing) await this.#flushing.catch(() => {});
    if (this.#pending.length === 0) return;
    const batch = this.#pending.splice(0);
    this.#writing = batch.length;
    this.#flushing = this.#write(batch).then(() => {
      this.#down = false;
    }, (error) => {
      // Kept for the next flush: appenders left it room (`#writing`).
      this.#down = true;
      this.#pending.unshift(...batch);
      throw error;
    }).finally(() => {
      this.#writing = 0;
      this.#flushing = undefined;
    });
    await this.#flushing;
  }

  /**
   * A page of the owner's entries, newest first, that match `query` and whose namespace
   * `visible` allows (all by default). Reads what was appended so far. A page stops after
   * reading 5,000 entries; it then may hold fewer than `limit`, with a cursor to go on.
   */
  async query(
    owner: string,
    query: AccessLogQuery = {},
    visible: (namespace: string) => boolean = () => true,
  ): Promise<AccessLogPage> {
    await this.flush().catch((error) =>
      this.#logger.warn("cannot write the access log before reading it", { error })
    );
    const limit = query.limit ?? 50;
    const log = await this.#tagOf(owner);
    const key = await this.#keyOf(owner);
    const from = query.since === undefined ? undefined : idFloor(query.since);
    let to = query.until === undefined ? undefined : idFloor(query.until);
    if (query.cursor !== undefined) {
      const before = beforeOf(query.cursor);
      if (to === undefined || before < to) to = before;
    }
    // A window that ends before it starts (or a cursor past its start) holds nothing.
    if (from !== undefined && to !== undefined && to <= from) {
      return { entries: [], next_cursor: null };
    }
    const entries: AccessEntry[] = [];
    let scanned = 0;
    while (scanned < SCAN_BUDGET) {
      const size = Math.min(500, Math.max(50, 2 * (limit - entries.length)));
      const records = await this.#store.scan(log, { from, to }, size);
      for (const [i, record] of records.entries()) {
        scanned++;
        to = record.id;
        const entry = await this.#open(key, record);
        if (entry && this.#matches(entry, query) && visible(entry.namespace)) entries.push(entry);
        const more = i < records.length - 1 || records.length === size;
        if (entries.length === limit || scanned === SCAN_BUDGET) {
          return { entries, next_cursor: more ? cursorBefore(record.id) : null };
        }
      }
      if (records.length < size) return { entries, next_cursor: null };
    }
    return { entries, next_cursor: to === undefined ? null : cursorBefore(to) };
  }

  /** Deletes the entries older than the retention; resolves to how many. */
  async prune(): Promise<number> {
    await this.flush().catch(() => {});
    const pruned = await this.#store.prune(idFloor(this.#now() - this.#retentionMs));
    if (pruned > 0) this.#logger.info("access log entries past retention pruned", { pruned });
    return pruned;
  }

  /** Prunes now and every `intervalMs` until `close`. */
  schedulePrune(intervalMs: number): void {
    if (this.#closed || this.#pruner !== undefined) return;
    const prune = () =>
      this.prune().catch((error) => this.#logger.error("access log prune failed", { error }));
    prune();
    this.#pruner = setInterval(prune, intervalMs);
  }

  /** Stops pruning and writes what is queued; entries appended later are dropped. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#pruner);
    this.#timer = undefined;
    await this.flush().catch((error) =>
      this.#logger.error("access log entries lost at close", {
        error,
        entries: this.#pending.length,
      })
    );
  }

  #schedule(): void {
    if (this.#closed) return;
    const delay = this.#pending.length >= this.#flushEntries ? 0 : this.#delayMs;
    // Enough entries queued: a flush waiting for more starts now.
    if (this.#timer !== undefined && (delay > 0 || this.#timerDelay === 0)) return;
    clearTimeout(this.#timer);
    this.#timerDelay = delay;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.flush().then(() => {
        if (this.#failures > 0) {
          this.#logger.info("the access log is written again", { failures: this.#failures });
          this.#failures = 0;
        }
        if (this.#pending.length > 0) this.#schedule();
      }, (error) => {
        // Once per run of failures: an outage would log it every second.
        if (this.#failures++ === 0) {
          this.#logger.warn("cannot write the access log; trying again every second", { error });
        }
        if (!this.#closed) {
          this.#timerDelay = 0; // not cut short by more entries: the store needs the pause
          this.#timer = setTimeout(() => {
            this.#timer = undefined;
            this.#schedule();
          }, 1000);
        }
      });
    }, delay);
  }

  async #write(batch: Pending[]): Promise<void> {
    if (this.#dropped > 0) {
      this.#logger.warn("access log entries dropped: the store is down", {
        entries: this.#dropped,
      });
      this.#dropped = 0;
    }
    const records = await Promise.all(batch.map(async ({ owner, id, body }) => {
      const log = await this.#tagOf(owner);
      const plaintext = new TextEncoder().encode(JSON.stringify(body));
      const sealed = await sealBytes(await this.#keyOf(owner), plaintext, this.#aad(log, id));
      return { log, id, sealed };
    }));
    const fitting = records.filter((record) => record.sealed.byteLength <= MAX_SEALED_BYTES);
    if (fitting.length < records.length) {
      this.#logger.warn("access log entries too large to keep", {
        entries: records.length - fitting.length,
      });
    }
    await this.#store.append(fitting);
  }

  async #open(key: CryptoKey, record: SealedAccessRecord): Promise<AccessEntry | null> {
    try {
      const plaintext = await openBytes(key, record.sealed, this.#aad(record.log, record.id));
      const body: Sealed = JSON.parse(new TextDecoder().decode(plaintext));
      const { at, ...rest } = body;
      return { id: record.id, at: new Date(at).toISOString(), ...rest };
    } catch {
      this.#logger.warn("an access log entry does not open (altered, moved or re-keyed)", {
        id: record.id,
      });
      return null;
    }
  }

  #matches(entry: AccessEntry, query: AccessLogQuery): boolean {
    return (query.op === undefined || entry.op === query.op) &&
      (query.key === undefined || entry.key.address === query.key) &&
      (query.namespace === undefined || entry.namespace === query.namespace) &&
      (query.memory === undefined || entry.memory_ids.includes(query.memory));
  }

  #aad(log: string, id: string): Uint8Array<ArrayBuffer> {
    return new TextEncoder().encode(`${LOG_INFO}\n${log}\n${id}`);
  }

  #keyOf(owner: string): Promise<CryptoKey> {
    return this.#keys.getOrSet(owner, () => deriveAesKey(this.#master, LOG_INFO, `owner:${owner}`));
  }

  #tagOf(owner: string): Promise<string> {
    return this.#tags.getOrSet(
      owner,
      () =>
        crypto.subtle.sign("HMAC", this.#tagKey, new TextEncoder().encode(owner)).then(
          (mac) =>
            new Uint8Array(mac, 0, 16).toBase64({ alphabet: "base64url", omitPadding: true }),
        ),
    );
  }

  /**
   * A version 7 UUID of millisecond `ms`: ids of one millisecond count up (to 4,095), so they
   * sort in the order appended; the random tail keeps ids unique across relayers.
   */
  #idAt(ms: number): string {
    let counter = 0;
    if (ms > this.#lastMs) {
      this.#lastMs = ms;
      this.#counter = 0;
    } else if (ms === this.#lastMs) {
      counter = this.#counter = Math.min(this.#counter + 1, 0xfff);
    }
    const random = crypto.getRandomValues(new Uint8Array(8));
    random[0] = 0x80 | (random[0] & 0x3f);
    const time = Math.max(0, ms).toString(16).padStart(12, "0");
    const tail = random.toHex();
    return `${time.slice(0, 8)}-${time.slice(8)}-7${counter.toString(16).padStart(3, "0")}-` +
      `${tail.slice(0, 4)}-${tail.slice(4)}`;
  }
}
