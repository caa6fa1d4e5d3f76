/**
 * `PgJobQueue`: the job queue in PostgreSQL, shared by every relayer on one database: the state
 * machine of `StoredJobQueue` over a `PgJobStore` (`job_store.ts`), whose rows seal what waits
 * in them (`job_rows.ts`) and whose listener claims due jobs (`job_delivery.ts`).
 */
import {
  type JobQueueOptions,
  type Logger,
  silentLogger,
  StoredJobQueue,
  type StoredJobQueueOptions,
} from "@svc/relayer/kit";
import type { Database } from "./database.ts";
import { JobSeals } from "./job_rows.ts";
import { PgJobStore } from "./job_store.ts";

/** The options of `PgJobQueue.open`. */
export interface PgJobQueueOptions extends JobQueueOptions {
  /** The longest a listener sleeps between two looks for due jobs (default 5 s). */
  pollMs?: number;
  /**
   * Deliveries a listener claims and has in flight at most (default 128: two batches of the
   * worker); the jobs a relayer accepts wait for its own worker up to as many more, the others
   * are for any relayer at once.
   */
  maxInFlight?: number;
  /**
   * Whether accepts made while one is in flight share the next statement (default true;
   * `bench/pg_job_accept.ts` turns it off to measure what it gains).
   */
  groupAccepts?: boolean;
  logger?: Logger;
}

/**
 * The job queue in PostgreSQL (see the module documentation); leases last 30 s and jobs get 5
 * attempts unless the options say otherwise.
 *
 * @example
 * ```ts ignore
 * const database = await Database.open({ url, logger });
 * const queue = await PgJobQueue.open(database, secret, { leaseMs: 30_000 });
 * ```
 */
export class PgJobQueue extends StoredJobQueue {
  #store: PgJobStore;

  private constructor(store: PgJobStore, options: StoredJobQueueOptions) {
    super(store, options);
    this.#store = store;
  }

  /** Opens the queue on `database` (migrated); `secret` (32 bytes) seals what waits in it. */
  static async open(
    database: Database,
    secret: Uint8Array<ArrayBuffer>,
    options: PgJobQueueOptions = {},
  ): Promise<PgJobQueue> {
    const queue = { ...options, leaseMs: options.leaseMs ?? 30_000, now: options.now ?? Date.now };
    const maxInFlight = options.maxInFlight ?? 128;
    const store = new PgJobStore(database, await JobSeals.derive(secret), {
      ...queue,
      pollMs: options.pollMs ?? 5_000,
      maxInFlight,
      groupAccepts: options.groupAccepts ?? true,
      logger: options.logger ?? silentLogger,
    });
    // The jobs this relayer has no room for are for any relayer at once.
    return new PgJobQueue(store, { ...queue, maxHanded: maxInFlight });
  }

  /** Stops listening; resolves once the listener's last claim is over. */
  close(): Promise<void> {
    return this.#store.close();
  }
}
