/**
 * How `KvJobStore` changes job records and enqueues jobs in Deno KV: a change applies only if the
 * stored record is still as the worker's record shows it (read, compared, then written under a
 * versionstamp check), many records per commit; and the queue message of one job, or of every
 * job one commit accepted.
 *
 * A record the store wrote or read is known by the versionstamp of its commit (`RecordStamps`):
 * a change from such records is committed under those versionstamps with no read first. It lands
 * only if each stored record is still the one written, which is the same as the record held;
 * when not, it is read and compared as any other.
 */
import { type JobRecord, StoredJobQueue, SvcError } from "@svc/relayer/kit";
import { getAll, RECORD_TTL_MS } from "./job_texts.ts";
import type { KvJobSeal } from "./job_seal.ts";

/** Attempts of a change whose commit lost a race (with the same worker's renewal, say). */
const MAX_CONFLICTS = 20;
/** Jobs one batch commit changes at most (each is one of the commit's 100 checks). */
export const BATCH = 64;

/**
 * The versionstamps the records were stored under, by the record objects written or read (which
 * nobody changes afterwards: the state machine makes every change on a copy).
 */
export type RecordStamps = WeakMap<JobRecord, string>;

/** Where a queue's records are: its KV, the versionstamps it knows, the seal it stores them under. */
export interface KvRecords {
  kv: Deno.Kv;
  stamps: RecordStamps;
  seal: KvJobSeal;
}

/**
 * A message of the KV queue: one job, or every job of one commit of accepts; with how many
 * deliveries of the message it repeats failed, when any did.
 */
type KvMessage = ({ job_id: string } | { job_ids: string[] }) & { failures?: number };

/** The job ids a message carries (none when it is not one of the queue's). */
export function jobIdsOf(message: unknown): string[] {
  const { job_id: one, job_ids: many } = (message ?? {}) as {
    job_id?: unknown;
    job_ids?: unknown;
  };
  if (typeof one === "string") return [one];
  return Array.isArray(many) ? many.filter((id): id is string => typeof id === "string") : [];
}

/** How many deliveries of the message the message repeats failed (0 for a first one). */
export function failuresOf(message: unknown): number {
  const { failures } = (message ?? {}) as { failures?: unknown };
  return typeof failures === "number" ? failures : 0;
}

/**
 * Enqueues one message for `jobIds` on `op`, due after `delay` ms: `{job_id}` for one job,
 * `{job_ids}` for several, with `failures` when not 0. The state machine delivers a message whose
 * handler failed again itself; should Deno KV give up delivering one (the handler could not even
 * re-enqueue it), each job gets a dead letter.
 */
export function enqueueJobs(
  op: Deno.AtomicOperation,
  jobIds: string[],
  delay = 0,
  failures = 0,
): void {
  const ids = jobIds.length === 1 ? { job_id: jobIds[0] } : { job_ids: jobIds };
  const message: KvMessage = failures > 0 ? { ...ids, failures } : ids;
  op.enqueue(message, {
    delay,
    backoffSchedule: [...StoredJobQueue.backoffSchedule],
    keysIfUndelivered: jobIds.map((jobId) => ["job_dead", jobId]),
  });
}

/**
 * A change of one record: `change` makes the record to store from the stored one (the stored
 * one itself: none to store; `null`: the change does not apply), `more` adds other operations
 * to the same commit.
 */
export interface RecordChange {
  /** The record the change was made from. */
  seen: JobRecord;
  change: (stored: JobRecord) => JobRecord | null;
  more?: (op: Deno.AtomicOperation) => void;
}

/** Throws the error of a job store that failed to `action`. */
export function storeFailed(action: string, cause: unknown): never {
  throw new SvcError("backend_unavailable", `Cannot ${action}: the job store failed`, { cause });
}

/**
 * Commits up to 64 changes at once, each only if its job is still as its `seen` record shows;
 * reads again when another write won the race. Resolves, per change, to the record written (or
 * the stored one), or `null` when its job moved on or the change does not apply (nothing of
 * that change is committed). `stamps` knows the records this store wrote or read, and learns
 * those written here.
 */
export async function updateMany(
  records: KvRecords,
  changes: RecordChange[],
): Promise<(JobRecord | null)[]> {
  const { kv, stamps, seal } = records;
  const keys = changes.map(({ seen }) => ["job", seen.job_id]);
  const known = changes.map(({ seen }) => stamps.get(seen) ?? null);
  if (known.every((versionstamp) => versionstamp !== null)) {
    const stored = changes.map(({ seen }, i) => ({
      key: keys[i],
      value: seen,
      versionstamp: known[i],
    }));
    const written = await commitChanges(records, changes, stored);
    if (written) return written;
  }
  for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts++) {
    const entries = (await getAll<JobRecord>(kv, keys)).map((entry) => seal.openedEntry(entry));
    const written = await commitChanges(records, changes, entries);
    if (written) return written;
  }
  throw new SvcError("backend_unavailable", "Cannot update the job: too many competing writes");
}

/**
 * Commits `changes` of the `stored` entries, checked unchanged: the records written (or `null`
 * for a job that moved on), or `undefined` when another write won the race.
 */
async function commitChanges(
  { kv, stamps, seal }: KvRecords,
  changes: RecordChange[],
  stored: Deno.KvEntryMaybe<JobRecord>[],
): Promise<(JobRecord | null)[] | undefined> {
  const op = kv.atomic();
  const written = changes.map(({ seen, change, more }, i): JobRecord | null => {
    const entry = stored[i];
    if (!StoredJobQueue.stillAsSeen(entry.value, seen)) return null;
    const next = change(entry.value);
    if (!next) return null;
    op.check(entry);
    if (next !== entry.value) op.set(entry.key, seal.stored(next), { expireIn: RECORD_TTL_MS });
    more?.(op);
    return next;
  });
  if (written.every((record) => record === null)) return written;
  const result = await op.commit().catch((cause) => storeFailed("update the job", cause));
  if (!result.ok) return undefined;
  written.forEach((record, i) => {
    if (record) {
      stamps.set(
        record,
        record === stored[i].value ? stored[i].versionstamp! : result.versionstamp,
      );
    }
  });
  return written;
}
