/**
 * How `PgJobStore` delivers jobs: a job row is due for delivery at `due_at`. A listener claims
 * due jobs (`FOR UPDATE SKIP LOCKED`, so listeners of several relayers never claim the same
 * one), pushing `due_at` a lease ahead as a visibility time-out (to the job's lease expiry when
 * a live worker holds it), and hands each to its handler. A job that ends (done, failed) is due
 * no more; one that is leased is due again when its lease would run out, and each renewal
 * pushes that back: a job whose relayer died is delivered again once its lease ran out, to be
 * taken over. Delivery is therefore at least once, and a delivery lost with its process comes
 * back by itself.
 *
 * A delivery whose handler fails is the state machine's to enqueue again (after its backoff);
 * `deliveries` holds how many deliveries of the job's current message failed, set by that
 * enqueue and handed with each delivery (0 for a new message). Should the state machine give up
 * on the message, the claim's time-out still delivers the job once a lease later: a job of a
 * shared queue is never dropped, since the reconciler re-drives none of its pending jobs.
 *
 * A listener sleeps until the earliest due time it saw, or `pollMs`, or a notification on
 * `svc_jobs` (sent by the statement that made a job due: an accept, a retry, a re-drive), or the
 * end of a delivery of its own while it had no room for more, whichever comes first. It claims
 * at most `maxInFlight` jobs not yet handled at a time, so a relayer takes no more than its
 * worker runs soon and leaves the rest to the others. Every so often it also deletes records
 * past their 7 days.
 */
import type { Logger, StoredMessage } from "@svc/relayer/kit";
import { sleep } from "@svc/util/sleep";
import type { Database } from "./database.ts";

/** The channel that wakes idle listeners of every relayer. */
export const CHANNEL = "svc_jobs";
/** How often a listener deletes expired records (real time). */
const PRUNE_EVERY_MS = 60_000;
/** Expired records deleted by one statement. */
const PRUNE_BATCH = 1000;

/** The settings of a listener. */
export interface DeliveryOptions {
  /** The queue's clock. */
  now: () => number;
  /** How long a claim hides a job from other listeners (the queue's lease). */
  leaseMs: number;
  /** The longest sleep between two claims (real milliseconds). */
  pollMs: number;
  /** Deliveries a listener has in flight at most. */
  maxInFlight: number;
  /** Where the listener says what it cannot do. */
  logger: Logger;
}

/** The listener of one `PgJobStore` (see the module documentation). */
export class Delivery {
  #database: Database;
  #options: DeliveryOptions;
  #handler: (message: StoredMessage) => Promise<void>;
  #stop = new AbortController();
  #inFlight = 0;
  /** Aborted to end the listener's sleep (or skip its next one): renewed at each claim. */
  #wake = new AbortController();
  #pruned = -Infinity;
  #pruning: Promise<void> | undefined;

  constructor(
    database: Database,
    handler: (message: StoredMessage) => Promise<void>,
    options: DeliveryOptions,
  ) {
    this.#database = database;
    this.#handler = handler;
    this.#options = options;
  }

  get #running(): boolean {
    return !this.#stop.signal.aborted;
  }

  /** Stops the listener; the loop ends at its next step. */
  stop(): void {
    this.#stop.abort();
    this.#wake.abort();
  }

  /** Claims and delivers until stopped; never rejects. */
  async run(): Promise<void> {
    const unlisten = await this.#database.listen(CHANNEL, () => this.#wake.abort()).catch(
      (error) => {
        this.#options.logger.warn("cannot listen for job notifications; polling only", { error });
      },
    );
    try {
      await this.#loop();
    } finally {
      await unlisten?.();
      await this.#pruning;
    }
  }

  async #loop(): Promise<void> {
    while (this.#running) {
      let sleepMs = this.#options.pollMs;
      try {
        this.#wake = new AbortController();
        this.#prune();
        const capacity = this.#options.maxInFlight - this.#inFlight;
        if (capacity > 0) {
          const { claimed, next } = await this.#claim(capacity);
          for (const message of claimed) this.#deliver(message);
          if (claimed.length === capacity) continue;
          if (next !== null) sleepMs = Math.min(sleepMs, Math.max(0, next - this.#options.now()));
        }
      } catch (error) {
        if (!this.#running) break;
        this.#options.logger.warn("cannot claim due jobs", { error });
      }
      await sleep(sleepMs, this.#wake.signal);
    }
  }

  /** Hands a claimed job to the handler (which enqueues it again should it fail). */
  #deliver(message: StoredMessage): void {
    this.#inFlight++;
    Promise.resolve(message).then(this.#handler).catch((error) => {
      this.#options.logger.warn("cannot schedule a job's delivery again", { error });
    }).finally(() => {
      if (this.#inFlight-- === this.#options.maxInFlight) this.#wake.abort();
    });
  }

  /** Claims up to `limit` due jobs; also reads the next due time after now. */
  async #claim(limit: number): Promise<{ claimed: StoredMessage[]; next: number | null }> {
    const now = this.#options.now();
    const hidden = now + this.#options.leaseMs;
    const [row] = await this.#database.sql`
      with c as (
        select job_id from svc_jobs_job
        where due_at <= ${now} and expires_at > ${now}
        order by due_at limit ${limit}
        for update skip locked
      ), u as (
        update svc_jobs_job j set
          due_at = case when j.status = 'running' and j.lease_until > ${now}
            then j.lease_until else ${hidden}::bigint end
        from c where j.job_id = c.job_id
        returning j.job_id, j.deliveries
      )
      select
        coalesce((select json_agg(json_build_object('job_id', job_id, 'failures', deliveries))
          from u), '[]') as claimed,
        (select min(due_at)::float8 from svc_jobs_job where due_at > ${now}) as next`;
    return { claimed: row.claimed, next: row.next === null ? null : Number(row.next) };
  }

  /**
   * Now and then, deletes every record and dead letter past its time, a batch at a time (each
   * its own statement), beside the deliveries: one batch a minute would fall behind.
   */
  #prune(): void {
    if (this.#pruning || performance.now() - this.#pruned < PRUNE_EVERY_MS) return;
    this.#pruned = performance.now();
    const now = this.#options.now();
    const sql = this.#database.sql;
    this.#pruning = (async () => {
      for (const table of ["svc_jobs_job", "svc_jobs_dead"].map((name) => sql(name))) {
        while (
          (await sql`delete from ${table} where job_id in (
            select job_id from ${table} where expires_at <= ${now} limit ${PRUNE_BATCH})`)
            .count === PRUNE_BATCH
        ) { /* more may be left */ }
      }
    })().catch((error) => {
      this.#options.logger.warn("cannot delete expired job records", { error });
    }).finally(() => this.#pruning = undefined);
  }
}
