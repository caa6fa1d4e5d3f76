/**
 * Remembers which signed requests and nonces were already used. `claim` answers `true` the
 * first time a key is seen inside its time to live, `false` after that.
 *
 * {@link KvReplayGuard} keeps the record in process memory, where every claim is decided, and
 * makes each accepted claim durable in Deno KV before answering: claims that arrive together
 * are written in one atomic commit (a group commit), so the store is written once per batch
 * rather than once per request, and a request is answered only once its claim is on disk (a
 * SIGKILL loses no claim that was answered). After a restart the claims of the previous
 * process are still refused: every commit also writes the latest expiry it holds (the
 * horizon), and until that time a key not claimed in this process is looked up in KV before it
 * is accepted. A fresh data directory has no horizon and pays no look-up.
 */
import { SvcError } from "../errors.ts";
import { ClaimRecord, type ClaimRecordStats, fingerprintOf } from "./claim_record.ts";

/** Remembers the keys of used requests, so that each is accepted once. */
export interface ReplayGuard {
  /** `true` the first time `key` is claimed within `ttlMs`, `false` after that. */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

/** Settings of {@link KvReplayGuard.open}. */
export interface KvReplayGuardOptions {
  /** Unix milliseconds; `Date.now` by default. */
  now?: () => number;
  /** The width of the in-memory record's time buckets (default 60 s). */
  bucketMs?: number;
  /** Claims written in one commit at most (default 256, within Deno KV's limits). */
  maxBatch?: number;
  /**
   * How long to look up claims in KV after opening a store that holds some but no horizon
   * (written by an older version): the longest time to live of a claim (default 10 minutes).
   */
  legacyLookbackMs?: number;
}

const CLAIM = "replay";
/** The latest expiry of the claims in KV (Unix ms). */
const HORIZON = ["replay_horizon"];
/** The process that owns the record: its commits are refused once another one opens it. */
const OWNER = ["replay_owner"];

interface PendingClaim {
  key: string;
  expiresAt: number;
  resolve(accepted: boolean): void;
  reject(error: unknown): void;
}

function superseded(): SvcError {
  return new SvcError(
    "backend_unavailable",
    "Cannot accept signed requests: another relayer process opened this data directory's " +
      "replay record; run one relayer per data directory",
  );
}

function unavailable(cause: unknown): SvcError {
  return new SvcError(
    "backend_unavailable",
    "Cannot check whether this signed request was used before: the store failed; retry",
    { cause },
  );
}

/**
 * A replay guard whose record is in process memory and durable in Deno KV, written by group
 * commit (see the module comment). One relayer process owns the record of a store at a time:
 * opening it again (another process on the same data directory) makes this one refuse every
 * claim with 503, so two processes can never both accept a request.
 */
export class KvReplayGuard implements ReplayGuard {
  #kv: Deno.Kv;
  #now: () => number;
  #record: ClaimRecord;
  #maxBatch: number;
  #owner: string;
  /** Until then, a key this process has not claimed may have been claimed by the last one. */
  #lookbackUntil: number;
  /** The latest expiry written so far. */
  #horizon: number;
  #queue: PendingClaim[] = [];
  #flushing = false;
  #superseded = false;

  private constructor(
    kv: Deno.Kv,
    owner: string,
    horizon: number,
    lookbackUntil: number,
    options: KvReplayGuardOptions,
  ) {
    this.#kv = kv;
    this.#owner = owner;
    this.#horizon = horizon;
    this.#lookbackUntil = lookbackUntil;
    this.#now = options.now ?? Date.now;
    this.#record = new ClaimRecord(options.bucketMs);
    this.#maxBatch = options.maxBatch ?? 256;
  }

  /** Takes ownership of the record in `kv` and reads how long the last owner's claims live. */
  static async open(kv: Deno.Kv, options: KvReplayGuardOptions = {}): Promise<KvReplayGuard> {
    const owned = await kv.set(OWNER, crypto.randomUUID());
    const horizon = (await kv.get<number>(HORIZON)).value ?? 0;
    let lookbackUntil = horizon;
    if (horizon === 0) {
      // A store written before the horizon existed: its claims live at most one time to live.
      for await (const _ of kv.list({ prefix: [CLAIM] }, { limit: 1 })) {
        lookbackUntil = (options.now ?? Date.now)() + (options.legacyLookbackMs ?? 600_000);
      }
    }
    return new KvReplayGuard(kv, owned.versionstamp, horizon, lookbackUntil, options);
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const print = fingerprintOf(key);
    if (this.#record.has(print, now)) return Promise.resolve(false);
    // Recorded before anything is awaited: a concurrent claim of the same key is refused here.
    const expiresAt = now + ttlMs;
    this.#record.add(print, expiresAt);
    if (this.#superseded) return Promise.reject(superseded());
    if (now < this.#lookbackUntil) return this.#claimAfterLookUp(key, expiresAt);
    return this.#write(key, expiresAt);
  }

  /** What the in-memory record holds now. */
  stats(): ClaimRecordStats {
    return this.#record.stats(this.#now());
  }

  async #claimAfterLookUp(key: string, expiresAt: number): Promise<boolean> {
    let earlier: Deno.KvEntryMaybe<number>;
    try {
      earlier = await this.#kv.get<number>([CLAIM, key]);
    } catch (cause) {
      throw unavailable(cause);
    }
    // Expiry in KV is only the earliest deletion time, so the deadline is checked here too.
    if (earlier.value !== null && earlier.value > this.#now()) return false;
    return await this.#write(key, expiresAt);
  }

  #write(key: string, expiresAt: number): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ key, expiresAt, resolve, reject });
      if (!this.#flushing) this.#flush();
    });
  }

  /** Commits the waiting claims, a batch at a time, until none waits. */
  async #flush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#maxBatch);
        try {
          await this.#commit(batch);
          for (const claim of batch) claim.resolve(true);
        } catch (error) {
          for (const claim of batch) claim.reject(error);
        }
      }
    } finally {
      this.#flushing = false;
    }
  }

  async #commit(batch: PendingClaim[]): Promise<void> {
    if (this.#superseded) throw superseded();
    const now = this.#now();
    let horizon = this.#horizon;
    const op = this.#kv.atomic().check({ key: OWNER, versionstamp: this.#owner });
    for (const { key, expiresAt } of batch) {
      op.set([CLAIM, key], expiresAt, { expireIn: Math.max(1, expiresAt - now) });
      horizon = Math.max(horizon, expiresAt);
    }
    if (horizon !== this.#horizon) op.set(HORIZON, horizon);
    let committed: boolean;
    try {
      committed = (await op.commit()).ok;
    } catch (cause) {
      throw unavailable(cause);
    }
    if (!committed) {
      this.#superseded = true;
      throw superseded();
    }
    this.#horizon = horizon;
  }
}

/** A replay guard in process memory only (tests, and library users without a store). */
export class MemoryReplayGuard implements ReplayGuard {
  #record: ClaimRecord;
  #now: () => number;

  constructor(options: { now?: () => number; bucketMs?: number } = {}) {
    this.#record = new ClaimRecord(options.bucketMs);
    this.#now = options.now ?? Date.now;
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    const print = fingerprintOf(key);
    if (this.#record.has(print, now)) return Promise.resolve(false);
    this.#record.add(print, now + ttlMs);
    return Promise.resolve(true);
  }

  /** What the record holds now. */
  stats(): ClaimRecordStats {
    return this.#record.stats(this.#now());
  }
}
