/**
 * The statements of `PgJobStore` that touch many jobs at once: each is one statement, so one
 * round trip, whatever the number of jobs. `insertJobs` creates jobs; `writeJobs` writes them, to
 * the row versions the changes were made from, or, after `lockJobs` in the same transaction, to
 * the rows it locked and checked.
 */
import type { JobRecord } from "@svc/relayer/kit";
import type { Sql, Transaction } from "./database.ts";
import { CHANNEL } from "./job_delivery.ts";
import { type JobRow, RECORD_TTL_MS } from "./job_rows.ts";

/** A job to insert: its record, sealed owner and namespace, sealed text and due time. */
export interface AcceptRow {
  record: JobRecord;
  sealedKey: Uint8Array<ArrayBuffer>;
  sealedText: Uint8Array<ArrayBuffer>;
  /** When the job is first due for delivery. */
  dueAt: number;
  /** Whether the listeners of every relayer are to hear of it (it is due at once). */
  notify: boolean;
}

/** A job to write: its record as changed, and what goes with the change. */
export interface JobUpdate {
  record: JobRecord;
  /**
   * The version of the row the change was made from: the write applies only to it. `null`: to
   * the row as it is, for a row `lockJobs` locked and checked in the same transaction only.
   */
  stamp: string | null;
  /** The change left the record as it was: the row is locked and checked, not written. */
  unchanged: boolean;
  /** The record's error, sealed (`null` for none); `undefined`: as it is sealed. */
  sealedError: Uint8Array<ArrayBuffer> | null | undefined;
  /** When the job is next due; `undefined`: as it is. */
  dueAt: number | null | undefined;
  /** The job ended: its text and ciphertext go. */
  finished: boolean;
  /** A ciphertext to keep with the job. */
  ciphertext?: Uint8Array<ArrayBuffer>;
  /** A dead letter to keep: the error, sealed. */
  deadLetter?: Uint8Array<ArrayBuffer>;
  /** The job is enqueued again: the listeners of every relayer hear of it, to see when. */
  enqueued: boolean;
}

/** A `values` list of `rows` (the client's types know rows of strings and numbers only). */
function values(sql: Sql | Transaction, rows: unknown[][]) {
  return sql(rows as unknown as string[][]);
}

/** A job written, and the version of its row (`xmin`) the write left. */
export interface Stamped {
  job_id: string;
  stamp: string;
}

/**
 * Inserts jobs with their texts; a notification wakes every listener if one is due at once.
 * Resolves to the versions of the rows inserted.
 */
export function insertJobs(sql: Sql, rows: AcceptRow[]): Promise<Stamped[]> {
  const list = rows.map(({ record, sealedKey, sealedText, dueAt }) => [
    record.job_id,
    record.status,
    sealedKey,
    sealedText,
    record.attempts,
    record.worker ?? null,
    record.lease_until ?? null,
    dueAt,
    Date.parse(record.created_at),
    Date.parse(record.updated_at),
  ]);
  return sql<Stamped[]>`
    with v as (
      select * from (values ${values(sql, list)}) as v(job_id, status, sealed_key, sealed,
        attempts, worker, lease_until, due_at, created_at, updated_at)
    ), j as (
      insert into svc_jobs_job (job_id, status, sealed_key, attempts, worker, lease_until, due_at,
        created_at, updated_at, expires_at)
      select v.job_id, v.status, v.sealed_key::bytea, v.attempts::int, v.worker::text,
        v.lease_until::bigint, v.due_at::bigint, v.created_at::bigint, v.updated_at::bigint,
        v.updated_at::bigint + ${RECORD_TTL_MS}
      from v
      returning job_id, xmin::text as stamp
    ), t as (
      insert into svc_jobs_text (job_id, sealed) select v.job_id, v.sealed::bytea from v
    )
    select j.job_id, j.stamp from j
    left join (select pg_notify(${CHANNEL}, '') where ${rows.some((row) => row.notify)}) n on true`;
}

/**
 * Locks, in job order, the rows of the jobs `seen`, and returns those still as seen (same status,
 * worker and attempt), by index in `seen`. First, waiting, those of running jobs: a change to one
 * is most likely the change of the statement holding it (a delivery's claim, a renewal), which
 * must not fail for that; whether its lease is live is not told by `seen` (a worker renews from
 * the record it leased). Then, passing over rows another statement holds (`SKIP LOCKED`), those of
 * pending jobs: a relayer taking one at that instant gets it, and the change finds that the job
 * moved on. So two transactions never wait for each other. The check is made on the rows as
 * locked: after a wait, the version another transaction committed.
 */
export async function lockJobs(
  tx: Transaction,
  seen: JobRecord[],
  now: number,
): Promise<Map<number, JobRow>> {
  const locked = new Map<number, JobRow>();
  for (const pending of [false, true]) {
    const indexes = seen.flatMap((job, i) => (job.status === "pending") === pending ? [i] : []);
    if (indexes.length === 0) continue;
    const list = indexes.map((i) => [
      i,
      seen[i].job_id,
      seen[i].status,
      seen[i].worker ?? null,
      seen[i].attempts,
    ]);
    const ids = indexes.map((i) => seen[i].job_id);
    const rows = await tx<(JobRow & { change: number })[]>`
      with j as (
        select * from svc_jobs_job where job_id = any(${ids}::text[]) and expires_at > ${now}
        order by job_id
        for update ${pending ? tx`skip locked` : tx``}
      )
      select j.*, v.change::int as change from j
      join (values ${values(tx, list)}) as v(change, job_id, status, worker, attempts)
        on j.job_id = v.job_id and j.status = v.status
          and j.worker is not distinct from v.worker::text and j.attempts = v.attempts::int`;
    for (const row of rows) locked.set(row.change, row);
  }
  return locked;
}

/**
 * Writes the jobs in one statement, each only to the row version its update names (any, for a
 * row `lockJobs` locked) and only if no other transaction holds its row (passed over, so that
 * two writes never wait for each other), with what goes with each (see `JobUpdate`). Resolves
 * to the jobs written, with their rows' new versions.
 */
export function writeJobs(
  sql: Sql | Transaction,
  updates: JobUpdate[],
  now: number,
): Promise<Stamped[]> {
  const list = updates.map((update) => {
    const { record, stamp, unchanged, sealedError, dueAt, enqueued } = update;
    return [
      record.job_id,
      stamp,
      unchanged,
      record.status,
      sealedError ?? null,
      sealedError === undefined,
      "error" in record,
      record.blob_id ?? null,
      record.memory_id ?? null,
      record.duplicate_of ?? null,
      record.attempts,
      record.interruptions ?? 0,
      record.worker ?? null,
      record.lease_until ?? null,
      dueAt ?? null,
      dueAt === undefined,
      enqueued,
      Date.parse(record.updated_at),
    ];
  });
  const finished = updates.filter((u) => u.finished).map((u) => u.record.job_id);
  const ciphertexts = updates.filter((u) => u.ciphertext && !u.finished)
    .map((u) => [u.record.job_id, u.record.attempts, u.ciphertext]);
  const dead = updates.filter((u) => u.deadLetter).map((u) => [u.record.job_id, u.deadLetter]);
  const expires = now + RECORD_TTL_MS;
  return sql<Stamped[]>`
    with v as (
      select * from (values ${values(sql, list)})
        as v(job_id, stamp, unchanged, status, sealed_error, keep_error, has_error, blob_id,
          memory_id, duplicate_of, attempts, interruptions, worker, lease_until, due_at, keep_due,
          enqueued, updated_at)
    ), l as (
      select j.job_id, j.xmin::text as stamp from svc_jobs_job j join v using (job_id)
      where (v.stamp is null or j.xmin::text = v.stamp::text) and j.expires_at > ${now}
      order by j.job_id for update of j skip locked
    ), u as (
      update svc_jobs_job j set status = v.status,
        sealed_error = case when v.keep_error::bool then j.sealed_error
          else v.sealed_error::bytea end,
        has_error = v.has_error::bool, blob_id = v.blob_id::text, memory_id = v.memory_id::text,
        duplicate_of = v.duplicate_of::text, attempts = v.attempts::int,
        interruptions = v.interruptions::int, worker = v.worker::text,
        lease_until = v.lease_until::bigint,
        due_at = case when v.keep_due::bool then j.due_at else v.due_at::bigint end,
        deliveries = case when v.enqueued::bool then 0 else j.deliveries end,
        updated_at = v.updated_at::bigint, expires_at = ${expires}
      from v join l using (job_id) where j.job_id = v.job_id and not v.unchanged::bool
      returning j.job_id, j.xmin::text as stamp
    ), s as (
      select l.job_id, l.stamp from l join v using (job_id) where v.unchanged::bool
    ), w as (
      select * from u union all select * from s
    ), t as (
      delete from svc_jobs_text
      where job_id = any(${finished}::text[]) and job_id in (select job_id from w)
    ), c as (
      delete from svc_jobs_ciphertext
      where job_id = any(${finished}::text[]) and job_id in (select job_id from w)
    )${
    ciphertexts.length === 0 ? sql`` : sql`, k as (
      insert into svc_jobs_ciphertext (job_id, attempt, bytes)
      select k.job_id, k.attempt::int, k.bytes::bytea
      from (values ${values(sql, ciphertexts)}) as k(job_id, attempt, bytes)
      where k.job_id in (select job_id from w)
      on conflict (job_id) do update set attempt = excluded.attempt, bytes = excluded.bytes
    )`
  }${
    dead.length === 0 ? sql`` : sql`, d as (
      insert into svc_jobs_dead (job_id, sealed_error, failed_at, expires_at)
      select d.job_id, d.sealed::bytea, ${now}::bigint, ${expires}::bigint
      from (values ${values(sql, dead)}) as d(job_id, sealed)
      where d.job_id in (select job_id from w)
      on conflict (job_id) do update set sealed_error = excluded.sealed_error,
        failed_at = excluded.failed_at, expires_at = excluded.expires_at
    )`
  }, n as (
      select pg_notify(${CHANNEL}, '') from w join v using (job_id) where v.enqueued::bool limit 1
    )
    select w.job_id, w.stamp from w left join n on true`;
}
