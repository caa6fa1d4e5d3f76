/**
 * Which update job holds a memory it replaces. An update is a new version of a memory, stored by
 * a remember job; before storing it the worker claims the old memory for the new version, so
 * that of two updates of one memory only one goes on. A claim lasts {@link UPDATE_CLAIM_MS} (a
 * job's lease): a job that died holding it does not block the memory for ever, and the same job
 * resumed after a crash takes its own claim again.
 *
 * {@link MemoryUpdateClaims} keeps the claims in process memory (one relayer; the default);
 * a store shared by several relayers (PostgreSQL) decides them in the database.
 * `updateClaimsSuite` (in the testing module) checks an implementation.
 */

/** How long an update holds the memory it replaces against another update (a job's lease). */
export const UPDATE_CLAIM_MS = 120_000;

/** Claims of memories by the updates replacing them; see the module documentation. */
export interface UpdateClaims {
  /**
   * Claims `memoryId` for the update `by` (the new version's id) at `now` (Unix ms): `true`
   * when it was free, held by `by` already, or held by another for `UPDATE_CLAIM_MS` or more;
   * the claim then holds from `now`. `false` while another update holds it.
   */
  claim(memoryId: string, by: string, now: number): Promise<boolean>;
  /** Ends the claim of `by` on `memoryId`; a claim another update took since is left. */
  release(memoryId: string, by: string): Promise<void>;
  /** Whether `by` holds `memoryId` at `now` (claimed, not released, revoked or run out). */
  holds(memoryId: string, by: string, now: number): Promise<boolean>;
  /** Ends every claim on `memoryIds`: they were erased, and the updates on the way go too. */
  revoke(memoryIds: string[]): Promise<void>;
}

/** Update claims in process memory: correct for one relayer. */
export class MemoryUpdateClaims implements UpdateClaims {
  #claims = new Map<string, { by: string; at: number }>();

  claim(memoryId: string, by: string, now: number): Promise<boolean> {
    const held = this.#claims.get(memoryId);
    if (held && held.by !== by && now - held.at < UPDATE_CLAIM_MS) return Promise.resolve(false);
    this.#claims.set(memoryId, { by, at: now });
    return Promise.resolve(true);
  }

  release(memoryId: string, by: string): Promise<void> {
    if (this.#claims.get(memoryId)?.by === by) this.#claims.delete(memoryId);
    return Promise.resolve();
  }

  holds(memoryId: string, by: string, now: number): Promise<boolean> {
    const held = this.#claims.get(memoryId);
    return Promise.resolve(held?.by === by && now - held.at < UPDATE_CLAIM_MS);
  }

  revoke(memoryIds: string[]): Promise<void> {
    for (const id of memoryIds) this.#claims.delete(id);
    return Promise.resolve();
  }
}
