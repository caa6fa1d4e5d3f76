/**
 * `PgJobStore`: where `PgJobQueue` keeps its jobs, a `JobStore` in PostgreSQL shared by every
 * relayer on one database. The job state machine is `StoredJobQueue`'s; this store keeps the
 * rows (`job_rows.ts` tells what is sealed), applies each change only while its job is still as
 * the caller saw it, and delivers (`job_delivery.ts`). Tables (migration 1): `svc_jobs_job`,
 * `svc_jobs_text`, `svc_jobs_ciphertext` (one per job, with the attempt that saved it) and
 * `svc_jobs_dead`; records expire after 7 days, as in `StateJobStore`.
 *
 * A change made from a record whose row version (`xmin`) the store knows, because it created,
 * read or wrote that record, is written in one statement to that version only: most changes of a
 * job are made from the record its last change returned. The others, and those whose row changed
 * since, are one transaction: it locks the rows of the jobs still as seen, applies the changes to
 * the records read, and writes them back in one statement (`job_batches.ts`).
 *
 * A job is due for delivery at once when created (see `job_delivery.ts`), except one created for
 * the state machine's own listener (`deliver: false`): a lease later, for another relayer to
 * deliver should this one not finish it.
 */
import type { CreateOptions, JobRecord, JobStore, JobWrite, StoredMessage } from "@svc/relayer/kit";
import { type Database, pgCall, type Sql, type Transaction } from "./database.ts";
import { writeTogether } from "@svc/util/write_together";
import { type AcceptRow, insertJobs, type JobUpdate, lockJobs, writeJobs } from "./job_batches.ts";
import { CHANNEL, Delivery, type DeliveryOptions } from "./job_delivery.ts";
import type { JobRow, JobSeals } from "./job_rows.ts";

/** The settings of a `PgJobStore` (see `PgJobQueueOptions`): its listener's, and its creates'. */
export interface PgJobStoreOptions extends DeliveryOptions {
  /** Whether creates made while one is inserted share the next statement. */
  groupAccepts: boolean;
}

/** Records `active` reads per query. */
const PAGE = 256;
/** Jobs one statement of grouped creates inserts at most. */
const GROUP_JOBS = 256;
/** Bytes of sealed text one statement of grouped creates carries at most. */
const GROUP_BYTES = 4_000_000;

/**
 * When a job `write` changed to `record` is next due (see the module documentation);
 * `undefined`: when it was.
 */
function nextDue(record: JobRecord, write: JobWrite, now: number): number | null | undefined {
  if (write.finished) return null;
  if (write.enqueueAfterMs !== undefined) return now + Math.ceil(write.enqueueAfterMs);
  if (record.status === "running" && record.lease_until !== undefined) return record.lease_until;
  return undefined;
}

/** The jobs of a PostgreSQL database (see the module documentation). */
export class PgJobStore implements JobStore {
  /** Other relayers share the jobs. */
  readonly shared = true;
  #database: Database;
  #seals: JobSeals;
  #options: PgJobStoreOptions;
  /** The creates made while one is inserted, in the next statement; `null`: each alone. */
  #accepts: ((rows: AcceptRow[]) => Promise<void>) | null;
  #delivery?: Delivery;
  #listened?: Promise<void>;
  /**
   * The row versions (`xmin`) the records were created, read or written as, by the record
   * objects. A version names one content: no transaction writes a job's row twice.
   */
  #stamps = new WeakMap<JobRecord, string>();

  constructor(database: Database, seals: JobSeals, options: PgJobStoreOptions) {
    this.#database = database;
    this.#seals = seals;
    this.#options = options;
    this.#accepts = options.groupAccepts
      ? writeTogether(async (accepts: AcceptRow[][]) => await this.#insert(accepts.flat()), {
        limits: [GROUP_JOBS, GROUP_BYTES],
        weigh: (rows) => [rows.length, rows.reduce((n, row) => n + row.sealedText.byteLength, 0)],
      })
      : null;
  }

  get #sql() {
    return this.#database.sql;
  }

  /**
   * Inserts the records and sealed texts in one statement, shared with the creates made
   * meanwhile (a group commit: with 64 clients accepting one job each, about twice the accepts
   * a second and half the median latency, `bench/pg_job_accept.ts`). Each create still lands
   * whole or not at all. The request's replay claim (kept elsewhere) is settled first.
   */
  async create(records: JobRecord[], texts: string[], options: CreateOptions = {}): Promise<void> {
    await options.claim?.settle();
    const notify = options.deliver !== false;
    const due = this.#options.now() + (notify ? 0 : this.#options.leaseMs);
    const rows = await Promise.all(records.map(async (record, i): Promise<AcceptRow> => ({
      record,
      sealedKey: await this.#seals.sealKey(record.job_id, record.owner, record.namespace),
      sealedText: await this.#seals.sealText(record.job_id, texts[i]),
      dueAt: record.lease_until ?? due,
      notify,
    })));
    await pgCall("accept the job", () => this.#accepts ? this.#accepts(rows) : this.#insert(rows));
  }

  /** Inserts the rows in one statement, and learns their versions. */
  async #insert(rows: AcceptRow[]): Promise<void> {
    this.#learn(rows.map(({ record }) => record), await insertJobs(this.#sql, rows));
  }

  /** Learns the row versions `stamped` of `records`; returns the records stamped, by job id. */
  #learn(records: JobRecord[], stamped: { job_id: string; stamp: string }[]) {
    const stamps = new Map(stamped.map(({ job_id, stamp }) => [job_id, stamp]));
    const learnt = new Map<string, JobRecord>();
    for (const record of records) {
      const stamp = stamps.get(record.job_id);
      if (stamp === undefined) continue;
      this.#stamps.set(record, stamp);
      learnt.set(record.job_id, record);
    }
    return learnt;
  }

  async read(jobIds: string[]): Promise<(JobRecord | null)[]> {
    if (jobIds.length === 0) return [];
    const rows = await pgCall("read the jobs", () =>
      this.#sql<(JobRow & { stamp: string })[]>`
        select *, xmin::text as stamp from svc_jobs_job
        where job_id = any(${jobIds}::text[]) and expires_at > ${this.#options.now()}`);
    const records = this.#learn(await Promise.all(rows.map((r) => this.#seals.recordOf(r))), rows);
    return jobIds.map((id) => records.get(id) ?? null);
  }

  /**
   * A job changes once per call, at most (the first of its changes), as the module
   * documentation tells. Those made from records whose row versions are known are written to
   * those versions in one statement; the others, and those whose rows changed meanwhile (or
   * another transaction holds them) or whose change did not apply to the record seen, in one
   * locking transaction, which decides on the rows. The two commit apart: should the second
   * fail, the first's changes stay.
   */
  async write(changes: JobWrite[]): Promise<(JobRecord | null)[]> {
    const written: (JobRecord | null)[] = changes.map(() => null);
    const firsts = new Map<string, number>();
    changes.forEach((write, i) => {
      if (!firsts.has(write.seen.job_id)) firsts.set(write.seen.job_id, i);
    });
    const indexes = [...firsts.values()];
    const now = this.#options.now();
    const updates = indexes.flatMap((i) => {
      const { seen } = changes[i];
      const stamp = this.#stamps.get(seen);
      const next = stamp === undefined ? null : changes[i].change(seen);
      return next ? [this.#update(next, seen, changes[i], now, stamp!)] : [];
    });
    if (updates.length > 0) {
      const saved = await pgCall("save the jobs", () => this.#save(this.#sql, updates, now));
      for (const i of indexes) written[i] = saved.get(changes[i].seen.job_id) ?? null;
    }
    const locked = indexes.filter((i) => written[i] === null);
    if (locked.length === 0) return written;
    const results = await pgCall("save the jobs", () => this.#apply(locked.map((i) => changes[i])));
    locked.forEach((i, k) => written[i] = results[k]);
    return written;
  }

  /**
   * In one transaction, locks the jobs still as seen, applies each change to the record read and
   * writes them back.
   */
  #apply(changes: JobWrite[]): Promise<(JobRecord | null)[]> {
    return this.#sql.begin(async (tx) => {
      const now = this.#options.now();
      const rows = await lockJobs(tx, changes.map((write) => write.seen), now);
      const stored = await Promise.all(
        changes.map((_, i) => rows.has(i) ? this.#seals.recordOf(rows.get(i)!) : null),
      );
      const written = changes.map((write, i) => stored[i] && write.change(stored[i]));
      const updates = written.flatMap((next, i) =>
        next ? [this.#update(next, stored[i]!, changes[i], now, null)] : []
      );
      if (updates.length > 0) await this.#save(tx, updates, now);
      return written;
    }) as Promise<(JobRecord | null)[]>;
  }

  /** Writes the updates in one statement; returns the records written, by job id. */
  async #save(sql: Sql | Transaction, updates: Promise<JobUpdate>[], now: number) {
    const ready = await Promise.all(updates);
    return this.#learn(ready.map(({ record }) => record), await writeJobs(sql, ready, now));
  }

  /** What to write for `record`, as `write` changed `stored`, to the row version `stamp`. */
  async #update(
    record: JobRecord,
    stored: JobRecord,
    write: JobWrite,
    now: number,
    stamp: string | null,
  ): Promise<JobUpdate> {
    const { job_id: jobId } = record;
    return {
      record,
      stamp,
      unchanged: record === stored,
      // The error as sealed stays unless the change made another.
      sealedError: record.error === stored.error
        ? undefined
        : await this.#seals.sealError(jobId, record.error),
      dueAt: nextDue(record, write, now),
      finished: write.finished ?? false,
      ciphertext: write.ciphertext,
      deadLetter: await this.#seals.sealError(jobId, write.deadLetter) ?? undefined,
      enqueued: write.enqueueAfterMs !== undefined,
    };
  }

  async texts(jobIds: string[]): Promise<(string | null)[]> {
    if (jobIds.length === 0) return [];
    const rows = await pgCall(
      "read the jobs' texts",
      () =>
        this.#sql<{ job_id: string; sealed: Uint8Array<ArrayBuffer> }[]>`
        select t.job_id, t.sealed from svc_jobs_text t join svc_jobs_job j using (job_id)
        where t.job_id = any(${jobIds}::text[]) and j.expires_at > ${this.#options.now()}`,
    );
    const texts = new Map<string, Promise<string>>(
      rows.map((row) => [row.job_id, this.#seals.openText(row.job_id, row.sealed)]),
    );
    return await Promise.all(jobIds.map((id) => texts.get(id) ?? null));
  }

  async ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    if (jobIds.length === 0) return [];
    const rows = await pgCall(
      "read the ciphertexts",
      () =>
        this.#sql<{ job_id: string; bytes: Uint8Array<ArrayBuffer> }[]>`
        select job_id, bytes from svc_jobs_ciphertext where job_id = any(${jobIds}::text[])`,
    );
    const bytes = new Map(rows.map((row) => [row.job_id, row.bytes]));
    return jobIds.map((id) => bytes.get(id) ?? null);
  }

  /**
   * Makes the unfinished jobs among `jobIds` due after `delayMs` (a finished one is due no
   * more; a leased one no later than its lease runs out), their message's failures recorded; the
   * notification wakes every listener to see when.
   */
  async enqueue(jobIds: string[], delayMs = 0, failures = 0): Promise<void> {
    const now = this.#options.now();
    await pgCall("re-drive the job", () =>
      this.#sql`
        with u as (
          update svc_jobs_job set deliveries = ${failures},
            due_at = case when status = 'running' and lease_until is not null
              then least(lease_until, ${now + Math.ceil(delayMs)}::bigint)
              else ${now + Math.ceil(delayMs)}::bigint end
          where job_id = any(${jobIds}::text[]) and status in ('pending', 'running')
          returning job_id
        )
        select pg_notify(${CHANNEL}, '') where exists (select from u)`);
  }

  /** Pages through the unfinished jobs by id (time-ordered), `PAGE` records a query. */
  async *active(): AsyncGenerator<JobRecord> {
    for (let after = "";;) {
      const rows = await pgCall("list the unfinished jobs", () =>
        this.#sql<JobRow[]>`
          select * from svc_jobs_job
          where status in ('pending', 'running') and job_id > ${after}
            and expires_at > ${this.#options.now()}
          order by job_id limit ${PAGE}`);
      for (const row of rows) yield await this.#seals.recordOf(row);
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].job_id;
    }
  }

  /** Claims due jobs for `handler` until `signal` aborts (see `job_delivery.ts`). */
  listen(handler: (message: StoredMessage) => Promise<void>, signal?: AbortSignal): Promise<void> {
    const delivery = new Delivery(this.#database, handler, this.#options);
    this.#delivery = delivery;
    signal?.addEventListener("abort", () => delivery.stop(), { once: true });
    this.#listened = delivery.run();
    return this.#listened;
  }

  /** Stops listening; resolves once the listener's last claim is over. */
  async close(): Promise<void> {
    this.#delivery?.stop();
    await this.#listened;
  }
}
