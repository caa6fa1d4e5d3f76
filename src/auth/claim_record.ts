/**
 * The in-memory record of the replay guard: which request keys were claimed, until when. Each
 * key is kept as a 64-bit fingerprint (the first 8 bytes of its SHA-256) in an open-addressing
 * table of `Uint32Array` pairs, one table per time bucket of claims that expire together; a
 * bucket is dropped whole once every claim in it has expired, so nothing is ever scanned claim
 * by claim and the record holds no JavaScript object per claim.
 *
 * A claim counts until the end of its bucket: up to `bucketMs` past its own expiry, never less.
 *
 * @example
 * ```ts
 * const record = new ClaimRecord();
 * const print = fingerprintOf("nonce:ab…:0f1e…");
 * record.has(print, Date.now()); // false
 * record.add(print, Date.now() + 600_000);
 * record.has(print, Date.now()); // true
 * ```
 */
import { createHash } from "node:crypto";

/** A request key's 64-bit fingerprint, as two 32-bit halves. */
export interface Fingerprint {
  /** The first 4 bytes, big-endian. */
  hi: number;
  /** The next 4 bytes, big-endian (never 0 when `hi` is 0). */
  lo: number;
}

/**
 * The fingerprint of a request key: the first 8 bytes of its SHA-256. Two keys share one with
 * probability 2⁻⁶⁴, and nobody can make them collide on purpose.
 */
export function fingerprintOf(key: string): Fingerprint {
  const digest = createHash("sha256").update(key).digest();
  const hi = (digest[0] << 24 | digest[1] << 16 | digest[2] << 8 | digest[3]) >>> 0;
  const lo = (digest[4] << 24 | digest[5] << 16 | digest[6] << 8 | digest[7]) >>> 0;
  // (0, 0) marks an empty slot.
  return { hi, lo: hi === 0 && lo === 0 ? 1 : lo };
}

const FIRST_SLOTS = 1024;

/** A set of fingerprints: linear probing over `[hi, lo]` pairs, doubled past half full. */
class FingerprintTable {
  #slots = new Uint32Array(2 * FIRST_SLOTS);
  #count = 0;

  get size(): number {
    return this.#count;
  }

  get bytes(): number {
    return this.#slots.byteLength;
  }

  has({ hi, lo }: Fingerprint): boolean {
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    for (let i = lo & mask;; i = (i + 1) & mask) {
      const h = slots[2 * i], l = slots[2 * i + 1];
      if (h === hi && l === lo) return true;
      if (h === 0 && l === 0) return false;
    }
  }

  /** Adds a fingerprint the table does not hold. */
  add(print: Fingerprint): void {
    if ((this.#count + 1) * 2 > this.#slots.length / 2) this.#grow();
    this.#insert(this.#slots, print.hi, print.lo);
    this.#count++;
  }

  #insert(slots: Uint32Array, hi: number, lo: number): void {
    const mask = slots.length / 2 - 1;
    let i = lo & mask;
    while (slots[2 * i] !== 0 || slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    slots[2 * i] = hi;
    slots[2 * i + 1] = lo;
  }

  #grow(): void {
    const old = this.#slots;
    const slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) {
      if (old[i] !== 0 || old[i + 1] !== 0) this.#insert(slots, old[i], old[i + 1]);
    }
    this.#slots = slots;
  }
}

/** How much a {@link ClaimRecord} holds. */
export interface ClaimRecordStats {
  /** Claims held (expired ones included until their bucket is dropped). */
  claims: number;
  /** Bytes of the fingerprint tables. */
  bytes: number;
  /** Live time buckets. */
  buckets: number;
}

/** Claimed fingerprints in time buckets of their expiry (see the module comment). */
export class ClaimRecord {
  /** The width of the time buckets, in milliseconds. */
  readonly bucketMs: number;
  /** Bucket end (Unix ms) → the fingerprints of the claims expiring in that bucket. */
  #buckets = new Map<number, FingerprintTable>();
  #earliestEnd = Infinity;

  /** `bucketMs`: the width of a time bucket (default 60 s). */
  constructor(bucketMs = 60_000) {
    if (!(bucketMs > 0)) throw new RangeError("Cannot make a claim record: bucketMs must be > 0");
    this.bucketMs = bucketMs;
  }

  /** Whether `print` is claimed at `now`. */
  has(print: Fingerprint, now: number): boolean {
    this.#drop(now);
    for (const table of this.#buckets.values()) if (table.has(print)) return true;
    return false;
  }

  /** Records `print` as claimed until `expiresAt` (Unix ms); call after `has` said `false`. */
  add(print: Fingerprint, expiresAt: number): void {
    const end = Math.ceil(expiresAt / this.bucketMs) * this.bucketMs;
    let table = this.#buckets.get(end);
    if (!table) {
      table = new FingerprintTable();
      this.#buckets.set(end, table);
      this.#earliestEnd = Math.min(this.#earliestEnd, end);
    }
    table.add(print);
  }

  /** What the record holds now. */
  stats(now: number): ClaimRecordStats {
    this.#drop(now);
    let claims = 0, bytes = 0;
    for (const table of this.#buckets.values()) {
      claims += table.size;
      bytes += table.bytes;
    }
    return { claims, bytes, buckets: this.#buckets.size };
  }

  /** Drops the buckets whose claims have all expired (at most once per bucket end). */
  #drop(now: number): void {
    if (now < this.#earliestEnd) return;
    this.#earliestEnd = Infinity;
    for (const [end, _] of this.#buckets) {
      if (end <= now) this.#buckets.delete(end);
      else this.#earliestEnd = Math.min(this.#earliestEnd, end);
    }
  }
}
