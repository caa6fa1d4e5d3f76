/**
 * Limits failed authentications per client address, without letting anyone lock a working key
 * out. Past `limit` failures inside a minute, the address's requests are refused (429, before any
 * look-up, body read or verification) until the oldest failure leaves the window, except those
 * naming a key that authenticated in the last ten minutes, from any address, with no account hint
 * or the account it authenticated for: such a request is always checked (its look-up is the one
 * cached then). A broken client or forged requests naming someone's key thus never stop that key;
 * they stop only keys that have not signed in lately, at their own address.
 *
 * What counts as a failure is the caller's decision: the relayer counts only refusals that cost
 * work (a key looked up and not found, a signature checked and wrong), and refuses requests only
 * where that work is costly (a directory on a network).
 *
 * @example
 * ```ts
 * const limiter = new AuthFailureLimiter({ limit: 30 });
 * const wait = limiter.refusal(address, publicKeyHeader); // seconds to wait, or undefined
 * // ... then limiter.failed(address) or limiter.succeeded(publicKey, accountId)
 * ```
 */
import { RateLimiter } from "../rate_limiter.ts";
import { LruMap } from "@svc/util/lru_map";

/** The settings of an {@link AuthFailureLimiter}. */
export interface AuthFailureLimiterOptions {
  /** Failed authentications per address per minute before its requests are refused (30). */
  limit?: number;
  /** How long a key that authenticated stays let through (10 minutes). */
  rememberMs?: number;
  /** Unix milliseconds; `Date.now` unless a test sets the clock. */
  now?: () => number;
}

/** Keys remembered as authenticated, at most (the least recent are forgotten first). */
const MAX_KEYS = 100_000;

/** Counts failed authentications per client address (see the module comment). */
export class AuthFailureLimiter {
  #failures: RateLimiter;
  #rememberMs: number;
  #now: () => number;
  /** Keys that authenticated lately (lowercase hex) → until when, and for which account. */
  #trusted = new LruMap<string, { until: number; accountId: string }>(MAX_KEYS);

  constructor(options: AuthFailureLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#failures = new RateLimiter(options.limit ?? 30, 60_000, this.#now);
    this.#rememberMs = options.rememberMs ?? 10 * 60_000;
  }

  /**
   * `undefined` when a request from `address` signed by `publicKey` with the account hint
   * `accountId` (both as sent, any case) may be checked; else the seconds it should wait.
   */
  refusal(
    address: string,
    publicKey: string | null,
    accountId: string | null = null,
  ): number | undefined {
    const decision = this.#failures.peek(address);
    if (decision.ok) return undefined;
    const trusted = publicKey ? this.#trusted.get(publicKey.toLowerCase()) : undefined;
    const known = trusted !== undefined && trusted.until > this.#now() &&
      (accountId === null || accountId.toLowerCase() === trusted.accountId);
    return known ? undefined : decision.retryAfterSeconds;
  }

  /** Counts a failed authentication from `address`. */
  failed(address: string): void {
    this.#failures.take(address);
  }

  /** Remembers that `publicKey` (lowercase hex) authenticated for `accountId` (lowercase). */
  succeeded(publicKey: string, accountId: string): void {
    this.#trusted.set(publicKey, { until: this.#now() + this.#rememberMs, accountId });
  }
}
