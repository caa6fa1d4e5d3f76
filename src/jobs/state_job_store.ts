/**
 * `StateJobStore`: where the relayer's remember jobs live, in its `StateStore`, with a
 * `MessageQueue` to deliver them (`StoredJobQueue` is the state machine over it).
 *
 * Creates are committed in groups, texts sealed (`job_accept.ts`, `job_texts.ts`); a write
 * commits under a version check (`job_records.ts`) with what goes with it: the ciphertext kept,
 * the text and ciphertext dropped, the dead letter; then the next message. Records and texts
 * expire after 7 days.
 *
 * A message that could not be enqueued after its commit landed is not an error of the change:
 * its job stays pending, and the reconciler delivers it again once its lease has passed. That
 * holds for a store one relayer owns (it is not `shared`, so the reconciler re-drives its pending
 * jobs): relayers that share their jobs use a store of their own (`@svc/postgres`).
 *
 * Keys: `["job", id]` the record; `["job_active", id]` unfinished jobs (for the reconciler);
 * `["job_dead", id]` dead letters; texts and ciphertexts as `job_texts.ts` says.
 */
import { deriveAesKey, hkdfMaster } from "@svc/util/sealing";
import type { KeyStore } from "../backends/key_store.ts";
import type { StateBatch, StateStore } from "../state/state_store.ts";
import type { JobRecord } from "./job_queue.ts";
import type { CreateOptions, JobStore, JobWrite, StoredMessage } from "./job_store.ts";
import { AcceptGroups } from "./job_accept.ts";
import { JobTextKeys } from "./job_text_keys.ts";
import {
  BATCH,
  enqueueJobs,
  failuresOf,
  jobIdsOf,
  type StateRecords,
  updateMany,
} from "./job_records.ts";
import { JobSeal, type StoredJobRecord } from "./job_seal.ts";
import {
  CHUNK_BYTES,
  JobTexts,
  MAX_COMMIT_BYTES,
  RECORD_TTL_MS,
  storeFailed,
  type TextsToDrop,
} from "./job_texts.ts";
import type { MessageQueue } from "./message_queue.ts";

/** The jobs in a `StateStore`; see the module documentation. */
export class StateJobStore implements JobStore {
  readonly #texts: JobTexts;
  readonly #messages: MessageQueue;
  readonly #accepts: AcceptGroups;
  /** The state and seal of the records, as `job_records.ts` takes them. */
  readonly #records: StateRecords;

  private constructor(state: StateStore, messages: MessageQueue, texts: JobTexts, seal: JobSeal) {
    this.#records = { state, seal };
    this.#texts = texts;
    this.#messages = messages;
    this.#accepts = new AcceptGroups(state, texts, seal, (ids) => this.#enqueue(ids));
  }

  /**
   * The store in `state`, delivering by `messages`; `secret` (32 bytes) seals its records, and
   * `keyStore` keeps the keys of its waiting texts (see `job_texts.ts`; without one, the secret
   * seals them too).
   */
  static async open(
    state: StateStore,
    messages: MessageQueue,
    secret: Uint8Array<ArrayBuffer>,
    keyStore?: KeyStore,
  ): Promise<StateJobStore> {
    const texts = await openTexts(state, secret, keyStore);
    return new StateJobStore(state, messages, texts, await JobSeal.derive(secret));
  }

  /** In one commit shared with the creates made meanwhile; the claim rides in it. */
  async create(records: JobRecord[], texts: string[], options: CreateOptions = {}): Promise<void> {
    await this.#accepts.commit(records, texts, {
      claim: options.claim,
      message: options.deliver !== false,
    });
  }

  async read(jobIds: string[]): Promise<(JobRecord | null)[]> {
    const { state, seal } = this.#records;
    const entries = await state.getMany<StoredJobRecord>(jobIds.map((id) => ["job", id]));
    return entries.map((stored) => seal.openedEntry(stored)?.value ?? null);
  }

  /** Up to 64 jobs a commit; a ciphertext of several chunks is written alone, staged first. */
  async write(changes: JobWrite[]): Promise<(JobRecord | null)[]> {
    const written: (JobRecord | null)[] = [];
    for (const group of commitGroups(changes)) written.push(...await this.#writeGroup(group));
    return written;
  }

  async #writeGroup(group: JobWrite[]): Promise<(JobRecord | null)[]> {
    const ids = group.map((write) => write.seen.job_id);
    const drop = group.some((write) => write.finished) ? await this.#texts.toDrop(ids) : null;
    const first = await Promise.all(
      group.map(({ seen, ciphertext }) => this.#texts.stageCiphertext(seen, ciphertext)),
    );
    const written = await updateMany(
      this.#records,
      group.map((write, i) => ({
        seen: write.seen,
        change: write.change,
        more: (op) => this.#with(op, write, { first: first[i], drop, index: i }),
      })),
    );
    for (const [i, record] of written.entries()) {
      if (record && group[i].finished && (drop?.more(i) || tried(group[i].seen))) {
        await this.#texts.drop(ids[i]);
      }
    }
    await this.#forgetTexts(written.filter((record, i) => record && group[i].finished));
    for (const [i, record] of written.entries()) {
      const after = group[i].enqueueAfterMs;
      if (record && after !== undefined) await this.#enqueue([ids[i]], after);
    }
    return written;
  }

  /**
   * Erases the text keys of the jobs of `finished` done as a duplicate (`JobTexts.forget`); a
   * failed job's key stays: its memory may still hold a row or a blob until it is withdrawn.
   */
  async #forgetTexts(finished: (JobRecord | null)[]): Promise<void> {
    const orphans = finished.filter((record): record is JobRecord =>
      record?.duplicate_of !== undefined
    );
    const byOwner = Map.groupBy(orphans, (record) => record.owner);
    for (const [owner, records] of byOwner) {
      await this.#texts.forget(owner, records.map((record) => record.job_id));
    }
  }

  /** Adds to `op` what goes with a write besides its record and its message. */
  #with(
    op: StateBatch,
    { seen, ciphertext, finished, deadLetter }: JobWrite,
    { first, drop, index }: { first: number; drop: TextsToDrop | null; index: number },
  ): void {
    const jobId = seen.job_id;
    if (ciphertext) this.#texts.setCiphertext(op, jobId, seen.attempts, ciphertext, first);
    if (finished) {
      op.delete(["job_active", jobId]);
      drop?.deleteKnown(op, index);
    }
    if (deadLetter !== undefined) {
      const letter = this.#records.seal.deadLetter(jobId, deadLetter);
      op.set(["job_dead", jobId], letter, { expireIn: RECORD_TTL_MS });
    }
  }

  /** The records are read too: a text's key is kept under its owner. */
  async texts(jobIds: string[]): Promise<(string | null)[]> {
    const records = await this.read(jobIds);
    return await this.#texts.payloads(jobIds, records.map((record) => record?.owner));
  }

  ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    return this.#texts.ciphertexts(jobIds);
  }

  async enqueue(jobIds: string[], delayMs = 0, failures = 0): Promise<void> {
    await enqueueJobs(this.#messages, jobIds, delayMs, failures)
      .catch((cause) => storeFailed("enqueue the job", cause));
  }

  /** After a commit: a message lost leaves its jobs to the reconciler (see the module). */
  async #enqueue(jobIds: string[], delayMs = 0): Promise<void> {
    await enqueueJobs(this.#messages, jobIds, delayMs).catch(() => {});
  }

  /** Finished jobs found in the `job_active` index are dropped from it on the way. */
  async *active(): AsyncGenerator<JobRecord> {
    const { state } = this.#records;
    for await (const entry of state.list({ prefix: ["job_active"] })) {
      const [record] = await this.read([entry.key[1] as string]);
      if (record && record.status !== "done" && record.status !== "failed") yield record;
      else await state.delete(entry.key);
    }
  }

  listen(handler: (message: StoredMessage) => Promise<void>, signal?: AbortSignal): Promise<void> {
    return this.#messages.listen(async (message) => {
      const failures = failuresOf(message);
      await Promise.all(jobIdsOf(message).map((job_id) => handler({ job_id, failures })));
    }, signal);
  }
}

/** The texts of a store in `state` (see `JobTexts`), their keys in `keyStore` if given. */
export async function openTexts(
  state: StateStore,
  secret: Uint8Array<ArrayBuffer>,
  keyStore?: KeyStore,
): Promise<JobTexts> {
  const payloadKey = await deriveAesKey(
    await hkdfMaster(secret),
    "svc-job-payload-v1",
    new Uint8Array(),
  );
  const keys = keyStore ? await JobTextKeys.derive(secret, keyStore) : null;
  return new JobTexts(state, payloadKey, keys);
}

/**
 * Whether an earlier attempt on the job may have left ciphertext chunks of its own (its last
 * commit never landed), which only a listing finds.
 */
function tried(seen: JobRecord): boolean {
  return seen.attempts > 1 || (seen.interruptions ?? 0) > 0;
}

/**
 * `changes` in groups one commit holds: up to 64 jobs and `MAX_COMMIT_BYTES` of ciphertext; a
 * ciphertext of several chunks in a group of its own.
 */
function commitGroups(changes: JobWrite[]): JobWrite[][] {
  const groups: JobWrite[][] = [];
  let group: JobWrite[] = [];
  let bytes = 0;
  const flush = () => {
    if (group.length > 0) groups.push(group);
    group = [];
    bytes = 0;
  };
  for (const write of changes) {
    const size = write.ciphertext?.byteLength ?? 0;
    const alone = size > CHUNK_BYTES;
    if (alone || group.length === BATCH || bytes + size > MAX_COMMIT_BYTES) flush();
    group.push(write);
    bytes += size;
    if (alone) flush();
  }
  flush();
  return groups;
}
