/**
 * `PgJobQueue`: the job queue in PostgreSQL, shared by every relayer on one database.
 *
 * Tables (migration 1): `svc_jobs_job` a row per job (see `job_rows.ts` for what is sealed),
 * `svc_jobs_text` the sealed texts, `svc_jobs_ciphertext` the ciphertext a worker saved (one per
 * job, with the attempt that saved it), `svc_jobs_dead` dead letters (the error, sealed).
 *
 * Every change is one statement, and so one transaction: a conditional `UPDATE` fenced on the
 * status, worker and attempt the caller's record shows (`LeaseLost`, or `false` per job for the
 * batch methods, when the job moved on), with the texts and ciphertexts it drops and the
 * notification it sends in the same statement. Leases take jobs `FOR UPDATE SKIP LOCKED`: a job
 * another relayer is taking at that instant is skipped, as one held by a live lease is.
 * Delivery is `job_delivery.ts`'s. Records expire after 7 days, as in `KvJobQueue`.
 */
import { pgError } from "./database.ts";
import {
  acceptedRecord,
  type AcceptOptions,
  type CiphertextToSave,
  exhaustedError,
  type JobCompletion,
  type JobHandler,
  type JobInput,
  type JobQueue,
  type JobQueueOptions,
  type JobRecord,
  LeaseLost,
  type ListenOptions,
  type Logger,
  silentLogger,
  SvcError,
} from "@svc/relayer/kit";
import type { Database } from "./database.ts";
import { AcceptGroups } from "./job_accept.ts";
import {
  type AcceptRow,
  completeJobs,
  insertJobs,
  leaseJobs,
  saveCiphertextRows,
} from "./job_batches.ts";
import { CHANNEL, Delivery } from "./job_delivery.ts";
import { type JobRow, JobSeals, plainBytes, RECORD_TTL_MS } from "./job_rows.ts";

/** The options of `PgJobQueue.open`. */
export interface PgJobQueueOptions extends JobQueueOptions {
  /** The longest a listener sleeps between two looks for due jobs (default 5 s). */
  pollMs?: number;
  /** Deliveries a listener has in flight at most (default 128: two batches of the worker). */
  maxInFlight?: number;
  /**
   * Whether accepts made while one is in flight share the next statement (default true;
   * `bench/pg_job_accept.ts` turns it off to measure what it gains).
   */
  groupAccepts?: boolean;
  logger?: Logger;
}

/** The fields of a record `checkpoint` may change: the outputs of a stage. */
const CHECKPOINT_FIELDS = new Set(["blob_id", "memory_id", "duplicate_of", "error", "updated_at"]);
/** Records `active` reads per query. */
const PAGE = 256;

/**
 * The job queue in PostgreSQL (see the module documentation).
 *
 * @example
 * ```ts ignore
 * const database = await Database.open({ url, logger });
 * const queue = await PgJobQueue.open(database, secret, { leaseMs: 30_000 });
 * ```
 */
export class PgJobQueue implements JobQueue {
  readonly leaseMs: number;
  readonly maxAttempts: number;
  /** Other relayers share the queue: see `JobQueue.shared`. */
  readonly shared = true;
  #database: Database;
  #seals: JobSeals;
  #now: () => number;
  #pollMs: number;
  #maxInFlight: number;
  #logger: Logger;
  #delivery?: Delivery;
  #accepts: AcceptGroups | null;
  #listened?: Promise<void>;

  private constructor(database: Database, seals: JobSeals, options: PgJobQueueOptions) {
    this.#database = database;
    this.#seals = seals;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.#now = options.now ?? Date.now;
    this.#pollMs = options.pollMs ?? 5_000;
    this.#maxInFlight = options.maxInFlight ?? 128;
    this.#logger = options.logger ?? silentLogger;
    const grouped = options.groupAccepts ?? true;
    this.#accepts = grouped ? new AcceptGroups((rows) => this.#insert(rows)) : null;
  }

  /** Opens the queue on `database` (migrated); `secret` (32 bytes) seals what waits in it. */
  static async open(
    database: Database,
    secret: Uint8Array<ArrayBuffer>,
    options: PgJobQueueOptions = {},
  ): Promise<PgJobQueue> {
    return new PgJobQueue(database, await JobSeals.derive(secret), options);
  }

  get #sql() {
    return this.#database.sql;
  }

  /** Runs a statement; a database failure becomes a 503 naming `action`. */
  async #run<T>(action: string, statement: () => Promise<T>): Promise<T> {
    try {
      return await statement();
    } catch (error) {
      throw pgError(action, error);
    }
  }

  #fence(record: JobRecord) {
    return this.#sql`job_id = ${record.job_id} and status = ${record.status}
      and worker is not distinct from ${record.worker ?? null}::text
      and attempts = ${record.attempts}`;
  }

  /**
   * Inserts the records and sealed texts in one statement, shared with the accepts made
   * meanwhile (`job_accept.ts`). The request's replay claim (kept elsewhere) is settled first.
   */
  async accept(inputs: JobInput[], options: AcceptOptions = {}): Promise<JobRecord[]> {
    await options.claim?.settle();
    const now = new Date(this.#now()).toISOString();
    const records = inputs.map((input) => acceptedRecord(input, now));
    if (records.length === 0) return records;
    const rows = await Promise.all(records.map(async (record, i): Promise<AcceptRow> => ({
      jobId: record.job_id,
      sealedKey: await this.#seals.sealKey(record.job_id, record.owner, record.namespace),
      sealedText: await this.#seals.sealText(record.job_id, inputs[i].text),
      createdAt: Date.parse(now),
    })));
    await (this.#accepts ? this.#accepts.commit(rows) : this.#insert(rows));
    return records;
  }

  /**
   * Inserts accepted jobs in one statement. While this queue is listened to, the jobs it has
   * room for go to its own listener once inserted, due elsewhere only a lease later; the others
   * are due now, and a notification wakes the listeners of every relayer.
   */
  async #insert(rows: AcceptRow[]): Promise<void> {
    const now = this.#now();
    const local = Math.min(rows.length, this.#delivery?.capacity ?? 0);
    const hidden = now + this.leaseMs;
    await this.#run("accept the job", () => insertJobs(this.#sql, rows, local, hidden));
    const delivery = this.#delivery;
    for (let i = 0; i < local && delivery?.running; i++) {
      delivery.deliver({ jobId: rows[i].jobId, deliveries: 1, due: hidden });
    }
  }

  async get(jobId: string): Promise<JobRecord | null> {
    return (await this.getMany([jobId]))[0];
  }

  async getMany(jobIds: string[]): Promise<(JobRecord | null)[]> {
    if (jobIds.length === 0) return [];
    const rows = await this.#run(
      "read the jobs",
      () =>
        this.#sql<JobRow[]>`select * from svc_jobs_job
        where job_id = any(${jobIds}::text[]) and expires_at > ${this.#now()}`,
    );
    const records = new Map<string, JobRecord>();
    for (const row of rows) records.set(row.job_id, await this.#seals.recordOf(row));
    return jobIds.map((id) => records.get(id) ?? null);
  }

  async payload(jobId: string): Promise<string | null> {
    return (await this.payloads([jobId]))[0];
  }

  async payloads(jobIds: string[]): Promise<(string | null)[]> {
    if (jobIds.length === 0) return [];
    const rows = await this.#run(
      "read the jobs' texts",
      () =>
        this.#sql<{ job_id: string; sealed: Uint8Array }[]>`
        select t.job_id, t.sealed from svc_jobs_text t join svc_jobs_job j using (job_id)
        where t.job_id = any(${jobIds}::text[]) and j.expires_at > ${this.#now()}`,
    );
    const texts = new Map<string, Promise<string>>(
      rows.map((row) => [row.job_id, this.#seals.openText(row.job_id, row.sealed)]),
    );
    return await Promise.all(jobIds.map((id) => texts.get(id) ?? null));
  }

  async lease(jobId: string, worker: string): Promise<JobRecord | null> {
    return (await this.leaseMany([jobId], worker))[0];
  }

  /**
   * One statement leases every job free to take (pending, or running past its lease), skipping
   * those locked by another relayer's lease at that instant; jobs out of attempts are failed
   * after it, one by one.
   */
  async leaseMany(jobIds: string[], worker: string): Promise<(JobRecord | null)[]> {
    const ids = [...new Set(jobIds)];
    if (ids.length === 0) return [];
    const now = this.#now();
    const until = now + this.leaseMs;
    const rows = await this.#run(
      "lease the jobs",
      () => leaseJobs(this.#sql, ids, { worker, now, until, maxAttempts: this.maxAttempts }),
    );
    const leased = new Map<string, JobRecord>();
    for (const row of rows) {
      const record = await this.#seals.recordOf(row);
      if (!row.exhausted) leased.set(row.job_id, record);
      else await this.#exhaust(record);
    }
    const given = new Set<string>();
    return jobIds.map((id) => {
      if (given.has(id)) return null;
      given.add(id);
      return leased.get(id) ?? null;
    });
  }

  /** Fails a job out of attempts; another change that got there first leaves nothing. */
  async #exhaust(record: JobRecord): Promise<void> {
    await this.fail(record, exhaustedError(record, this.maxAttempts)).catch((error) => {
      if (!(error instanceof LeaseLost)) throw error;
    });
  }

  /** Also pushes back the job's next delivery, to when the renewed lease would run out. */
  async renew(record: JobRecord): Promise<JobRecord | null> {
    if (record.status !== "running") return null;
    const until = this.#now() + this.leaseMs;
    const [row] = await this.#run(
      "renew the job's lease",
      () =>
        this.#sql<JobRow[]>`update svc_jobs_job set lease_until = ${until}, due_at = ${until},
        expires_at = ${this.#now() + RECORD_TTL_MS}
        where ${this.#fence(record)} returning *`,
    );
    return row ? await this.#seals.recordOf(row) : null;
  }

  /** A stage's outputs: `blob_id`, `memory_id`, `duplicate_of`, `error` (others are refused). */
  async checkpoint(record: JobRecord, patch: Partial<JobRecord>): Promise<JobRecord> {
    const unknown = Object.keys(patch).filter((field) => !CHECKPOINT_FIELDS.has(field));
    if (unknown.length > 0) {
      throw new SvcError("internal", `Cannot checkpoint the job: ${unknown[0]} is not an output`);
    }
    const now = this.#now();
    const set: Record<string, unknown> = { updated_at: now, expires_at: now + RECORD_TTL_MS };
    for (const field of ["blob_id", "memory_id", "duplicate_of"] as const) {
      if (field in patch) set[field] = patch[field] ?? null;
    }
    if ("error" in patch) {
      set.sealed_error = await this.#seals.sealError(record.job_id, patch.error);
      set.has_error = true;
    }
    const [row] = await this.#run(
      "save the job",
      () =>
        this.#sql<JobRow[]>`update svc_jobs_job set ${this.#sql(set)}
        where ${this.#fence(record)} returning *`,
    );
    if (!row) throw new LeaseLost(record.job_id);
    return await this.#seals.recordOf(row);
  }

  async saveCiphertext(record: JobRecord, ciphertext: Uint8Array<ArrayBuffer>): Promise<void> {
    const [saved] = await this.saveCiphertexts([{ record, ciphertext }]);
    if (!saved) throw new LeaseLost(record.job_id);
  }

  /** One statement: each ciphertext is kept if its job is still held, its row locked meanwhile. */
  async saveCiphertexts(items: CiphertextToSave[]): Promise<boolean[]> {
    if (items.length === 0) return [];
    const saved = await this.#run(
      "save the ciphertext",
      () => saveCiphertextRows(this.#sql, items),
    );
    const ids = new Set(saved.map((row) => row.job_id));
    return items.map(({ record }) => ids.has(record.job_id));
  }

  async ciphertext(jobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    return (await this.ciphertexts([jobId]))[0];
  }

  async ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    if (jobIds.length === 0) return [];
    const rows = await this.#run(
      "read the ciphertexts",
      () =>
        this.#sql<{ job_id: string; bytes: Uint8Array }[]>`
        select job_id, bytes from svc_jobs_ciphertext where job_id = any(${jobIds}::text[])`,
    );
    const bytes = new Map(rows.map((row) => [row.job_id, plainBytes(row.bytes)]));
    return jobIds.map((id) => bytes.get(id) ?? null);
  }

  async complete(record: JobRecord, patch: Partial<JobRecord>): Promise<void> {
    const [done] = await this.completeMany([{ record, patch }]);
    if (!done) throw new LeaseLost(record.job_id);
  }

  /** One statement finishes every job still held, and drops their texts and ciphertexts. */
  async completeMany(items: JobCompletion[]): Promise<boolean[]> {
    if (items.length === 0) return [];
    const now = this.#now();
    const done = await this.#run("complete the jobs", () => completeJobs(this.#sql, items, now));
    const ids = new Set(done.map((row) => row.job_id));
    return items.map(({ record }) => ids.has(record.job_id));
  }

  /** Also records a dead letter (the error, sealed) in `svc_jobs_dead`. */
  async fail(record: JobRecord, error: string): Promise<void> {
    const now = this.#now();
    const sealed = await this.#seals.sealError(record.job_id, error);
    const [row] = await this.#run("fail the job", () =>
      this.#sql`
        with u as (
          update svc_jobs_job set status = 'failed', sealed_error = ${sealed}, has_error = true,
            lease_until = null, worker = null, due_at = null, updated_at = ${now},
            expires_at = ${now + RECORD_TTL_MS}
          where ${this.#fence(record)} returning job_id
        ), t as (
          delete from svc_jobs_text where job_id in (select job_id from u)
        ), c as (
          delete from svc_jobs_ciphertext where job_id in (select job_id from u)
        ), d as (
          insert into svc_jobs_dead (job_id, sealed_error, failed_at, expires_at)
          select job_id, ${sealed}::bytea, ${now}::bigint, ${now + RECORD_TTL_MS}::bigint from u
          on conflict (job_id) do update set sealed_error = excluded.sealed_error,
            failed_at = excluded.failed_at, expires_at = excluded.expires_at
        )
        select job_id from u`);
    if (!row) throw new LeaseLost(record.job_id);
  }

  /** Due again after `delayMs`; the notification wakes every listener to see when. */
  async retry(
    record: JobRecord,
    error: string | undefined,
    delayMs: number,
    options: { counted?: boolean } = {},
  ): Promise<void> {
    const now = this.#now();
    const sealed = await this.#seals.sealError(record.job_id, error);
    const uncounted = options.counted === false ? 1 : 0;
    const [row] = await this.#run("retry the job", () =>
      this.#sql`
        with u as (
          update svc_jobs_job set status = 'pending', sealed_error = ${sealed}, has_error = true,
            attempts = greatest(0, attempts - ${uncounted}::int),
            lease_until = null, worker = null, due_at = ${now + Math.ceil(delayMs)}, deliveries = 0,
            updated_at = ${now}, expires_at = ${now + RECORD_TTL_MS}
          where ${this.#fence(record)} returning job_id
        )
        select job_id, pg_notify(${CHANNEL}, '') from u`);
    if (!row) throw new LeaseLost(record.job_id);
  }

  async interrupted(record: JobRecord): Promise<void> {
    const now = this.#now();
    const [row] = await this.#run("give the job back", () =>
      this.#sql`
        with u as (
          update svc_jobs_job set status = 'pending', attempts = greatest(0, attempts - 1),
            interruptions = interruptions + 1, lease_until = null, worker = null,
            due_at = ${now}, deliveries = 0, updated_at = ${now},
            expires_at = ${now + RECORD_TTL_MS}
          where ${this.#fence(record)} returning job_id
        )
        select job_id, pg_notify(${CHANNEL}, '') from u`);
    if (!row) throw new LeaseLost(record.job_id);
  }

  /** Makes an unfinished job due now (a finished one is due no more). */
  async redrive(jobId: string): Promise<void> {
    const now = this.#now();
    await this.#run("re-drive the job", () =>
      this.#sql`
        with u as (
          update svc_jobs_job set due_at = ${now}, deliveries = 0
          where job_id = ${jobId} and status in ('pending', 'running') returning job_id
        )
        select job_id, pg_notify(${CHANNEL}, '') from u`);
  }

  /** Pages through the unfinished jobs by id (time-ordered), `PAGE` records a query. */
  async *active(): AsyncGenerator<JobRecord> {
    for (let after = "";;) {
      const rows = await this.#run(
        "list the unfinished jobs",
        () =>
          this.#sql<JobRow[]>`select * from svc_jobs_job
          where status in ('pending', 'running') and job_id > ${after}
            and expires_at > ${this.#now()}
          order by job_id limit ${PAGE}`,
      );
      for (const row of rows) yield await this.#seals.recordOf(row);
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].job_id;
    }
  }

  /**
   * Claims due jobs for `handler` until `signal` aborts (see `job_delivery.ts`); jobs this
   * queue accepts meanwhile reach `handler` at once, as far as it has room. Listen once.
   */
  listen(handler: JobHandler, options: ListenOptions = {}): Promise<void> {
    const { signal } = options;
    if (this.#delivery) {
      return Promise.reject(
        new SvcError("internal", "Cannot listen to the job queue: it already has a listener"),
      );
    }
    const delivery = new Delivery(this.#database, this.#seals, handler, {
      now: this.#now,
      leaseMs: this.leaseMs,
      pollMs: this.#pollMs,
      maxInFlight: this.#maxInFlight,
      logger: this.#logger,
    });
    this.#delivery = delivery;
    if (signal?.aborted) {
      delivery.stop();
      return Promise.resolve();
    }
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
