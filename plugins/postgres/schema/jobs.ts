import type { Migration } from "../migrations.ts";

/**
 * The job queue: jobs, their texts and ciphertexts, dead letters. `svc_jobs_job` holds a record per
 * job: its place in its life in clear columns (status, attempts, lease, times in Unix
 * milliseconds), its owner and namespace sealed together (`sealed_key`) and its last error sealed
 * (`sealed_error`), and when it is next due for delivery (`due_at`, `null` once it ended). Texts
 * and ciphertexts go with their job.
 */
export const JOBS: Migration = {
  version: 1,
  name: "jobs",
  up: `
    create table svc_jobs_job (
      job_id text collate "C" primary key,
      status text not null check (status in ('pending', 'running', 'done', 'failed')),
      sealed_key bytea not null,
      sealed_error bytea,
      has_error boolean not null default false,
      blob_id text,
      memory_id text,
      duplicate_of text,
      attempts int not null default 0,
      interruptions int not null default 0,
      worker text,
      lease_until bigint,
      due_at bigint,
      deliveries int not null default 0,
      created_at bigint not null,
      updated_at bigint not null,
      expires_at bigint not null
    );
    create index svc_jobs_job_due on svc_jobs_job (due_at) where due_at is not null;
    create index svc_jobs_job_active on svc_jobs_job (job_id)
      where status in ('pending', 'running');
    create index svc_jobs_job_expires on svc_jobs_job (expires_at);
    create table svc_jobs_text (
      job_id text collate "C" primary key references svc_jobs_job on delete cascade,
      sealed bytea not null
    );
    create table svc_jobs_ciphertext (
      job_id text collate "C" primary key references svc_jobs_job on delete cascade,
      attempt int not null,
      bytes bytea not null
    );
    create table svc_jobs_dead (
      job_id text collate "C" primary key,
      sealed_error bytea not null,
      failed_at bigint not null,
      expires_at bigint not null
    );
  `,
};
