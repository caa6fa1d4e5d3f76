/**
 * Which job is storing a text. Before storing its memories the worker claims their texts'
 * places (`TextPlace.place`: owner, namespace and the text's keyed digest) for their jobs, so
 * that of two jobs storing one text at once one stores it and the other, once the first ends,
 * finds it a duplicate. A batch claims all its texts or none (so no two batches each hold what
 * the other waits for). A job retried after a crash takes its own claims again; a claim lasts
 * {@link TEXT_CLAIM_MS} (a job's lease), so one whose job ended without releasing it does not
 * block the text for ever; the worker claims its texts again as it renews its jobs' leases.
 *
 * {@link MemoryTextClaims} keeps the claims in process memory (one relayer; the default);
 * a store shared by several relayers (PostgreSQL) decides them in the database.
 * `textClaimsSuite` (in the testing module) checks an implementation.
 */

/** How long a job holds the text it stores against another job (a job's lease). */
export const TEXT_CLAIM_MS = 120_000;

/** A text's place, and the job storing it. */
export interface TextClaim {
  /** `TextPlace.place`: owner, namespace and the text's keyed digest. */
  place: string;
  /** The job's id. */
  job: string;
}

/** Claims of texts by the jobs storing them; see the module documentation. */
export interface TextClaims {
  /**
   * Claims every place for its job at `now` (Unix ms), when none is held by another job for
   * less than `TEXT_CLAIM_MS`: `true`. Otherwise claims none: `false`.
   */
  claim(claims: TextClaim[], now: number): Promise<boolean>;
  /** Resolves once no other job holds one of the places (each released or run out). */
  released(claims: TextClaim[]): Promise<void>;
  /** Ends the claims of `jobs`. */
  release(jobs: string[]): Promise<void>;
}

/** Text claims in process memory: correct for one relayer. */
export class MemoryTextClaims implements TextClaims {
  #claims = new Map<string, { job: string; at: number }>();
  /** The jobs holding claims, each with its place and what resolves when it releases it. */
  #holders = new Map<string, { place: string; ended: PromiseWithResolvers<void> }>();

  claim(claims: TextClaim[], now: number): Promise<boolean> {
    if (claims.some((claim) => this.#holder(claim, now))) return Promise.resolve(false);
    for (const { place, job } of claims) {
      this.#claims.set(place, { job, at: now });
      // Claimed again (renewed), it keeps what those waiting for it wait on.
      if (!this.#holders.has(job)) {
        this.#holders.set(job, { place, ended: Promise.withResolvers() });
      }
    }
    return Promise.resolve(true);
  }

  /** Waits for the jobs holding the places; a job of this process always releases them. */
  async released(claims: TextClaim[]): Promise<void> {
    const now = Date.now();
    await Promise.all(claims.map((claim) => this.#holder(claim, now)?.ended.promise));
  }

  release(jobs: string[]): Promise<void> {
    for (const job of jobs) {
      const holder = this.#holders.get(job);
      if (holder === undefined) continue;
      if (this.#claims.get(holder.place)?.job === job) this.#claims.delete(holder.place);
      this.#holders.delete(job);
      holder.ended.resolve();
    }
    return Promise.resolve();
  }

  /** The other job holding the claim's place at `now`, if one does. */
  #holder({ place, job }: TextClaim, now: number) {
    const held = this.#claims.get(place);
    if (held === undefined || held.job === job || now - held.at >= TEXT_CLAIM_MS) return undefined;
    return this.#holders.get(held.job);
  }
}
