/**
 * The replay guard in PostgreSQL, shared by every relayer: the database decides each claim, so
 * a signed request sent to two relayers at once is accepted by exactly one of them.
 *
 * A claim is the key's 64-bit fingerprint (the first 8 bytes of its SHA-256, as the embedded
 * guard keeps it: never the signature, the nonce or the body) and its expiry. The claims that
 * arrive while a round trip is under way wait and go together in the next one (a group commit,
 * as the embedded guard's): one `INSERT … ON CONFLICT` statement, sorted so that concurrent
 * batches of several relayers lock rows in one order. A row inserted, or an expired row taken
 * over, is an accepted claim; a live row is a replay. A request is answered only once its
 * claim is committed.
 *
 * Expired rows are deleted by the relayers themselves, at most once a minute each after a
 * batch, a bounded number at a time, skipping rows another transaction holds.
 *
 * @example
 * ```ts ignore
 * const guard = new PgReplayGuard(await Database.open({ url }));
 * await guard.claim("nonce:…", 600_000); // true
 * await guard.claim("nonce:…", 600_000); // false, on this relayer or any other
 * ```
 */
import { fingerprintOf, type Logger, type ReplayGuard, silentLogger } from "@svc/relayer/kit";
import { writeTogether } from "@svc/util/write_together";
import { type Database, pgCall, pgError } from "./database.ts";

/** Settings of {@link PgReplayGuard}. */
export interface PgReplayGuardOptions {
  /** Unix milliseconds; `Date.now` by default. */
  now?: () => number;
  /** Claims written in one statement at most (default 1024). */
  maxBatch?: number;
  /** How often this relayer deletes expired claims (default 60 s). */
  pruneEveryMs?: number;
  /** Expired claims deleted by one statement at most (default 10,000). */
  pruneLimit?: number;
  logger?: Logger;
}

/** A claim waiting for its statement. */
interface Claim {
  print: bigint;
  expiresAt: number;
}

/** Deadlock and serialization failures: the statement changed nothing and may run again. */
const RETRYABLE = new Set(["40P01", "40001"]);
const ATTEMPTS = 3;

/** A key's fingerprint as PostgreSQL's signed 64-bit integer. */
export function printOf(key: string): bigint {
  const { hi, lo } = fingerprintOf(key);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
}

/** A replay guard whose claims the shared database decides; see the module documentation. */
export class PgReplayGuard implements ReplayGuard {
  #database: Database;
  #now: () => number;
  #pruneEveryMs: number;
  #pruneLimit: number;
  #logger: Logger;
  readonly #write: (claim: Claim) => Promise<boolean>;
  /** Settles once every claim made so far has (statements are written in order). */
  #claimed: Promise<unknown> = Promise.resolve();
  #pruning: Promise<void> | undefined;
  #nextPrune = 0;

  /** A guard on `database` (whose schema is migrated); opens nothing. */
  constructor(database: Database, options: PgReplayGuardOptions = {}) {
    this.#database = database;
    this.#now = options.now ?? Date.now;
    this.#pruneEveryMs = options.pruneEveryMs ?? 60_000;
    this.#pruneLimit = options.pruneLimit ?? 10_000;
    this.#logger = options.logger ?? silentLogger;
    this.#write = writeTogether((claims) => this.#writeClaims(claims), {
      limits: [Math.max(1, options.maxBatch ?? 1024)],
    });
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    const claimed = this.#write({ print: printOf(key), expiresAt: Math.ceil(this.#now() + ttlMs) });
    this.#claimed = claimed.catch(() => {});
    return claimed;
  }

  /** Writes the claims made while a statement runs in the next one; then prunes expired ones. */
  async #writeClaims(claims: Claim[]): Promise<boolean[]> {
    const accepted = await this.#commit(claims);
    const now = this.#now();
    if (now >= this.#nextPrune && !this.#pruning) {
      this.#nextPrune = now + this.#pruneEveryMs;
      this.#pruning = this.#pruneAll(now).finally(() => this.#pruning = undefined);
    }
    return claims.map(({ print }) => accepted.delete(print));
  }

  /** Waits for the claims and the pruning under way. */
  async close(): Promise<void> {
    await this.#claimed;
    await this.#pruning;
  }

  /** Deletes up to `limit` claims expired at `now`; resolves to how many. */
  async prune(now = this.#now(), limit = this.#pruneLimit): Promise<number> {
    const result = await pgCall("delete expired replay claims", () =>
      this.#database.sql`
        delete from svc_replay_claims where print in (
          select print from svc_replay_claims where expires_at <= ${now}::int8
          order by expires_at limit ${limit}
          for update skip locked
        )`);
    return result.count;
  }

  /**
   * Deletes every claim expired at `now`, `pruneLimit` at a time (each its own statement), beside
   * the commits of new claims: one statement a minute would fall behind a busy database.
   */
  async #pruneAll(now: number): Promise<void> {
    try {
      while (await this.prune(now) === this.#pruneLimit) { /* more may be left */ }
    } catch (error) {
      this.#logger.warn("cannot delete expired replay claims", { error });
    }
  }

  /**
   * Writes a batch; resolves to the fingerprints accepted. A key claimed twice in one batch
   * is written once, with its first expiry: `delete` above answers `true` to the first only.
   */
  async #commit(batch: Claim[]): Promise<Set<bigint>> {
    const expiries = new Map<bigint, number>();
    for (const { print, expiresAt } of batch) {
      if (!expiries.has(print)) expiries.set(print, expiresAt);
    }
    // One lock order for every relayer's batches: no deadlock between them.
    const prints = [...expiries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const sql = this.#database.sql;
    for (let attempt = 1;; attempt++) {
      try {
        const rows = await sql<{ print: bigint }[]>`
          insert into svc_replay_claims (print, expires_at)
          select * from unnest(
            ${sql.array(prints.map(String))}::int8[],
            ${sql.array(prints.map((print) => expiries.get(print)!))}::int8[]
          )
          on conflict (print) do update set expires_at = excluded.expires_at
            where svc_replay_claims.expires_at <= ${this.#now()}::int8
          returning print`;
        return new Set(rows.map((row) => BigInt(row.print)));
      } catch (error) {
        const code = (error as { code?: string })?.code;
        if (attempt < ATTEMPTS && code && RETRYABLE.has(code)) continue;
        throw pgError(
          "check whether this signed request was used before",
          error,
          "sign it again with a fresh nonce and retry",
        );
      }
    }
  }
}
