/**
 * A sliding-window rate limiter keyed by client address: at most `limit` events per
 * `windowMs` for each key.
 */

type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export class RateLimiter {
  #limit: number;
  #windowMs: number;
  #now: () => number;
  #events = new Map<string, number[]>();

  constructor(limit: number, windowMs: number, now: () => number = Date.now) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#now = now;
  }

  /** Counts one event for `key` when it is within the limit. */
  take(key: string): RateDecision {
    const now = this.#now();
    const recent = (this.#events.get(key) ?? []).filter((t) => t > now - this.#windowMs);
    if (recent.length >= this.#limit) {
      this.#events.set(key, recent);
      const retryAfterMs = recent[0] + this.#windowMs - now;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
    }
    recent.push(now);
    this.#events.set(key, recent);
    if (this.#events.size > 10_000) this.#prune(now);
    return { ok: true };
  }

  /** Forgets keys with no event inside the window, so the table stays small. */
  #prune(now: number): void {
    for (const [key, times] of this.#events) {
      if (times.every((t) => t <= now - this.#windowMs)) this.#events.delete(key);
    }
  }
}
