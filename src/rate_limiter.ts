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
    const recent = this.#recent(key, now);
    const decision = this.#decide(recent, now);
    if (!decision.ok) return decision;
    recent.push(now);
    this.#events.set(key, recent);
    if (this.#events.size > 10_000) this.#prune(now);
    return { ok: true };
  }

  /** Whether an event for `key` would be within the limit now; counts nothing. */
  peek(key: string): RateDecision {
    const now = this.#now();
    return this.#decide(this.#recent(key, now), now);
  }

  /** The events of `key` still inside the window (kept, the older ones dropped). */
  #recent(key: string, now: number): number[] {
    const times = this.#events.get(key);
    if (!times) return [];
    const recent = times.filter((t) => t > now - this.#windowMs);
    if (recent.length) this.#events.set(key, recent);
    else this.#events.delete(key);
    return recent;
  }

  #decide(recent: number[], now: number): RateDecision {
    if (recent.length < this.#limit) return { ok: true };
    const retryAfterMs = recent[0] + this.#windowMs - now;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
  }

  /** Forgets keys with no event inside the window, so the table stays small. */
  #prune(now: number): void {
    for (const [key, times] of this.#events) {
      if (times.every((t) => t <= now - this.#windowMs)) this.#events.delete(key);
    }
  }
}
