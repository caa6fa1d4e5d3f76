/**
 * The statements of `PgJobQueue` that change many jobs at once: each is one statement, so one
 * round trip and one transaction, whatever the number of jobs. A change applies to a job only
 * while it is still as the worker's record shows it (same status, worker and attempt).
 */
import type { CiphertextToSave, JobCompletion } from "@svc/relayer/kit";
import type { Sql } from "./database.ts";
import { CHANNEL } from "./job_delivery.ts";
import { type JobRow, RECORD_TTL_MS } from "./job_rows.ts";

/** A job to insert: its id, sealed owner and namespace, sealed text and acceptance time. */
export interface AcceptRow {
  jobId: string;
  sealedKey: Uint8Array<ArrayBuffer>;
  sealedText: Uint8Array<ArrayBuffer>;
  createdAt: number;
}

/** A `values` list of `rows` (the client's types know rows of strings and numbers only). */
export function values(sql: Sql, rows: unknown[][]) {
  return sql(rows as unknown as string[][]);
}

/**
 * Inserts pending jobs with their texts: the first `local` due at `hidden` (this relayer's
 * listener has them), the others due at once, with a notification to every listener.
 */
export function insertJobs(
  sql: Sql,
  rows: AcceptRow[],
  local: number,
  hidden: number,
): Promise<unknown> {
  const list = rows.map((row, i) => [
    row.jobId,
    row.sealedKey,
    row.sealedText,
    row.createdAt,
    i < local ? hidden : row.createdAt,
    i < local ? 1 : 0,
  ]);
  return sql`
    with v as (
      select * from (values ${values(sql, list)})
        as v(job_id, sealed_key, sealed, created_at, due_at, deliveries)
    ), j as (
      insert into svc_jobs_job (job_id, status, sealed_key, due_at, deliveries, created_at,
        updated_at, expires_at)
      select v.job_id, 'pending', v.sealed_key::bytea, v.due_at::bigint, v.deliveries::int,
        v.created_at::bigint, v.created_at::bigint, v.created_at::bigint + ${RECORD_TTL_MS}
      from v
    ), t as (
      insert into svc_jobs_text (job_id, sealed) select v.job_id, v.sealed::bytea from v
    )
    select pg_notify(${CHANNEL}, '') where ${local < rows.length}`;
}

/** How `leaseJobs` leases. */
export interface LeaseTerms {
  worker: string;
  now: number;
  until: number;
  maxAttempts: number;
}

/**
 * Leases the jobs of `ids` free to take (pending, or running past their lease), skipping those
 * another statement holds locked at that instant; returns them, and (`exhausted`, unchanged)
 * those free to take but out of attempts.
 */
export function leaseJobs(
  sql: Sql,
  ids: string[],
  { worker, now, until, maxAttempts }: LeaseTerms,
): Promise<(JobRow & { exhausted: boolean })[]> {
  return sql<(JobRow & { exhausted: boolean })[]>`
    with c as (
      select job_id, (attempts >= ${maxAttempts}
        or interruptions >= ${maxAttempts * 2}) as exhausted
      from svc_jobs_job
      where job_id = any(${ids}::text[]) and expires_at > ${now}
        and (status = 'pending' or (status = 'running' and coalesce(lease_until, 0) <= ${now}))
      for update skip locked
    ), u as (
      update svc_jobs_job j set status = 'running', attempts = j.attempts + 1,
        lease_until = ${until}, due_at = ${until}, worker = ${worker},
        updated_at = ${now}, expires_at = ${now + RECORD_TTL_MS}
      from c where j.job_id = c.job_id and not c.exhausted
      returning j.*
    )
    select u.*, false as exhausted from u
    union all
    select j.*, true as exhausted from svc_jobs_job j join c on j.job_id = c.job_id
    where c.exhausted`;
}

/** Keeps each ciphertext whose job is still held (its row locked meanwhile); returns their ids. */
export function saveCiphertextRows(
  sql: Sql,
  items: CiphertextToSave[],
): Promise<{ job_id: string }[]> {
  const rows = items.map(({ record, ciphertext }) => [
    record.job_id,
    record.status,
    record.worker ?? null,
    record.attempts,
    ciphertext,
  ]);
  return sql<{ job_id: string }[]>`
    with v as (
      select * from (values ${values(sql, rows)}) as v(job_id, status, worker, attempts, bytes)
    ), held as (
      select j.job_id, j.attempts from svc_jobs_job j join v on j.job_id = v.job_id
        and j.status = v.status and j.worker is not distinct from v.worker::text
        and j.attempts = v.attempts::int
      for update of j
    )
    insert into svc_jobs_ciphertext (job_id, attempt, bytes)
    select held.job_id, held.attempts, v.bytes::bytea from held join v using (job_id)
    on conflict (job_id) do update set attempt = excluded.attempt, bytes = excluded.bytes
    returning job_id`;
}

/** Finishes each job still held with its patch, dropping its text and ciphertext; their ids. */
export function completeJobs(
  sql: Sql,
  items: JobCompletion[],
  now: number,
): Promise<{ job_id: string }[]> {
  const rows = items.map(({ record, patch }) => [
    record.job_id,
    record.status,
    record.worker ?? null,
    record.attempts,
    "blob_id" in patch,
    patch.blob_id ?? null,
    "memory_id" in patch,
    patch.memory_id ?? null,
    "duplicate_of" in patch,
    patch.duplicate_of ?? null,
  ]);
  return sql<{ job_id: string }[]>`
    with v as (
      select * from (values ${values(sql, rows)}) as v(job_id, status, worker, attempts,
        set_blob, blob_id, set_memory, memory_id, set_duplicate, duplicate_of)
    ), u as (
      update svc_jobs_job j set status = 'done',
        blob_id = case when v.set_blob::bool then v.blob_id::text else j.blob_id end,
        memory_id = case when v.set_memory::bool then v.memory_id::text else j.memory_id end,
        duplicate_of = case when v.set_duplicate::bool then v.duplicate_of::text
          else j.duplicate_of end,
        sealed_error = null, has_error = true, lease_until = null, worker = null,
        due_at = null, updated_at = ${now}, expires_at = ${now + RECORD_TTL_MS}
      from v where j.job_id = v.job_id and j.status = v.status
        and j.worker is not distinct from v.worker::text and j.attempts = v.attempts::int
      returning j.job_id
    ), t as (
      delete from svc_jobs_text where job_id in (select job_id from u)
    ), c as (
      delete from svc_jobs_ciphertext where job_id in (select job_id from u)
    )
    select job_id from u`;
}
