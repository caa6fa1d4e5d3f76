/**
 * `KvJobQueue`: the job queue in Deno KV, what the relayer runs on.
 *
 * Accepting seals each text (see `kv_job_texts.ts`), then writes every job record and enqueues
 * one message for all of them in one atomic commit, with the texts when they fit in it (larger
 * ones are staged in commits of their own first), so a job exists exactly when its queue message
 * does, unless it is handed to the listener in this process (see `accept`). Accepts made while a
 * commit is in flight share the next one (`kv_job_accept.ts`), and its message: Deno KV spends a
 * sync to disk on every commit and transactions on every message it delivers. Records and texts
 * expire after 7 days; a message KV gives up on leaves a dead letter for each of its jobs.
 *
 * Every change made from a record commits only if the stored record is still as that record
 * shows it (read, compared, then written under a versionstamp check), so a worker whose lease
 * was taken over cannot write (see `LeaseLost`). The batch methods do the same for up to 64
 * jobs in one commit (Deno KV checks at most 100 keys per commit). A record this queue wrote
 * itself needs no read: the versionstamp of its commit is checked instead (`RecordStamps`), and
 * a job handed over at acceptance is leased from the record accepted, under the same check, or,
 * while the listener's worker is ready for it, by the accepting commit itself.
 *
 * Keys: `["job", id]` the record; `["job_active", id]` unfinished jobs (for the reconciler);
 * `["job_dead", id]` dead letters; texts and ciphertexts as `kv_job_texts.ts` says.
 */
import { SvcError } from "../errors.ts";
import {
  type AcceptOptions,
  type CiphertextToSave,
  type JobCompletion,
  type JobHandler,
  type JobInput,
  type JobQueue,
  type JobQueueOptions,
  type JobRecord,
  LeaseLost,
  type ListenOptions,
} from "./job_queue.ts";
import {
  acceptedRecord,
  checkpointedRecord,
  completedRecord,
  exhaustedError,
  failedRecord,
  interruptedRecord,
  leaseDecision,
  leasedRecord,
  renewedRecord,
  retriedRecord,
} from "./job_transitions.ts";
import { AcceptGroups } from "./kv_job_accept.ts";
import { saveCiphertext, saveCiphertexts } from "./kv_job_ciphertexts.ts";
import { HandedJobs } from "./handed_jobs.ts";
import { commit, getAll, KvJobTexts, RECORD_TTL_MS } from "./kv_job_texts.ts";
import { deriveAesKey, hkdfMaster } from "../crypto/sealing.ts";
import { KvJobSeal, type StoredJobRecord } from "./kv_job_seal.ts";
import {
  enqueueJobs,
  jobIdsOf,
  type KvRecords,
  type RecordStamps,
  slices,
  storeFailed,
  updateMany,
  updateOne,
} from "./kv_job_records.ts";

/**
 * The job queue in Deno KV.
 *
 * @example
 * ```ts
 * const queue = await KvJobQueue.open(await Deno.openKv(path), secret, { maxAttempts: 5 });
 * ```
 */
export class KvJobQueue implements JobQueue {
  readonly leaseMs: number;
  readonly maxAttempts: number;
  #now: () => number;
  #kv: Deno.Kv;
  #texts: KvJobTexts;
  #accepts: AcceptGroups;
  #listening = false;
  /** Called with the jobs this process accepts, while it listens. */
  #wake?: (jobId: string) => void;
  /** The worker the listener hands jobs to, when it said (`ListenOptions.worker`). */
  #worker?: ListenOptions["worker"];
  #handed = new HandedJobs();
  #stamps: RecordStamps = new WeakMap();
  #seal: KvJobSeal;
  /** The KV, versionstamps and seal of the records, as `kv_job_records.ts` takes them. */
  #records: KvRecords;

  private constructor(
    kv: Deno.Kv,
    payloadKey: CryptoKey,
    seal: KvJobSeal,
    options: JobQueueOptions,
  ) {
    this.#kv = kv;
    this.#seal = seal;
    this.#records = { kv, stamps: this.#stamps, seal };
    this.#texts = new KvJobTexts(kv, payloadKey);
    this.#accepts = new AcceptGroups(kv, this.#texts, seal, (op, ids) => enqueueJobs(op, ids));
    this.leaseMs = options.leaseMs ?? 120_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.#now = options.now ?? Date.now;
  }

  /** Opens the queue on `kv`; `secret` (32 bytes) seals its records and waiting payloads. */
  static async open(
    kv: Deno.Kv,
    secret: Uint8Array<ArrayBuffer>,
    options: JobQueueOptions = {},
  ): Promise<KvJobQueue> {
    const payloadKey = await deriveAesKey(
      await hkdfMaster(secret),
      "svc-job-payload-v1",
      new Uint8Array(),
    );
    return new KvJobQueue(kv, payloadKey, await KvJobSeal.derive(secret), options);
  }

  /**
   * Creates the records, keeps the texts and enqueues a message for the jobs in one commit,
   * shared with the accepts made meanwhile (`kv_job_accept.ts`); texts too large for it are
   * staged first. The request's replay claim (`options.claim`) rides in that commit. While the
   * queue is listened to, the accepted jobs are handed to the listener at once, in this process,
   * instead of a message: a crash leaves them unfinished, and the reconciler's pass at the next
   * start re-drives every unfinished job (one that outlived its lease otherwise, such as a job
   * accepted as the listener stopped, is re-driven by a periodic pass). While the listener's
   * worker would start them at once (`ListenOptions.worker`), they are leased to it by the
   * accepting commit: `running` from the start, and a crash before they finish gives them back as
   * interrupted, as it gives back the jobs it cut short. The records returned are as accepted.
   */
  async accept(inputs: JobInput[], options: AcceptOptions = {}): Promise<JobRecord[]> {
    const now = this.#now();
    const records = inputs.map((input) => acceptedRecord(input, new Date(now).toISOString()));
    if (records.length === 0) {
      await options.claim?.settle();
      return records;
    }
    const texts = inputs.map((input) => input.text);
    const wake = this.#wake;
    // Jobs the listener's worker would start at once are leased to it by the same commit.
    const worker = wake && this.#worker?.ready(records.length) ? this.#worker.id : undefined;
    const stored = worker
      ? records.map((record) => leasedRecord(record, worker, this.leaseMs, now))
      : records;
    const versionstamp = await this.#accepts.commit(stored, texts, {
      claim: options.claim,
      message: !wake,
    });
    for (const record of stored) this.#stamps.set(record, versionstamp);
    // Not when the listener stopped meanwhile: its jobs are left to the reconciler.
    if (!wake || wake !== this.#wake) return records;
    stored.forEach((record, i) => {
      this.#handed.keep(record, texts[i]);
      wake(record.job_id);
    });
    return records;
  }

  get(jobId: string): Promise<JobRecord | null> {
    return this.#kv.get<StoredJobRecord>(["job", jobId]).then((entry) =>
      this.#seal.opened(entry.value)
    );
  }

  async getMany(jobIds: string[]): Promise<(JobRecord | null)[]> {
    const entries = await getAll<StoredJobRecord>(this.#kv, jobIds.map((id) => ["job", id]));
    return entries.map((entry) => this.#seal.opened(entry.value));
  }

  /** The text of a job, or `null` once the job has finished and its payload is gone. */
  payload(jobId: string): Promise<string | null> {
    return this.#texts.payload(jobId);
  }

  /** Jobs handed over at acceptance are read from memory the first time, not from KV. */
  async payloads(jobIds: string[]): Promise<(string | null)[]> {
    const texts = jobIds.map((jobId) => this.#handed.takeText(jobId));
    const unread = jobIds.filter((_, i) => texts[i] === undefined);
    if (unread.length === 0) return texts as string[];
    const read = await this.#texts.payloads(unread);
    let next = 0;
    return texts.map((text) => text ?? read[next++]);
  }

  async lease(jobId: string, worker: string): Promise<JobRecord | null> {
    const entry = this.#seal.openedEntry(await this.#kv.get<StoredJobRecord>(["job", jobId]));
    const record = entry.value;
    const now = this.#now();
    const decision = leaseDecision(record, now, this.maxAttempts, worker);
    if (decision === "exhausted") await this.#exhaust(record!);
    if (decision === "skip" || decision === "exhausted") return null;
    const leased = decision === "keep"
      ? renewedRecord(record!, this.leaseMs, now)
      : leasedRecord(record!, worker, this.leaseMs, now);
    const result = await this.#kv.atomic().check(entry)
      .set(["job", jobId], this.#seal.stored(leased), { expireIn: RECORD_TTL_MS }).commit();
    if (!result.ok) return null;
    this.#stamps.set(leased, result.versionstamp);
    return leased;
  }

  /**
   * Leases up to 64 jobs per commit. When another change wins the race for one of them, that
   * slice's jobs are leased one by one instead. A job leased to `worker` as it was accepted is
   * taken as it is while at least half its lease is left, and renewed otherwise.
   */
  async leaseMany(jobIds: string[], worker: string): Promise<(JobRecord | null)[]> {
    const leased = new Map<string, JobRecord>();
    for (const slice of slices([...new Set(jobIds)])) {
      const entries = await this.#entries(slice);
      const now = this.#now();
      const op = this.#kv.atomic();
      const taken: JobRecord[] = [];
      for (const entry of entries) {
        const decision = leaseDecision(entry.value, now, this.maxAttempts, worker);
        if (decision === "exhausted") await this.#exhaust(entry.value!);
        if (decision === "skip" || decision === "exhausted") continue;
        const held = entry.value!;
        if (decision === "keep" && held.lease_until! - now >= this.leaseMs / 2) {
          this.#stamps.set(held, entry.versionstamp!);
          leased.set(held.job_id, held);
          continue;
        }
        const record = decision === "keep"
          ? renewedRecord(held, this.leaseMs, now)
          : leasedRecord(held, worker, this.leaseMs, now);
        op.check(entry).set(entry.key, this.#seal.stored(record), { expireIn: RECORD_TTL_MS });
        taken.push(record);
      }
      if (taken.length === 0) continue;
      const result = await op.commit().catch((cause) => storeFailed("lease the jobs", cause));
      if (result.ok) {
        for (const record of taken) {
          leased.set(record.job_id, record);
          this.#stamps.set(record, result.versionstamp);
        }
        continue;
      }
      const one = await Promise.all(taken.map(({ job_id }) => this.lease(job_id, worker)));
      for (const record of one) if (record) leased.set(record.job_id, record);
    }
    const given = new Set<string>();
    return jobIds.map((id) => {
      if (given.has(id)) return null;
      given.add(id);
      return leased.get(id) ?? null;
    });
  }

  /**
   * The stored entries of `jobIds`: read, but for the jobs handed over at acceptance, whose
   * records as accepted stand for them (a lease's check tells whether they still do).
   */
  async #entries(jobIds: string[]): Promise<Deno.KvEntryMaybe<JobRecord>[]> {
    const known = jobIds.map((jobId) => {
      const record = this.#handed.takeRecord(jobId);
      const versionstamp = record && this.#stamps.get(record);
      return versionstamp ? { key: ["job", jobId], value: record, versionstamp } : null;
    });
    const unknown = jobIds.filter((_, i) => !known[i]);
    const read = unknown.length > 0
      ? (await getAll<StoredJobRecord>(this.#kv, unknown.map((id) => ["job", id])))
        .map((entry) => this.#seal.openedEntry(entry))
      : [];
    let next = 0;
    return known.map((entry) => entry ?? read[next++]);
  }

  /** Fails a job out of attempts; another lease or failure that got there first leaves nothing. */
  async #exhaust(record: JobRecord): Promise<void> {
    await this.fail(record, exhaustedError(record, this.maxAttempts)).catch((error) => {
      if (!(error instanceof LeaseLost)) throw error;
    });
  }

  async renew(record: JobRecord): Promise<JobRecord | null> {
    if (record.status !== "running") return null;
    try {
      return await this.#update(
        record,
        (stored) => renewedRecord(stored, this.leaseMs, this.#now()),
      );
    } catch (error) {
      if (error instanceof LeaseLost) return null;
      throw error;
    }
  }

  checkpoint(record: JobRecord, patch: Partial<JobRecord>): Promise<JobRecord> {
    return this.#update(record, (stored) => checkpointedRecord(stored, patch, this.#now()));
  }

  /** See `kv_job_ciphertexts.ts`. */
  saveCiphertext(record: JobRecord, ciphertext: Uint8Array<ArrayBuffer>): Promise<void> {
    return saveCiphertext(this.#records, this.#texts, record, ciphertext);
  }

  saveCiphertexts(items: CiphertextToSave[]): Promise<boolean[]> {
    return saveCiphertexts(this.#records, this.#texts, items);
  }

  ciphertext(jobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.#texts.ciphertext(jobId);
  }

  ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    return this.#texts.ciphertexts(jobIds);
  }

  async complete(record: JobRecord, patch: Partial<JobRecord>): Promise<void> {
    await this.#finish(record, (stored) => completedRecord(stored, patch, this.#now()));
  }

  /**
   * Up to 64 jobs per commit, which also drops their texts and ciphertexts of one chunk; larger
   * ones are dropped after it, as `complete` drops them.
   */
  async completeMany(items: JobCompletion[]): Promise<boolean[]> {
    const done: boolean[] = [];
    for (const slice of slices(items)) {
      const ids = slice.map((item) => item.record.job_id);
      const drop = await this.#texts.toDrop(ids);
      const results = await updateMany(
        this.#records,
        slice.map(({ record, patch }, i) => ({
          seen: record,
          change: (stored) => completedRecord(stored, patch, this.#now()),
          more: (op) => {
            op.delete(["job_active", ids[i]]);
            drop.deleteKnown(op, i);
          },
        })),
      );
      for (const [i, result] of results.entries()) {
        if (result && drop.more(i)) await this.#texts.drop(ids[i]);
        done.push(result !== null);
      }
    }
    return done;
  }

  /** Also records a dead letter under `["job_dead", id]`. */
  async fail(record: JobRecord, error: string): Promise<void> {
    await this.#finish(record, (stored) => failedRecord(stored, error, this.#now()));
    await this.#kv.set(["job_dead", record.job_id], this.#seal.deadLetter(record.job_id, error), {
      expireIn: RECORD_TTL_MS,
    });
  }

  async retry(
    record: JobRecord,
    error: string | undefined,
    delayMs: number,
    options: { counted?: boolean } = {},
  ): Promise<void> {
    await this.#update(
      record,
      (stored) => retriedRecord(stored, error, this.#now(), options.counted),
      (op) => enqueueJobs(op, [record.job_id], delayMs),
    );
  }

  async interrupted(record: JobRecord): Promise<void> {
    await this.#update(
      record,
      (stored) => interruptedRecord(stored, this.#now()),
      (op) => enqueueJobs(op, [record.job_id]),
    );
  }

  async redrive(jobId: string): Promise<void> {
    const op = this.#kv.atomic();
    enqueueJobs(op, [jobId]);
    await commit(op, "accept the job");
  }

  /** Finished jobs found in the `job_active` index are dropped from it on the way. */
  async *active(): AsyncGenerator<JobRecord> {
    for await (const entry of this.#kv.list({ prefix: ["job_active"] })) {
      const jobId = entry.key[1] as string;
      const record = await this.get(jobId);
      if (record && record.status !== "done" && record.status !== "failed") yield record;
      else await this.#kv.delete(entry.key);
    }
  }

  /**
   * Deno KV cannot stop a queue listener before its KV handle closes, and would share the
   * messages among several listeners, so a `KvJobQueue` listens once. When `signal` aborts,
   * the returned promise resolves and later deliveries are acknowledged without reaching
   * `handler`: their jobs stay `pending` in their records, and the reconciler re-drives them
   * at the next start. The underlying listener ends when the KV handle is closed.
   *
   * Jobs this queue accepts while it listens reach `handler` at once, without a message (see
   * `accept`).
   */
  listen(handler: JobHandler, options: ListenOptions = {}): Promise<void> {
    const { signal } = options;
    if (signal?.aborted) return Promise.resolve();
    if (this.#listening) {
      return Promise.reject(
        new SvcError("internal", "Cannot listen to the job queue: it already has a listener"),
      );
    }
    this.#listening = true;
    this.#worker = options.worker;
    this.#wake = (jobId) => {
      // The KV message is delivered anyway: a failure here is left to it.
      if (!signal?.aborted) Promise.resolve({ job_id: jobId }).then(handler).catch(() => {});
    };
    signal?.addEventListener("abort", () => {
      this.#wake = undefined;
      this.#worker = undefined;
      this.#handed.clear();
    }, { once: true });
    const listening = this.#kv.listenQueue(async (message: unknown) => {
      if (signal?.aborted) return;
      await Promise.all(jobIdsOf(message).map((jobId) => handler({ job_id: jobId })));
    });
    if (!signal) return listening;
    return new Promise<void>((resolve, reject) => {
      signal.addEventListener("abort", () => resolve(), { once: true });
      listening.then(resolve, reject);
    });
  }

  /**
   * Commits `change` of the stored record (none when `null`) with `more` operations, if the job
   * is still as `seen` shows it; reads again when another write won the race. Resolves to the
   * record written (or the stored one); throws `LeaseLost` when the job has moved on.
   */
  #update(
    seen: JobRecord,
    change: ((stored: JobRecord) => JobRecord) | null,
    more?: (op: Deno.AtomicOperation) => void,
  ): Promise<JobRecord> {
    return updateOne(this.#records, { seen, change, more });
  }

  /** Stores a finished record, drops it from the active index, drops its text and ciphertext. */
  async #finish(seen: JobRecord, change: (stored: JobRecord) => JobRecord): Promise<void> {
    const jobId = seen.job_id;
    await this.#update(seen, change, (op) => {
      op.delete(["job_active", jobId]).delete(["job_ciphertext", jobId]);
    });
    await this.#texts.drop(jobId);
  }
}
