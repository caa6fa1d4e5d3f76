/**
 * What `svc migrate-store` writes into the database besides what the stores' own methods copy:
 * job records and dead letters as a data directory's queue kept them, live replay claims, and
 * the copy's progress. Every insert is idempotent (`ON CONFLICT DO NOTHING`), so a copy cut
 * short is finished by running it again, with nothing duplicated.
 *
 * Nothing readable at rest, as with `PgJobQueue`: a job's owner and namespace and its error are
 * sealed (`JobSeals`), its text stays sealed as the data directory's queue sealed it. The
 * progress table (`svc_migrate_store_progress`, created by the copy, not by a migration: only
 * `svc migrate-store` uses it) holds phase names and counts.
 */
import { type Fingerprint, type JobRecord, stateKeys, stateTags, SvcError } from "@svc/relayer/kit";
import { type Database, pgCall } from "./database.ts";
import { LEDGER_PREFIX } from "./ledger.ts";
import { CHANNEL } from "./job_delivery.ts";
import { JobSeals, RECORD_TTL_MS } from "./job_rows.ts";

/** A job as a data directory's queue kept it (`storedJobs` of `app/job_export.ts`). */
export interface ImportedJob {
  /** The job's record, opened. */
  record: JobRecord;
  /** The text, sealed, while the job waits; `null` once it finished. */
  sealedText: Uint8Array<ArrayBuffer> | null;
  /** The ciphertext an attempt saved, whole; `null` when there is none. */
  ciphertext: { attempt: number; bytes: Uint8Array<ArrayBuffer> } | null;
}

/** The phases of a copy, in order. */
export const COPY_PHASES = [
  "ledger",
  "keys",
  "blobs",
  "index",
  "jobs",
  "lifecycle",
  "access_log",
  "blind",
  "replay",
] as const;

/** A phase of the copy. */
export type CopyPhase = typeof COPY_PHASES[number];

/**
 * Whether a copy whose phases `finished` holds is done. Phases run in order: once the last is,
 * the copy is done, and a phase added since is not run.
 */
export function copyDone(finished: { has(phase: string): boolean }): boolean {
  return finished.has(COPY_PHASES.at(-1)!);
}

/** The tables of state a relayer writes: any row in one means the database is in use. */
const STATE_TABLES = [
  "svc_ledger_accounts",
  "svc_blobs_objects",
  "svc_cipher_keys_wrapped",
  "svc_index_headers",
  "svc_jobs_job",
  "svc_access_log_records",
  "svc_lifecycle_erased",
];

/**
 * Which data directory a copy is of, as the database keeps it: a keyed hash, under a key derived
 * from the master key, of the directory's real path (neither is kept).
 */
export async function copySource(secret: Uint8Array<ArrayBuffer>, path: string): Promise<string> {
  return await stateTags.tagOf(await stateTags.tagKey(secret, "svc-migrate-store-source"), path);
}

/** The progress of a copy into the database, one row per phase finished. */
export class ImportProgress {
  #database: Database;

  private constructor(database: Database) {
    this.#database = database;
  }

  /** The progress kept in `database` (its schema migrated), its table created when missing. */
  static async open(database: Database): Promise<ImportProgress> {
    await pgCall("read the progress of the copy", async () => {
      await database.sql`
        create table if not exists svc_migrate_store_progress (
          phase text primary key,
          count bigint not null,
          finished_at bigint not null
        )`;
      // Which data directory the copy is of (see `resumes`): a column added later.
      await database.sql`
        alter table svc_migrate_store_progress add column if not exists source text`;
    });
    return new ImportProgress(database);
  }

  /** The phases finished, with how many items each copied. */
  async finished(): Promise<Map<string, number>> {
    const rows = await pgCall(
      "read the progress of the copy",
      () =>
        this.#database.sql<{ phase: string; count: number }[]>`
        select phase, count::float8 as count from svc_migrate_store_progress`,
    );
    return new Map(rows.map((row) => [row.phase, row.count]));
  }

  /**
   * Whether the copy begun was begun from `source`; one begun before sources were recorded is
   * taken as `source`'s from now on.
   */
  async resumes(source: string): Promise<boolean> {
    const sql = this.#database.sql;
    const [row] = await pgCall("read the progress of the copy", () =>
      sql<{ source: string }[]>`
        update svc_migrate_store_progress set source = coalesce(source, ${source})
        where phase = 'started' returning source`);
    return row?.source === source;
  }

  /** Records the copy as begun from `source` (see `copySource`). */
  async begin(source: string, now = Date.now()): Promise<void> {
    await pgCall("record the progress of the copy", () =>
      this.#database.sql`
        insert into svc_migrate_store_progress (phase, count, finished_at, source)
        values ('started', 0, ${now}, ${source})`);
  }

  /** Records `phase` as finished, having copied `count` items. */
  async finish(phase: string, count: number, now = Date.now()): Promise<void> {
    await pgCall("record the progress of the copy", () =>
      this.#database.sql`
        insert into svc_migrate_store_progress (phase, count, finished_at)
        values (${phase}, ${count}, ${now})
        on conflict (phase) do update set count = excluded.count,
          finished_at = excluded.finished_at`);
  }
}

/**
 * Refuses a database that a copy began to fill and has not finished: a relayer serving it
 * would miss what is still to come (expiry schedules, erase records, replay claims).
 */
export async function refuseUnfinishedCopy(database: Database): Promise<void> {
  const finished = await pgCall("read the progress of a copy into the database", async () => {
    const [{ exists }] = await database.sql<{ exists: boolean }[]>`
      select to_regclass('svc_migrate_store_progress') is not null as exists`;
    if (!exists) return new Set<string>();
    const rows = await database.sql<{ phase: string }[]>`
      select phase from svc_migrate_store_progress`;
    return new Set(rows.map((row) => row.phase));
  });
  if (finished.size > 0 && !copyDone(finished)) {
    throw new SvcError(
      "conflict",
      "Cannot open the database: `svc migrate-store` began copying a data directory into it " +
        "and has not finished; run it again to finish the copy",
    );
  }
}

/** Whether relayers have written to `database` already (a copy would mix two installations). */
export function holdsState(database: Database): Promise<boolean> {
  return pgCall("look for state in the database", async () => {
    for (const table of STATE_TABLES) {
      const rows = await database.sql`select 1 from ${database.sql(table)} limit 1`;
      if (rows.length > 0) return true;
    }
    // The ledger's key check is written by whatever opens the database first.
    const check = stateKeys.encodeKey([...LEDGER_PREFIX, "key_check"]);
    const rows = await database.sql`select 1 from svc_state where key <> ${check} limit 1`;
    return rows.length > 0;
  });
}

/**
 * Copies jobs: each record (its owner and namespace sealed, as `PgJobQueue` keeps them), its
 * sealed text and saved ciphertext. An unfinished job is due at once, so a relayer's worker
 * takes it up (a running one once its lease is over); a finished one is kept for the records'
 * time to live after its last change. A job there already is left as it is.
 */
export async function importJobs(
  database: Database,
  secret: Uint8Array<ArrayBuffer>,
  jobs: ImportedJob[],
  now = Date.now(),
): Promise<void> {
  if (jobs.length === 0) return;
  const seals = await JobSeals.derive(secret);
  const rows = await Promise.all(jobs.map(async ({ record }) => {
    const unfinished = record.status === "pending" || record.status === "running";
    const updatedAt = Date.parse(record.updated_at);
    return {
      job_id: record.job_id,
      status: record.status,
      sealed_key: await seals.sealKey(record.job_id, record.owner, record.namespace),
      sealed_error: await seals.sealError(record.job_id, record.error),
      has_error: "error" in record,
      blob_id: record.blob_id ?? null,
      memory_id: record.memory_id ?? null,
      duplicate_of: record.duplicate_of ?? null,
      attempts: record.attempts,
      interruptions: record.interruptions ?? 0,
      worker: record.worker ?? null,
      lease_until: record.lease_until ?? null,
      due_at: unfinished ? now : null,
      deliveries: 0,
      created_at: Date.parse(record.created_at),
      updated_at: updatedAt,
      expires_at: Math.max(updatedAt, unfinished ? now : 0) + RECORD_TTL_MS,
    };
  }));
  const texts = jobs.flatMap(({ record, sealedText }) =>
    sealedText && (record.status === "pending" || record.status === "running")
      ? [{ job_id: record.job_id, sealed: sealedText }]
      : []
  );
  const ciphertexts = jobs.flatMap(({ record, ciphertext }) =>
    ciphertext
      ? [{ job_id: record.job_id, attempt: ciphertext.attempt, bytes: ciphertext.bytes }]
      : []
  );
  await pgCall("copy jobs", async () => {
    await database.sql.begin(async (tx) => {
      // In this order: texts and ciphertexts reference their job.
      const tables = { svc_jobs_job: rows, svc_jobs_text: texts, svc_jobs_ciphertext: ciphertexts };
      for (const [table, list] of Object.entries(tables)) {
        if (list.length === 0) continue;
        await tx`insert into ${tx(table)} ${tx(list)} on conflict (job_id) do nothing`;
      }
      // Workers listening hear of the jobs due.
      await tx`select pg_notify(${CHANNEL}, '')`;
    });
  });
}

/** Copies dead letters (the error sealed, as `PgJobQueue` keeps it), kept for a week from now. */
export async function importDeadLetters(
  database: Database,
  secret: Uint8Array<ArrayBuffer>,
  letters: { job_id: string; error: string }[],
  now = Date.now(),
): Promise<void> {
  if (letters.length === 0) return;
  const seals = await JobSeals.derive(secret);
  const rows = await Promise.all(letters.map(async ({ job_id, error }) => ({
    job_id,
    sealed_error: (await seals.sealError(job_id, error))!,
    failed_at: now,
    expires_at: now + RECORD_TTL_MS,
  })));
  await pgCall(
    "copy dead letters",
    () => database.sql`insert into svc_jobs_dead ${database.sql(rows)} on conflict do nothing`,
  );
}

/**
 * Copies replay claims (fingerprints and expiry, as `PgReplayGuard` keeps them); a claim there
 * already keeps the later expiry.
 */
export async function importReplayClaims(
  database: Database,
  claims: { print: Fingerprint; expiresAt: number }[],
): Promise<void> {
  if (claims.length === 0) return;
  const expiries = new Map<string, number>();
  for (const { print, expiresAt } of claims) {
    const key = String(BigInt.asIntN(64, (BigInt(print.hi) << 32n) | BigInt(print.lo)));
    expiries.set(key, Math.max(expiresAt, expiries.get(key) ?? 0));
  }
  const sql = database.sql;
  await pgCall("copy replay claims", () =>
    sql`
      insert into svc_replay_claims (print, expires_at)
      select * from unnest(
        ${sql.array([...expiries.keys()])}::int8[],
        ${sql.array([...expiries.values()])}::int8[]
      )
      on conflict (print) do update
        set expires_at = greatest(svc_replay_claims.expires_at, excluded.expires_at)`);
}
