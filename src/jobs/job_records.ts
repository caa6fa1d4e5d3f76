/**
 * How `StateJobStore` changes job records and enqueues jobs: a change applies only if the stored
 * record is still as the worker's record shows it (read, compared, then written under a version
 * check), many records per commit; and the queue message of one job, or of every job one commit
 * accepted.
 */
import { SvcError } from "../errors.ts";
import type { StateBatch, StateEntry, StateStore } from "../state/state_store.ts";
import type { JobRecord } from "./job_queue.ts";
import type { MessageQueue } from "./message_queue.ts";
import { RECORD_TTL_MS, storeFailed } from "./job_texts.ts";
import type { JobSeal } from "./job_seal.ts";
import { stillAsSeen } from "./job_transitions.ts";

/** Attempts of a change whose commit lost a race (with the same worker's renewal, say). */
const MAX_CONFLICTS = 20;
/** Jobs one batch commit changes at most (each is one of the commit's 100 checks). */
export const BATCH = 64;

/** Where a queue's records are: its state and the seal it stores them under. */
export interface StateRecords {
  state: StateStore;
  seal: JobSeal;
}

/**
 * A message of the queue: one job, or every job of one commit of accepts; with how many
 * deliveries of the message it repeats failed, when any did.
 */
type QueueMessage = ({ job_id: string } | { job_ids: string[] }) & { failures?: number };

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
 * Enqueues one message for `jobIds`, due after `delayMs`: `{job_id}` for one job, `{job_ids}`
 * for several, with `failures` when not 0. The state machine delivers a message whose handler
 * failed again itself; a message lost leaves its jobs pending, for the reconciler.
 */
export async function enqueueJobs(
  messages: MessageQueue,
  jobIds: string[],
  delayMs = 0,
  failures = 0,
): Promise<void> {
  const ids = jobIds.length === 1 ? { job_id: jobIds[0] } : { job_ids: jobIds };
  const message: QueueMessage = failures > 0 ? { ...ids, failures } : ids;
  await messages.enqueue(message, { delayMs });
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
  more?: (op: StateBatch) => void;
}

/**
 * Commits up to 64 changes at once, each only if its job is still as its `seen` record shows;
 * reads again when another write won the race. Resolves, per change, to the record written (or
 * the stored one), or `null` when its job moved on or the change does not apply (nothing of
 * that change is committed).
 */
export async function updateMany(
  records: StateRecords,
  changes: RecordChange[],
): Promise<(JobRecord | null)[]> {
  const { state, seal } = records;
  const keys = changes.map(({ seen }) => ["job", seen.job_id]);
  for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts++) {
    const entries = (await state.getMany<JobRecord>(keys)).map((entry) => seal.openedEntry(entry));
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
  { state, seal }: StateRecords,
  changes: RecordChange[],
  stored: (StateEntry<JobRecord> | null)[],
): Promise<(JobRecord | null)[] | undefined> {
  const op = state.batch();
  const written = changes.map(({ seen, change, more }, i): JobRecord | null => {
    const entry = stored[i];
    if (!entry || !stillAsSeen(entry.value, seen)) return null;
    const next = change(entry.value);
    if (!next) return null;
    op.check(entry.key, entry.version);
    if (next !== entry.value) op.set(entry.key, seal.stored(next), { expireIn: RECORD_TTL_MS });
    more?.(op);
    return next;
  });
  if (written.every((record) => record === null)) return written;
  const ok = await op.commit().catch((cause) => storeFailed("update the job", cause));
  return ok ? written : undefined;
}
