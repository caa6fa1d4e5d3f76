/**
 * Remembers which signed requests and nonces were already used. `claim` answers `true` the
 * first time a key is seen inside its time to live, `false` after that.
 *
 * {@link StateReplayGuard} decides every claim in an in-memory record (`ClaimRecord`) and makes
 * each accepted claim durable in the relayer's `StateStore` before answering. Claims that arrive together are
 * written as one entry in one atomic commit (a group commit): the store is written once per
 * batch, not once per request, and a request is answered only once its claim is on disk, so a
 * SIGKILL loses no claim that was answered. On opening, the batches still alive are read back
 * into the record: the claims of the previous process stay refused after a restart, with no
 * store read per request (and a fresh data directory reads nothing).
 *
 * Layout: `["replay_claims", until, owner, n]` → `{ until, prints }`, the 8-byte fingerprints
 * of one batch's claims, which all expire by `until` (Unix ms); `["replay_owner"]` → the id of
 * the process that owns the record. `["replay", key]` → expiry is the layout of earlier
 * versions, still looked up for one time to live after an upgrade.
 */
import { writeTogether } from "@svc/util/write_together";
import { SvcError } from "../errors.ts";
import { STATE_LIMITS, type StateBatch, type StateStore } from "../state/state_store.ts";
import {
  ClaimRecord,
  type ClaimRecordStats,
  type Fingerprint,
  fingerprintOf,
} from "./claim_record.ts";
import type { PendingClaim, ReplayGuard } from "./replay_guard.ts";

/** Settings of {@link StateReplayGuard.open}. */
export interface StateReplayGuardOptions {
  /** Unix milliseconds; `Date.now` by default. */
  now?: () => number;
  /** The width of the in-memory record's time buckets (default 60 s). */
  bucketMs?: number;
  /** Claims written in one commit at most (default 1024: an 8 KiB entry). */
  maxBatch?: number;
  /**
   * How long to look claims up in the layout of earlier versions after an upgrade, when the
   * store holds some: the longest time to live of a claim (default 10 minutes).
   */
  legacyLookbackMs?: number;
}

const BATCH = "replay_claims";
const OWNER = ["replay_owner"];
const LEGACY = "replay";

/** The stored value of a batch. */
interface StoredBatch {
  /** Every claim of the batch expires by then (Unix ms). */
  until: number;
  /** The claims' fingerprints, 8 bytes each (high half first, big-endian). */
  prints: Uint8Array;
}

/** A claim waiting for its commit. */
interface QueuedClaim {
  print: Fingerprint;
  expiresAt: number;
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
    "Cannot check whether this signed request was used before: the store failed; sign it " +
      "again with a fresh nonce and retry",
    { cause },
  );
}

/**
 * A replay guard whose record is in process memory and durable in a `StateStore`, written by group
 * commit (see the module comment). One process owns the record of a store at a time: opening
 * it again (another relayer on the same data directory) makes this one refuse every claim with
 * 503, so two processes never both accept a request.
 */
export class StateReplayGuard implements ReplayGuard {
  #state: StateStore;
  #now: () => number;
  #record: ClaimRecord;
  /** The claims made while a commit is in flight, in the next one. */
  #write: (claim: QueuedClaim) => Promise<void>;
  #owner: string;
  #ownerVersion: string;
  #batches = 0;
  /** Until then, keys are also looked up in the layout of earlier versions. */
  #legacyUntil: number;
  #superseded = false;

  private constructor(
    state: StateStore,
    owner: { id: string; version: string },
    record: ClaimRecord,
    legacyUntil: number,
    options: StateReplayGuardOptions,
  ) {
    this.#state = state;
    this.#owner = owner.id;
    this.#ownerVersion = owner.version;
    this.#record = record;
    this.#legacyUntil = legacyUntil;
    this.#now = options.now ?? Date.now;
    // 8 bytes a claim, under a value's limit with room for the rest of the entry.
    const most = Math.min(options.maxBatch ?? 1024, STATE_LIMITS.valueBytes / 8 - 100);
    this.#write = writeTogether((claims) => this.#commit(claims), { limits: [most] });
  }

  /** Takes ownership of the record in `state` and reads back the claims still alive in it. */
  static async open(
    state: StateStore,
    options: StateReplayGuardOptions = {},
  ): Promise<StateReplayGuard> {
    const now = (options.now ?? Date.now)();
    const id = crypto.randomUUID();
    // Taken first: a batch of the previous owner committed after this is refused, so every
    // batch it answered for is in the store when it is read below.
    await state.set(OWNER, id);
    const owner = await state.get<string>(OWNER);
    // Another process took it meanwhile.
    if (owner?.value !== id) throw superseded();
    const { version } = owner;
    const record = new ClaimRecord(options.bucketMs);
    for await (const { print, expiresAt } of liveClaims(state, now, { legacy: false })) {
      record.add(print, expiresAt);
    }
    let legacyUntil = 0;
    for await (const _ of state.list({ prefix: [LEGACY] }, { limit: 1 })) {
      legacyUntil = now + (options.legacyLookbackMs ?? 600_000);
    }
    return new StateReplayGuard(state, { id, version }, record, legacyUntil, options);
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const pending = await this.reserve(key, ttlMs);
    if (pending) await pending.settle();
    return pending !== false;
  }

  /**
   * As `claim`, but the claim is written by its {@link PendingClaim}: alone with the group
   * commit (`settle`), or within a batch on this guard's store (`carriedBy`), such as the one
   * that accepts a remember request's jobs, so that the request costs one commit, not two.
   */
  async reserve(key: string, ttlMs: number): Promise<PendingClaim | false> {
    const now = this.#now();
    const print = fingerprintOf(key);
    if (this.#record.has(print, now)) return false;
    // Recorded before anything is awaited: a concurrent claim of the same key is refused here.
    const claim = { print, expiresAt: now + ttlMs };
    this.#record.add(print, claim.expiresAt);
    if (this.#superseded) throw superseded();
    if (now < this.#legacyUntil && !(await this.#unusedInLegacy(key))) return false;
    let settled: Promise<void> | undefined;
    let landed = false;
    return {
      settle: () => {
        if (!settled) {
          settled = landed ? Promise.resolve() : this.#write(claim);
          // Awaited by the request; a failure before then is not an unhandled rejection.
          settled.catch(() => {});
        }
        return settled;
      },
      carriedBy: (state) =>
        state === this.#state
          ? { add: (batch) => this.#addBatch(batch, [claim]), landed: () => landed = true }
          : undefined,
    };
  }

  /** What the in-memory record holds now. */
  stats(): ClaimRecordStats {
    return this.#record.stats(this.#now());
  }

  /** Whether `key` is unused in the layout of earlier versions. */
  async #unusedInLegacy(key: string): Promise<boolean> {
    let earlier: number | undefined;
    try {
      earlier = (await this.#state.get<number>([LEGACY, key]))?.value;
    } catch (cause) {
      throw unavailable(cause);
    }
    // Expiry is only the earliest deletion time, so the deadline is checked here too.
    return earlier === undefined || earlier <= this.#now();
  }

  /** Adds the write of claims to `op`, which lands only while this process owns the record. */
  #addBatch(op: StateBatch, batch: { print: Fingerprint; expiresAt: number }[]) {
    const prints = new Uint8Array(batch.length * 8);
    const view = new DataView(prints.buffer);
    let until = 0;
    batch.forEach(({ print, expiresAt }, i) => {
      view.setUint32(i * 8, print.hi);
      view.setUint32(i * 8 + 4, print.lo);
      until = Math.max(until, expiresAt);
    });
    const value: StoredBatch = { until, prints };
    op.check(OWNER, this.#ownerVersion)
      .set([BATCH, until, this.#owner, this.#batches++], value, {
        expireIn: Math.max(1, until - this.#now()),
      });
  }

  async #commit(batch: QueuedClaim[]): Promise<void> {
    let committed = false;
    try {
      if (this.#superseded) throw superseded();
      const op = this.#state.batch();
      this.#addBatch(op, batch);
      committed = await op.commit();
    } catch (cause) {
      if (cause instanceof SvcError) throw cause;
      throw unavailable(cause);
    }
    if (!committed) {
      this.#superseded = true;
      throw superseded();
    }
  }
}

/**
 * The claims of `state` still alive at `now` (Unix ms), with their expiry: those of the batches
 * and, unless `legacy` is `false`, those of the layout of earlier versions (for copying the
 * claims elsewhere).
 */
export async function* liveClaims(
  state: StateStore,
  now: number,
  { legacy = true } = {},
): AsyncIterable<{ print: Fingerprint; expiresAt: number }> {
  const batches = state.list<StoredBatch>({ prefix: [BATCH], start: [BATCH, now] });
  for await (const { value } of batches) {
    for (let i = 0; i + 8 <= value.prints.length; i += 8) {
      yield { print: fingerprintFromBytes(value.prints, i), expiresAt: value.until };
    }
  }
  if (!legacy) return;
  for await (const { key, value } of state.list<number>({ prefix: [LEGACY] })) {
    if (typeof value === "number" && value > now) {
      yield { print: fingerprintOf(key[1] as string), expiresAt: value };
    }
  }
}

function fingerprintFromBytes(bytes: Uint8Array, at: number): Fingerprint {
  const view = new DataView(bytes.buffer, bytes.byteOffset + at, 8);
  return { hi: view.getUint32(0), lo: view.getUint32(4) };
}
