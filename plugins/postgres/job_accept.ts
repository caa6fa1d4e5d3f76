/**
 * Group commit of `PgJobQueue.accept` (`PgJobStore.create`): the accepts that arrive while one
 * statement is in flight are inserted together by the next, so that many clients remembering at
 * once cost the database one statement (one round trip, one commit) per group rather than one each.
 * Each accept still lands whole or not at all, and resolves only once the statement holding it
 * committed; when that statement fails, each accept of its group fails. An accept too large to
 * share (more jobs or text than a group takes) is inserted alone. Measured with
 * `bench/pg_job_accept.ts`: with 64 clients accepting one job each, grouping gave about twice the
 * accepts per second of a statement per accept and half its median latency, `fsync` on or off
 * (`bench/results/pg_job_accept.json`).
 */
import type { AcceptRow } from "./job_batches.ts";

/** Jobs one statement inserts at most. */
const GROUP_JOBS = 256;
/** Bytes of sealed text one statement carries at most. */
const GROUP_BYTES = 4_000_000;

interface Waiting {
  rows: AcceptRow[];
  bytes: number;
  landed: PromiseWithResolvers<void>;
}

/** Inserts accepted jobs in groups (see the module documentation). */
export class AcceptGroups {
  #insert: (rows: AcceptRow[]) => Promise<void>;
  #waiting: Waiting[] = [];
  #inserting = false;

  /** Groups for `insert`, which inserts its rows in one statement. */
  constructor(insert: (rows: AcceptRow[]) => Promise<void>) {
    this.#insert = insert;
  }

  /** Resolves once `rows` are committed, with others or alone. */
  async commit(rows: AcceptRow[]): Promise<void> {
    const bytes = rows.reduce((n, row) => n + row.sealedText.byteLength, 0);
    if (rows.length > GROUP_JOBS || bytes > GROUP_BYTES) return await this.#insert(rows);
    const landed = Promise.withResolvers<void>();
    this.#waiting.push({ rows, bytes, landed });
    if (!this.#inserting) this.#insertWaiting();
    return await landed.promise;
  }

  /** Inserts the waiting accepts, a group at a time, until none waits. */
  async #insertWaiting(): Promise<void> {
    this.#inserting = true;
    while (this.#waiting.length > 0) {
      const group: Waiting[] = [];
      let jobs = 0, bytes = 0;
      for (const next of this.#waiting) {
        if (
          group.length > 0 &&
          (jobs + next.rows.length > GROUP_JOBS || bytes + next.bytes > GROUP_BYTES)
        ) break;
        group.push(next);
        jobs += next.rows.length;
        bytes += next.bytes;
      }
      this.#waiting.splice(0, group.length);
      try {
        await this.#insert(group.flatMap((waiting) => waiting.rows));
        for (const { landed } of group) landed.resolve();
      } catch (error) {
        for (const { landed } of group) landed.reject(error);
      }
    }
    this.#inserting = false;
  }
}
