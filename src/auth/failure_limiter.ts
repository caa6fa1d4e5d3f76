/**
 * Limits failed authentications per client address. Past `limit` failures inside a minute, the
 * address's signed requests are refused (429, before any look-up, body read or verification)
 * until the oldest failure leaves the window; successful requests never count. A key that
 * authenticated from the address in the last ten minutes is still let through, so a client
 * sharing its address (a NAT, a proxy) with a failing one keeps working. The key a request
 * names is only a claim until its signature is verified, so a key let through has a budget of
 * its own at the address (the same `limit` a minute): failures under its name past it refuse
 * that key there too. Naming a known key thus lifts the address's limit only as far as that
 * key's own budget (and someone at the address who knows the key can spend it).
 *
 * @example
 * ```ts
 * const limiter = new AuthFailureLimiter({ limit: 30 });
 * const wait = limiter.refusal(address, publicKeyHeader); // seconds to wait, or undefined
 * // ... then limiter.failed(address, publicKeyHeader) or limiter.succeeded(address, publicKey)
 * ```
 */
import { RateLimiter } from "../http/rate_limiter.ts";

/** The settings of an {@link AuthFailureLimiter}. */
export interface AuthFailureLimiterOptions {
  /** Failed authentications per address per minute before its requests are refused (30). */
  limit?: number;
  /** How long a key that authenticated from an address stays let through (10 minutes). */
  rememberMs?: number;
  /** Unix milliseconds; `Date.now` unless a test sets the clock. */
  now?: () => number;
}

const KEYS_PER_ADDRESS = 32;
const MAX_ADDRESSES = 10_000;

/** Counts failed authentications per client address (see the module comment). */
export class AuthFailureLimiter {
  #failures: RateLimiter;
  /** Failures under the name of a key let through, by address and key. */
  #keyFailures: RateLimiter;
  #rememberMs: number;
  #now: () => number;
  /** Address → keys that authenticated from it → until when they are let through. */
  #trusted = new Map<string, Map<string, number>>();

  constructor(options: AuthFailureLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#failures = new RateLimiter(options.limit ?? 30, 60_000, this.#now);
    this.#keyFailures = new RateLimiter(options.limit ?? 30, 60_000, this.#now);
    this.#rememberMs = options.rememberMs ?? 10 * 60_000;
  }

  /**
   * `undefined` when a request from `address` signed by `publicKey` (as sent, any case) may be
   * checked; else the seconds it should wait.
   */
  refusal(address: string, publicKey: string | null): number | undefined {
    const decision = this.#failures.peek(address);
    if (decision.ok) return undefined;
    if (!this.#letThrough(address, publicKey)) return decision.retryAfterSeconds;
    const own = this.#keyFailures.peek(`${address} ${publicKey!.toLowerCase()}`);
    return own.ok ? undefined : own.retryAfterSeconds;
  }

  /** Counts a failed authentication from `address` (naming `publicKey`, when it did). */
  failed(address: string, publicKey: string | null = null): void {
    this.#failures.take(address);
    if (this.#letThrough(address, publicKey)) {
      this.#keyFailures.take(`${address} ${publicKey!.toLowerCase()}`);
    }
  }

  /** Whether `publicKey` (as sent, any case) authenticated from `address` lately. */
  #letThrough(address: string, publicKey: string | null): boolean {
    const until = publicKey ? this.#trusted.get(address)?.get(publicKey.toLowerCase()) : undefined;
    return until !== undefined && until > this.#now();
  }

  /** Remembers that `publicKey` (lowercase hex) authenticated from `address`. */
  succeeded(address: string, publicKey: string): void {
    const now = this.#now();
    const keys = this.#trusted.get(address) ?? new Map<string, number>();
    // Re-inserted, so the map's order is the order of last success.
    this.#trusted.delete(address);
    if (this.#trusted.size >= MAX_ADDRESSES) this.#prune(now);
    this.#trusted.set(address, keys);
    keys.delete(publicKey);
    if (keys.size >= KEYS_PER_ADDRESS) keys.delete(keys.keys().next().value!);
    keys.set(publicKey, now + this.#rememberMs);
  }

  /** Forgets expired keys; past the bound, the addresses remembered longest ago. */
  #prune(now: number): void {
    for (const [address, keys] of this.#trusted) {
      for (const [key, until] of keys) if (until <= now) keys.delete(key);
      if (keys.size === 0) this.#trusted.delete(address);
    }
    while (this.#trusted.size >= MAX_ADDRESSES) {
      this.#trusted.delete(this.#trusted.keys().next().value!);
    }
  }
}
