/**
 * How `PgJobStore` keeps a job record in a row of `svc_jobs_job`, and the keys it seals with.
 *
 * A row holds in clear only what the queue works with: the job id (random), its status, attempts,
 * interruptions, lease (worker id and time) and times, the blob and memory ids (which the
 * blob store and index key their own rows by). The owner and namespace are sealed together, the
 * last error on its own (AES-256-GCM under keys derived from the relayer's secret, the job id
 * bound in). Texts are sealed exactly as `StateJobStore` seals them (same key, same bound data), so
 * a text moved from a data directory needs no re-sealing.
 */
import { type JobRecord } from "@svc/relayer/kit";
import { LruMap } from "@svc/util/lru_map";
import { deriveAesKey, hkdfMaster, openBytes, sealBytes } from "@svc/util/sealing";

/** A row of `svc_jobs_job` as the client returns it (`bigint` columns as `BigInt`). */
export interface JobRow {
  job_id: string;
  status: JobRecord["status"];
  sealed_key: Uint8Array<ArrayBuffer>;
  sealed_error: Uint8Array<ArrayBuffer> | null;
  has_error: boolean;
  blob_id: string | null;
  memory_id: string | null;
  duplicate_of: string | null;
  attempts: number;
  interruptions: number;
  worker: string | null;
  lease_until: bigint | number | null;
  due_at: bigint | number | null;
  deliveries: number;
  created_at: bigint | number;
  updated_at: bigint | number;
}

/** How long records, texts, ciphertexts and dead letters are kept (as in `StateJobStore`). */
export const RECORD_TTL_MS = 7 * 24 * 3600_000;

/** The jobs whose owner and namespace are kept opened: a few worker batches' worth. */
const KEYS_KEPT = 4096;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `plain` sealed under `key`, bound to the job (`<label>:<job id>`). */
function seal(key: CryptoKey, label: string, jobId: string, plain: string) {
  return sealBytes(key, encoder.encode(plain), encoder.encode(`${label}:${jobId}`));
}

/** The text {@link seal} sealed. */
async function open(key: CryptoKey, label: string, jobId: string, sealed: Uint8Array<ArrayBuffer>) {
  return decoder.decode(await openBytes(key, sealed, encoder.encode(`${label}:${jobId}`)));
}

/** The seals of a job queue: its texts, and the owner, namespace and error of its records. */
export class JobSeals {
  #payloadKey: CryptoKey;
  #recordKey: CryptoKey;
  /** The owners and namespaces of the jobs seen last, by job id. */
  #keys = new LruMap<string, [string, string]>(KEYS_KEPT);

  private constructor(payloadKey: CryptoKey, recordKey: CryptoKey) {
    this.#payloadKey = payloadKey;
    this.#recordKey = recordKey;
  }

  /** The seals derived from the relayer's 32-byte `secret`. */
  static async derive(secret: Uint8Array<ArrayBuffer>): Promise<JobSeals> {
    const master = await hkdfMaster(secret);
    return new JobSeals(
      await deriveAesKey(master, "svc-job-payload-v1", new Uint8Array()),
      await deriveAesKey(master, "svc-pg-job-record-v1", new Uint8Array()),
    );
  }

  /** A job's text sealed, as it waits (as `StateJobStore` seals it). */
  sealText(jobId: string, text: string): Promise<Uint8Array<ArrayBuffer>> {
    return seal(this.#payloadKey, "svc-job", jobId, text);
  }

  /** The text `sealText` sealed. */
  openText(jobId: string, sealed: Uint8Array<ArrayBuffer>): Promise<string> {
    return open(this.#payloadKey, "svc-job", jobId, sealed);
  }

  /** A job's owner and namespace, sealed together. */
  sealKey(jobId: string, owner: string, namespace: string): Promise<Uint8Array<ArrayBuffer>> {
    this.#keys.set(jobId, [owner, namespace]);
    return seal(this.#recordKey, "svc-job-key", jobId, JSON.stringify([owner, namespace]));
  }

  /**
   * The owner and namespace a row seals. A job's never change, so those of the jobs seen last
   * are kept, opened: a job's row is read several times in its short life.
   */
  async #keyOf(row: JobRow): Promise<[string, string]> {
    const known = this.#keys.get(row.job_id);
    if (known) return known;
    const key = await open(this.#recordKey, "svc-job-key", row.job_id, row.sealed_key);
    const opened = JSON.parse(key) as [string, string];
    this.#keys.set(row.job_id, opened);
    return opened;
  }

  /** A job's error sentence, sealed; `null` for none. */
  async sealError(jobId: string, error?: string): Promise<Uint8Array<ArrayBuffer> | null> {
    return error === undefined ? null : await seal(this.#recordKey, "svc-job-error", jobId, error);
  }

  /**
   * The record a row holds, with the keys a record of the in-memory queue would have: the lease
   * fields once the job was leased, `error` once it was set (even to nothing), `interruptions`
   * once there was one.
   */
  async recordOf(row: JobRow): Promise<JobRecord> {
    const [owner, namespace] = await this.#keyOf(row);
    const record: JobRecord = {
      job_id: row.job_id,
      status: row.status,
      owner,
      namespace,
      attempts: row.attempts,
      created_at: new Date(Number(row.created_at)).toISOString(),
      updated_at: new Date(Number(row.updated_at)).toISOString(),
    };
    if (row.blob_id !== null) record.blob_id = row.blob_id;
    if (row.memory_id !== null) record.memory_id = row.memory_id;
    if (row.duplicate_of !== null) record.duplicate_of = row.duplicate_of;
    if (row.has_error) {
      record.error = row.sealed_error
        ? await open(this.#recordKey, "svc-job-error", row.job_id, row.sealed_error)
        : undefined;
    }
    if (row.attempts + row.interruptions > 0 || row.status !== "pending") {
      record.lease_until = row.lease_until === null ? undefined : Number(row.lease_until);
      record.worker = row.worker ?? undefined;
    }
    if (row.interruptions > 0) record.interruptions = row.interruptions;
    return record;
  }
}
