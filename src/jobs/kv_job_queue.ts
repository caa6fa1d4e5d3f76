/**
 * `KvJobQueue`: the job queue in Deno KV, what the relayer runs on.
 *
 * Accepting stages each text (sealed with AES-256-GCM under a key derived from the relayer's
 * secret, in chunks under KV's value limit), then writes every job record and enqueues every
 * job in one atomic commit, so a job exists exactly when its queue message does. Records and
 * texts expire after 7 days; a message KV gives up on leaves a dead letter.
 *
 * Every change made from a record commits only if the stored record is still as that record
 * shows it (read, compared, then written under a versionstamp check), so a worker whose lease
 * was taken over cannot write (see `LeaseLost`).
 *
 * Keys: `["job", id]` the record; `["job_payload", id, chunk]` the sealed text;
 * `["job_ciphertext", id]` which attempt's ciphertext is complete, and its chunk count;
 * `["job_ciphertext_chunk", id, attempt, chunk]` the ciphertext an attempt saved;
 * `["job_active", id]` unfinished jobs (for the reconciler); `["job_dead", id]` dead letters.
 */
import { SvcError } from "../errors.ts";
import {
  type JobHandler,
  type JobInput,
  type JobMessage,
  type JobQueue,
  type JobQueueOptions,
  type JobRecord,
  LeaseLost,
  type ListenOptions,
} from "./job_queue.ts";
import {
  acceptedRecord,
  BACKOFF_SCHEDULE,
  checkpointedRecord,
  completedRecord,
  failedRecord,
  leaseDecision,
  leasedRecord,
  renewedRecord,
  retriedRecord,
  stillAsSeen,
  TOO_MANY_ATTEMPTS,
} from "./job_transitions.ts";
import { deriveAesKey, hkdfMaster, openBytes, sealBytes } from "../crypto/sealing.ts";

const RECORD_TTL_MS = 7 * 24 * 3600_000;
const CHUNK_BYTES = 60_000;
const MAX_COMMIT_BYTES = 600_000;
/** Attempts of a change whose commit lost a race (with the same worker's renewal, say). */
const MAX_CONFLICTS = 20;

/** Which attempt's ciphertext chunks are complete. */
interface CiphertextMark {
  attempt: number;
  chunks: number;
}

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
  #payloadKey: CryptoKey;
  #listening = false;

  private constructor(kv: Deno.Kv, payloadKey: CryptoKey, options: JobQueueOptions) {
    this.#kv = kv;
    this.#payloadKey = payloadKey;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.#now = options.now ?? Date.now;
  }

  /** Opens the queue on `kv`; `secret` (32 bytes) seals payloads waiting in KV. */
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
    return new KvJobQueue(kv, payloadKey, options);
  }

  /** Stages payloads, then creates the records and enqueues the jobs in one commit. */
  async accept(inputs: JobInput[]): Promise<JobRecord[]> {
    const now = new Date(this.#now()).toISOString();
    const records = inputs.map((input) => acceptedRecord(input, now));
    let staged = this.#kv.atomic();
    let stagedBytes = 0;
    for (const [i, record] of records.entries()) {
      const sealed = await this.#seal(record.job_id, inputs[i].text);
      for (let c = 0, offset = 0; offset < sealed.byteLength; c++, offset += CHUNK_BYTES) {
        const chunk = sealed.subarray(offset, offset + CHUNK_BYTES);
        if (stagedBytes + chunk.byteLength > MAX_COMMIT_BYTES) {
          await this.#commit(staged);
          staged = this.#kv.atomic();
          stagedBytes = 0;
        }
        staged.set(["job_payload", record.job_id, c], chunk, { expireIn: RECORD_TTL_MS });
        stagedBytes += chunk.byteLength;
      }
    }
    await this.#commit(staged);
    const op = this.#kv.atomic();
    for (const record of records) {
      op.check({ key: ["job", record.job_id], versionstamp: null });
      op.set(["job", record.job_id], record, { expireIn: RECORD_TTL_MS });
      op.set(["job_active", record.job_id], record.created_at);
      this.#enqueue(op, record.job_id);
    }
    await this.#commit(op);
    return records;
  }

  get(jobId: string): Promise<JobRecord | null> {
    return this.#kv.get<JobRecord>(["job", jobId]).then((entry) => entry.value);
  }

  async getMany(jobIds: string[]): Promise<(JobRecord | null)[]> {
    const out: (JobRecord | null)[] = [];
    for (let i = 0; i < jobIds.length; i += 10) {
      const entries = await this.#kv.getMany<JobRecord[]>(
        jobIds.slice(i, i + 10).map((id) => ["job", id]),
      );
      out.push(...entries.map((entry) => entry.value));
    }
    return out;
  }

  /** The text of a job, or `null` once the job has finished and its payload is gone. */
  async payload(jobId: string): Promise<string | null> {
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    for await (
      const entry of this.#kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["job_payload", jobId] })
    ) {
      chunks.push(entry.value);
    }
    if (chunks.length === 0) return null;
    const sealed = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    chunks.reduce((offset, c) => (sealed.set(c, offset), offset + c.byteLength), 0);
    const plain = await openBytes(this.#payloadKey, sealed, this.#aad(jobId));
    return new TextDecoder().decode(plain);
  }

  async lease(jobId: string, worker: string): Promise<JobRecord | null> {
    const entry = await this.#kv.get<JobRecord>(["job", jobId]);
    const record = entry.value;
    const now = this.#now();
    const decision = leaseDecision(record, now, this.maxAttempts);
    if (decision === "exhausted") {
      // Another lease or failure that got there first leaves nothing to do.
      await this.fail(record!, record!.error ?? TOO_MANY_ATTEMPTS).catch((error) => {
        if (!(error instanceof LeaseLost)) throw error;
      });
    }
    if (decision !== "take") return null;
    const leased = leasedRecord(record!, worker, this.leaseMs, now);
    const result = await this.#kv.atomic().check(entry)
      .set(["job", jobId], leased, { expireIn: RECORD_TTL_MS }).commit();
    return result.ok ? leased : null;
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

  /**
   * Chunks go under the attempt's own keys (a commit at a time when they are many), so a
   * worker that lost its lease never mixes its bytes with its successor's; the last commit
   * marks them complete, if the job is still this worker's.
   */
  async saveCiphertext(record: JobRecord, ciphertext: Uint8Array<ArrayBuffer>): Promise<void> {
    const { job_id: jobId, attempts: attempt } = record;
    const chunks: Uint8Array<ArrayBuffer>[] = [];
    for (let offset = 0; offset < ciphertext.byteLength; offset += CHUNK_BYTES) {
      chunks.push(ciphertext.slice(offset, offset + CHUNK_BYTES));
    }
    // Chunks [first, c) wait for a commit; they hold `bytes`.
    let first = 0;
    for (let bytes = 0, c = 0; c < chunks.length; c++) {
      if (bytes + chunks[c].byteLength > MAX_COMMIT_BYTES) {
        const op = this.#kv.atomic();
        for (; first < c; first++) this.#setChunk(op, jobId, attempt, first, chunks[first]);
        await this.#commit(op, "save the ciphertext");
        bytes = 0;
      }
      bytes += chunks[c].byteLength;
    }
    const mark: CiphertextMark = { attempt, chunks: chunks.length };
    await this.#update(record, null, (op) => {
      for (let c = first; c < chunks.length; c++) this.#setChunk(op, jobId, attempt, c, chunks[c]);
      op.set(["job_ciphertext", jobId], mark, { expireIn: RECORD_TTL_MS });
    });
  }

  async ciphertext(jobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    const mark = (await this.#kv.get<CiphertextMark>(["job_ciphertext", jobId])).value;
    if (!mark) return null;
    const chunks = await Array.fromAsync(this.#kv.list<Uint8Array<ArrayBuffer>>({
      prefix: ["job_ciphertext_chunk", jobId, mark.attempt],
    }));
    if (chunks.length !== mark.chunks) return null;
    const out = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.value.byteLength, 0));
    chunks.reduce((offset, { value }) => (out.set(value, offset), offset + value.byteLength), 0);
    return out;
  }

  async complete(record: JobRecord, patch: Partial<JobRecord>): Promise<void> {
    await this.#finish(record, (stored) => completedRecord(stored, patch, this.#now()));
  }

  /** Also records a dead letter under `["job_dead", id]`. */
  async fail(record: JobRecord, error: string): Promise<void> {
    await this.#finish(record, (stored) => failedRecord(stored, error, this.#now()));
    await this.#kv.set(["job_dead", record.job_id], { job_id: record.job_id, error }, {
      expireIn: RECORD_TTL_MS,
    });
  }

  async retry(record: JobRecord, error: string | undefined, delayMs: number): Promise<void> {
    await this.#update(
      record,
      (stored) => retriedRecord(stored, error, this.#now()),
      (op) => this.#enqueue(op, record.job_id, delayMs),
    );
  }

  async redrive(jobId: string): Promise<void> {
    const op = this.#kv.atomic();
    this.#enqueue(op, jobId);
    await this.#commit(op);
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
    const listening = this.#kv.listenQueue(async (message: unknown) => {
      if (signal?.aborted) return;
      const jobId = (message as Partial<JobMessage>)?.job_id;
      if (typeof jobId === "string") await handler({ job_id: jobId });
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
  async #update(
    seen: JobRecord,
    change: ((stored: JobRecord) => JobRecord) | null,
    more?: (op: Deno.AtomicOperation) => void,
  ): Promise<JobRecord> {
    const key = ["job", seen.job_id];
    for (let conflicts = 0; conflicts < MAX_CONFLICTS; conflicts++) {
      const entry = await this.#kv.get<JobRecord>(key);
      if (!stillAsSeen(entry.value, seen)) throw new LeaseLost(seen.job_id);
      const next = change ? change(entry.value) : entry.value;
      const op = this.#kv.atomic().check(entry);
      if (change) op.set(key, next, { expireIn: RECORD_TTL_MS });
      more?.(op);
      const result = await op.commit().catch((cause) => {
        throw new SvcError("backend_unavailable", "Cannot update the job: the job store failed", {
          cause,
        });
      });
      if (result.ok) return next;
    }
    throw new SvcError("backend_unavailable", "Cannot update the job: too many competing writes");
  }

  /** Stores a finished record, drops it from the active index, drops its text and ciphertext. */
  async #finish(seen: JobRecord, change: (stored: JobRecord) => JobRecord): Promise<void> {
    const jobId = seen.job_id;
    await this.#update(seen, change, (op) => {
      op.delete(["job_active", jobId]).delete(["job_ciphertext", jobId]);
    });
    for (const prefix of [["job_payload", jobId], ["job_ciphertext_chunk", jobId]]) {
      for await (const entry of this.#kv.list({ prefix })) await this.#kv.delete(entry.key);
    }
  }

  #setChunk(
    op: Deno.AtomicOperation,
    jobId: string,
    attempt: number,
    chunk: number,
    bytes: Uint8Array<ArrayBuffer>,
  ): void {
    op.set(["job_ciphertext_chunk", jobId, attempt, chunk], bytes, { expireIn: RECORD_TTL_MS });
  }

  #enqueue(op: Deno.AtomicOperation, jobId: string, delay = 0) {
    op.enqueue({ job_id: jobId } satisfies JobMessage, {
      delay,
      backoffSchedule: BACKOFF_SCHEDULE,
      keysIfUndelivered: [["job_dead", jobId]],
    });
  }

  /** Commits `op`, which checks nothing but that a new job's id is free; `action` says why. */
  async #commit(op: Deno.AtomicOperation, action = "accept the job"): Promise<void> {
    const result = await op.commit().catch((cause) => {
      throw new SvcError("backend_unavailable", `Cannot ${action}: the job store failed`, {
        cause,
      });
    });
    if (!result.ok) {
      throw new SvcError("conflict", "Cannot accept the job: a job with this id already exists");
    }
  }

  #aad(jobId: string): Uint8Array<ArrayBuffer> {
    return new TextEncoder().encode(`svc-job:${jobId}`);
  }

  #seal(jobId: string, text: string): Promise<Uint8Array<ArrayBuffer>> {
    return sealBytes(this.#payloadKey, new TextEncoder().encode(text), this.#aad(jobId));
  }
}
