/**
 * The MCP session table: admission limits (total, per client address, new per address per
 * minute), the identity each session is bound to, and idle eviction. Sessions of both
 * transports (Streamable HTTP and legacy SSE) count against the same limits.
 */
import { RateLimiter } from "../http/rate_limiter.ts";

export interface SessionLimits {
  maxTotal: number;
  maxPerAddress: number;
  maxNewPerAddressPerMinute: number;
  idleMs: number;
}

const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxTotal: 1000,
  maxPerAddress: 16,
  maxNewPerAddressPerMinute: 30,
  idleMs: 30 * 60_000,
};

export interface Session {
  id: string;
  /** Who opened it: the delegate public key and account id. */
  identity: string;
  address: string;
  lastSeen: number;
  close(): Promise<void>;
}

export type Admission = { ok: true } | { ok: false; reason: string; retryAfterSeconds: number };

export class SessionRegistry<S extends Session = Session> {
  readonly limits: SessionLimits;
  #sessions = new Map<string, S>();
  #opened: RateLimiter;
  #now: () => number;

  constructor(limits: Partial<SessionLimits> = {}, now: () => number = Date.now) {
    this.limits = { ...DEFAULT_SESSION_LIMITS, ...limits };
    this.#opened = new RateLimiter(this.limits.maxNewPerAddressPerMinute, 60_000, now);
    this.#now = now;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Whether `address` may open one more session now; on success the opening is counted. */
  admit(address: string): Admission {
    if (this.#sessions.size >= this.limits.maxTotal) {
      return { ok: false, reason: "the server has too many open sessions", retryAfterSeconds: 30 };
    }
    let fromAddress = 0;
    for (const session of this.#sessions.values()) if (session.address === address) fromAddress++;
    if (fromAddress >= this.limits.maxPerAddress) {
      return {
        ok: false,
        reason: `this address already has ${fromAddress} open sessions; close one first`,
        retryAfterSeconds: 30,
      };
    }
    const rate = this.#opened.take(address);
    if (!rate.ok) {
      return {
        ok: false,
        reason: "this address opened too many sessions in the last minute",
        retryAfterSeconds: rate.retryAfterSeconds,
      };
    }
    return { ok: true };
  }

  /** The ids of the open sessions. */
  ids(): IterableIterator<string> {
    return this.#sessions.keys();
  }

  /** Registers an admitted session, last seen now. */
  add(session: S): void {
    session.lastSeen = this.#now();
    this.#sessions.set(session.id, session);
  }

  get(id: string): S | undefined {
    return this.#sessions.get(id);
  }

  /** Marks a session as used now. */
  touch(id: string): void {
    const session = this.#sessions.get(id);
    if (session) session.lastSeen = this.#now();
  }

  /** Forgets a session (its transport closed); frees its slot. */
  remove(id: string): void {
    this.#sessions.delete(id);
  }

  /** Closes sessions idle for longer than the limit; returns how many. */
  async evictIdle(): Promise<number> {
    const cutoff = this.#now() - this.limits.idleMs;
    const idle = [...this.#sessions.values()].filter((s) => s.lastSeen < cutoff);
    for (const session of idle) {
      this.#sessions.delete(session.id);
      await session.close().catch(() => {});
    }
    return idle.length;
  }

  async closeAll(): Promise<void> {
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((s) => s.close().catch(() => {})));
  }
}
