/**
 * Remember jobs in Deno KV: records, their queued payloads, and the queue that drives them.
 *
 * Accepting stages each text (sealed with AES-256-GCM under a key derived from the relayer's
 * secret, in chunks under KV's value limit), then writes every job record and enqueues every
 * job in one atomic commit, so a job exists exactly when its queue message does.
 */
import { SvcError } from "../errors.ts";
import { timeOrderedId } from "../ids.ts";

export type JobStatus = "pending" | "running" | "done" | "failed";

/** A job record as stored; `lease_until` and `worker` are internal. */
export interface JobRecord {
  job_id: string;
  status: JobStatus;
  owner: string;
  namespace: string;
  blob_id?: string;
  memory_id?: string;
  error?: string;
  attempts: number;
  created_at: string;
  updated_at: string;
  lease_until?: number;
  worker?: string;
}

/** The job as clients see it. */
export type PublicJob = Omit<JobRecord, "lease_until" | "worker">;

export function publicJob(record: JobRecord): PublicJob {
  const { lease_until: _lease, worker: _worker, ...job } = record;
  return job;
}

export interface JobInput {
  owner: string;
  namespace: string;
  text: string;
}

export interface JobMessage {
  job_id: string;
}

export interface JobQueueOptions {
  /** How long a worker holds a job before others may take it over. */
  leaseMs?: number;
  /** Attempts before a job is marked failed. */
  maxAttempts?: number;
}

const RECORD_TTL_MS = 7 * 24 * 3600_000;
const CHUNK_BYTES = 60_000;
const MAX_COMMIT_BYTES = 600_000;
const BACKOFF_SCHEDULE = [1_000, 5_000, 15_000, 60_000, 120_000];

export class JobQueue {
  readonly leaseMs: number;
  readonly maxAttempts: number;
  #kv: Deno.Kv;
  #payloadKey: CryptoKey;

  private constructor(kv: Deno.Kv, payloadKey: CryptoKey, options: JobQueueOptions) {
    this.#kv = kv;
    this.#payloadKey = payloadKey;
    this.leaseMs = options.leaseMs ?? 120_000;
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  /** Opens the queue on `kv`; `secret` (32 bytes) seals payloads waiting in KV. */
  static async open(kv: Deno.Kv, secret: Uint8Array<ArrayBuffer>, options: JobQueueOptions = {}) {
    const base = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
    const payloadKey = await crypto.subtle.deriveKey(
      {
        name: "HKDF",
        hash: "SHA-256",
        salt: new TextEncoder().encode("svc-job-payload-v1"),
        info: new Uint8Array(),
      },
      base,
      { name: "AES-GCM", length: 256 },
      false,
      ["encrypt", "decrypt"],
    );
    return new JobQueue(kv, payloadKey, options);
  }

  /** Stages payloads, then creates the records and enqueues the jobs in one commit. */
  async accept(inputs: JobInput[]): Promise<JobRecord[]> {
    const now = new Date().toISOString();
    const records: JobRecord[] = inputs.map((input) => ({
      job_id: timeOrderedId(),
      status: "pending",
      owner: input.owner,
      namespace: input.namespace,
      attempts: 0,
      created_at: now,
      updated_at: now,
    }));
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
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: sealed.subarray(0, 12), additionalData: this.#aad(jobId) },
      this.#payloadKey,
      sealed.subarray(12),
    );
    return new TextDecoder().decode(plain);
  }

  /**
   * Takes the job for `worker`: returns the running record, or `null` when the job is finished,
   * unknown, or leased by a live worker. A job past its attempts is failed instead.
   */
  async lease(jobId: string, worker: string): Promise<JobRecord | null> {
    const entry = await this.#kv.get<JobRecord>(["job", jobId]);
    const record = entry.value;
    if (!record || record.status === "done" || record.status === "failed") return null;
    if (record.status === "running" && (record.lease_until ?? 0) > Date.now()) return null;
    if (record.attempts >= this.maxAttempts) {
      await this.fail(record, record.error ?? "The job was interrupted too many times");
      return null;
    }
    const leased: JobRecord = {
      ...record,
      status: "running",
      attempts: record.attempts + 1,
      lease_until: Date.now() + this.leaseMs,
      worker,
      updated_at: new Date().toISOString(),
    };
    const result = await this.#kv.atomic().check(entry)
      .set(["job", jobId], leased, { expireIn: RECORD_TTL_MS }).commit();
    return result.ok ? leased : null;
  }

  /** Saves a stage's output on a record this worker holds. */
  async checkpoint(record: JobRecord, patch: Partial<JobRecord>): Promise<JobRecord> {
    const next = { ...record, ...patch, updated_at: new Date().toISOString() };
    await this.#kv.set(["job", record.job_id], next, { expireIn: RECORD_TTL_MS });
    return next;
  }

  /** Marks the job done and drops its payload. */
  async complete(record: JobRecord, patch: Partial<JobRecord>): Promise<void> {
    await this.#finish({ ...record, ...patch, status: "done", error: undefined });
  }

  /** Marks the job failed with a human sentence and records it as a dead letter. */
  async fail(record: JobRecord, error: string): Promise<void> {
    await this.#finish({ ...record, status: "failed", error });
    await this.#kv.set(["job_dead", record.job_id], { job_id: record.job_id, error }, {
      expireIn: RECORD_TTL_MS,
    });
  }

  /** Gives a job back after a failed attempt and schedules the next one. */
  async retry(record: JobRecord, error: string | undefined, delayMs: number): Promise<void> {
    const next: JobRecord = {
      ...record,
      status: "pending",
      error,
      lease_until: undefined,
      worker: undefined,
      updated_at: new Date().toISOString(),
    };
    const op = this.#kv.atomic().set(["job", record.job_id], next, { expireIn: RECORD_TTL_MS });
    this.#enqueue(op, record.job_id, delayMs);
    await this.#commit(op);
  }

  /** Enqueues a job again (the reconciler's re-drive). */
  async redrive(jobId: string): Promise<void> {
    const op = this.#kv.atomic();
    this.#enqueue(op, jobId);
    await this.#commit(op);
  }

  /** Records of jobs not yet done or failed (finished ones drop out of this index). */
  async *active(): AsyncGenerator<JobRecord> {
    for await (const entry of this.#kv.list({ prefix: ["job_active"] })) {
      const jobId = entry.key[1] as string;
      const record = await this.get(jobId);
      if (record && record.status !== "done" && record.status !== "failed") yield record;
      else await this.#kv.delete(entry.key);
    }
  }

  /** Delivers queued job ids to `handler` (call once per KV handle). */
  listen(handler: (message: JobMessage) => Promise<void>): Promise<void> {
    return this.#kv.listenQueue(async (message: unknown) => {
      const jobId = (message as Partial<JobMessage>)?.job_id;
      if (typeof jobId === "string") await handler({ job_id: jobId });
    });
  }

  async #finish(record: JobRecord): Promise<void> {
    const final: JobRecord = {
      ...record,
      lease_until: undefined,
      worker: undefined,
      updated_at: new Date().toISOString(),
    };
    await this.#kv.atomic()
      .set(["job", record.job_id], final, { expireIn: RECORD_TTL_MS })
      .delete(["job_active", record.job_id])
      .commit();
    for await (const entry of this.#kv.list({ prefix: ["job_payload", record.job_id] })) {
      await this.#kv.delete(entry.key);
    }
  }

  #enqueue(op: Deno.AtomicOperation, jobId: string, delay = 0) {
    op.enqueue({ job_id: jobId } satisfies JobMessage, {
      delay,
      backoffSchedule: BACKOFF_SCHEDULE,
      keysIfUndelivered: [["job_dead", jobId]],
    });
  }

  async #commit(op: Deno.AtomicOperation): Promise<void> {
    const result = await op.commit().catch((cause) => {
      throw new SvcError("backend_unavailable", "Cannot accept the job: the job store failed", {
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

  async #seal(jobId: string, text: string): Promise<Uint8Array<ArrayBuffer>> {
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const sealed = await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: this.#aad(jobId) },
      this.#payloadKey,
      new TextEncoder().encode(text),
    );
    const out = new Uint8Array(12 + sealed.byteLength);
    out.set(iv);
    out.set(new Uint8Array(sealed), 12);
    return out;
  }
}
