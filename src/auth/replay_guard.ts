/**
 * Remembers which signed requests and nonces were already used. `claim` answers `true`
 * the first time a key is seen inside its time to live, `false` after that.
 */

/** Remembers the keys of used requests, so that each is accepted once. */
export interface ReplayGuard {
  /** `true` the first time `key` is claimed within `ttlMs`, `false` after that. */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

/** A replay guard in Deno KV, so replays stay refused across restarts. */
export class KvReplayGuard implements ReplayGuard {
  #kv: Deno.Kv;
  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const kvKey = ["replay", key];
    const expiresAt = Date.now() + ttlMs;
    const existing = await this.#kv.get<number>(kvKey);
    // Expiry in KV is only the earliest deletion time, so the deadline is checked here too.
    if (existing.value !== null && existing.value > Date.now()) return false;
    const result = await this.#kv.atomic().check(existing).set(kvKey, expiresAt, {
      expireIn: ttlMs,
    }).commit();
    return result.ok;
  }
}

/** A replay guard in process memory. */
export class MemoryReplayGuard implements ReplayGuard {
  #seen = new Map<string, number>();

  claim(key: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    if (this.#seen.size > 10_000) {
      for (const [k, until] of this.#seen) if (until <= now) this.#seen.delete(k);
    }
    const until = this.#seen.get(key);
    if (until !== undefined && until > now) return Promise.resolve(false);
    this.#seen.set(key, now + ttlMs);
    return Promise.resolve(true);
  }
}
