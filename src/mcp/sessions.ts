/**
 * The MCP session table: admission limits, the identity each session is bound to, and idle
 * eviction. Sessions of both transports (Streamable HTTP and legacy SSE) count alike.
 *
 * - Each identity (account + delegate key) holds at most `maxPerIdentity` sessions; one more
 *   closes that identity's least recently used idle session (no request in flight), so
 *   abandoned sessions (a crashed host, an Inspector run) never lock anyone out.
 * - Each client address other than this machine's holds at most `maxPerAddress` sessions;
 *   one more is refused (loopback clients share 127.0.0.1, and are held to their keys' limit).
 * - Each client address may start `maxNewPerAddressPerMinute` sessions a minute.
 * - `maxTotal` sessions at most, whoever holds them.
 */
import { sleep } from "@svc/util/sleep";
import { RateLimiter } from "../rate_limiter.ts";
import { isLoopbackAddress } from "../http/relayer_names.ts";

/** How many MCP sessions may be open, and for how long idle (see the module documentation). */
export interface SessionLimits {
  /** Open sessions at most, whoever holds them (default 1000). */
  maxTotal: number;
  /** Open sessions per delegate key and account (default 16). */
  maxPerIdentity: number;
  /** Open sessions per client address, loopback addresses aside (default 16). */
  maxPerAddress: number;
  /** Sessions a client address may open a minute (default 30). */
  maxNewPerAddressPerMinute: number;
  /** How long a session may stay unused before it is closed (default 30 minutes). */
  idleMs: number;
}

/** How often a stop looks again whether the running calls are answered. */
const ANSWER_POLL_MS = 50;

const DEFAULT_SESSION_LIMITS: SessionLimits = {
  maxTotal: 1000,
  maxPerIdentity: 16,
  maxPerAddress: 16,
  maxNewPerAddressPerMinute: 30,
  idleMs: 30 * 60_000,
};

export interface Session {
  id: string;
  /** Who opened it: a digest of the delegate key and account id. */
  identity: string;
  address: string;
  lastSeen: number;
  /** Requests received and not yet answered. */
  inFlight: number;
  close(): Promise<void>;
}

export type Admission = { ok: true } | { ok: false; reason: string; retryAfterSeconds: number };

/** A refused opening: why, and when to try again. */
function refused(reason: string, retryAfterSeconds: number): Admission {
  return { ok: false, reason, retryAfterSeconds };
}

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

  /**
   * Whether `identity`, calling from `address`, may open one more session now. At its cap,
   * its least recently used idle session is closed to make room. Only an opening admitted is
   * counted against the address's rate: a client refused for a full server does not use it up.
   */
  admit(address: string, identity: string): Admission {
    const own = [...this.#sessions.values()].filter((s) => s.identity === identity);
    let evicted: S | undefined;
    if (own.length >= this.limits.maxPerIdentity) {
      evicted = own.filter((s) => s.inFlight === 0).sort((a, b) => a.lastSeen - b.lastSeen)[0];
      if (!evicted) return refused(`this key already has ${own.length} sessions, all busy`, 5);
    }
    if (!isLoopbackAddress(address)) {
      const held = [...this.#sessions.values()].filter((s) => s.address === address).length -
        (evicted?.address === address ? 1 : 0);
      if (held >= this.limits.maxPerAddress) {
        return refused(`this address already has ${held} sessions open`, 30);
      }
    }
    if (this.#sessions.size - (evicted ? 1 : 0) >= this.limits.maxTotal) {
      return refused("the server has too many open sessions", 30);
    }
    // Every agent on this machine shares its address: there, each key has a rate of its own.
    const rate = this.#opened.take(isLoopbackAddress(address) ? `key ${identity}` : address);
    if (!rate.ok) {
      return refused(
        "this address opened too many sessions in the last minute",
        rate.retryAfterSeconds,
      );
    }
    if (evicted) {
      // Forgotten at once, so that concurrent openings count right; closed in the background.
      this.#sessions.delete(evicted.id);
      evicted.close().catch(() => {});
    }
    return { ok: true };
  }

  /** Registers an admitted session, last seen now. */
  add(session: S): void {
    session.lastSeen = this.#now();
    session.inFlight = 0;
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

  /**
   * Closes every session, once the calls they are answering have been answered or `graceMs`
   * has passed (a relayer stopping lets its agents' running calls end).
   */
  async closeAll(graceMs = 0): Promise<void> {
    const busy = () => [...this.#sessions.values()].some((s) => s.inFlight > 0);
    if (busy()) {
      const deadline = Date.now() + graceMs;
      while (busy() && Date.now() < deadline) await sleep(ANSWER_POLL_MS);
      // The last answer was handed to its transport: let it be written.
      await sleep(ANSWER_POLL_MS);
    }
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((s) => s.close().catch(() => {})));
  }
}
