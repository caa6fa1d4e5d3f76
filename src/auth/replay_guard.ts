/**
 * Remembers which signed requests and nonces were already used. `claim` answers `true` the
 * first time a key is seen inside its time to live, `false` after that. `StateReplayGuard` keeps
 * its record in the relayer's `StateStore`, `@svc/postgres` has one of its own, and
 * {@link MemoryReplayGuard} keeps its record in process memory only.
 */
import type { StateBatch, StateStore } from "../state/state_store.ts";
import { ClaimRecord, type ClaimRecordStats, fingerprintOf } from "./claim_record.ts";

/** Remembers the keys of used requests, so that each is accepted once. */
export interface ReplayGuard {
  /** `true` the first time `key` is claimed within `ttlMs`, `false` after that. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Decides a claim as `claim` does, but leaves its durable write to the caller: `false` when
   * `key` was used, else the {@link PendingClaim}, already refused to any later claim of `key`.
   * Optional: without it, callers claim.
   */
  reserve?(key: string, ttlMs: number): Promise<PendingClaim | false>;
}

/**
 * A claim decided but not yet durable (from {@link ReplayGuard.reserve}). Its request must make
 * no change before the claim is durable, unless the commit making that change carries the claim;
 * and it is answered only once `settle` has resolved.
 */
export interface PendingClaim {
  /** Makes the claim durable, with the claims committed meanwhile; later calls share that write. */
  settle(): Promise<void>;
  /**
   * The claim's write for a batch on `state` to carry, when the claim is kept in `state`: `add`
   * it to the batch before committing, and call `landed` once the batch has landed (then
   * `settle` writes nothing). `undefined` when the claim is kept elsewhere.
   */
  carriedBy?(state: StateStore): CarriedClaim | undefined;
}

/** A claim's write within another batch (see {@link PendingClaim.carriedBy}). */
export interface CarriedClaim {
  /** Adds the claim's write to `batch`. */
  add(batch: StateBatch): void;
  /** Tells the claim that a commit holding its write has landed. */
  landed(): void;
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
