/**
 * How `StateJobStore` keeps job records and dead letters: in clear only what the queue
 * works with (status, attempts, lease, times, the blob and memory ids), the owner, namespace and
 * error sealed together (AES-256-GCM under a key derived from the relayer's secret, the job id
 * bound in), as `PgJobQueue` keeps them. A copy of the state names no owner, namespace or error.
 * A record an earlier version stored, in clear, is read as it is and sealed when next written;
 * `sealStoredRecords` seals them all at once (at start, before `jobs.kv` is scrubbed).
 *
 * @example
 * ```ts
 * const seal = await JobSeal.derive(secret);
 * await state.set(["job", record.job_id], seal.stored(record));
 * seal.opened((await state.get(["job", record.job_id]))!.value); // the record again
 * ```
 */
import { deriveRawKey, hkdfMaster, openNow, sealNow } from "@svc/util/sealing";
import { LruMap } from "@svc/util/lru_map";
import { rewriteEach, type StateEntry, type StateStore } from "../state/state_store.ts";
import type { JobRecord } from "./job_queue.ts";
import { RECORD_TTL_MS } from "./job_texts.ts";

/** A job record as stored: its owner, namespace and error in `sealed`. */
export type StoredJobRecord = Omit<JobRecord, "owner" | "namespace" | "error"> & {
  sealed: Uint8Array<ArrayBuffer>;
};

/** A dead letter as stored: a job that failed for good, its error sealed. */
export interface StoredDeadLetter {
  /** The job's id. */
  job_id: string;
  /** Its error, sealed. */
  sealed_error: Uint8Array<ArrayBuffer>;
}

/** A dead letter: a job that failed for good, and why. */
export interface DeadLetter {
  /** The job's id. */
  job_id: string;
  /** Why it failed. */
  error: string;
}

/** What a record seals: `e` only when the record has an `error` key (even undefined). */
interface Sealed {
  o: string;
  n: string;
  e?: string | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Seals kept for the jobs seen last: a job's record is written several times, its names once. */
const KNOWN = 10_000;

/** The seal of a `StateJobStore`'s records; see the module documentation. */
export class JobSeal {
  #key: Uint8Array<ArrayBuffer>;
  /** The last text sealed or opened for each bound value, with its seal. */
  #known = new LruMap<string, { text: string; sealed: Uint8Array<ArrayBuffer> }>(KNOWN);

  private constructor(key: Uint8Array<ArrayBuffer>) {
    this.#key = key;
  }

  /** The seal of the relayer's 32-byte `secret`. */
  static async derive(secret: Uint8Array<ArrayBuffer>): Promise<JobSeal> {
    return new JobSeal(await deriveRawKey(await hkdfMaster(secret), "svc-kv-job-record-v1", ""));
  }

  /** `record` as stored. */
  stored(record: JobRecord): StoredJobRecord {
    const { owner, namespace, error, ...kept } = record;
    const sealed: Sealed = { o: owner, n: namespace };
    if ("error" in record) sealed.e = error ?? null;
    return { ...kept, sealed: this.#seal(`record:${record.job_id}`, JSON.stringify(sealed)) };
  }

  /** The record `value` holds (one stored in clear, by an earlier version, as it is). */
  opened(value: StoredJobRecord | JobRecord | null): JobRecord | null {
    if (value === null || !("sealed" in value)) return value;
    const { sealed, ...kept } = value;
    const { o, n, e } = JSON.parse(this.#open(`record:${value.job_id}`, sealed)) as Sealed;
    const record: JobRecord = { ...kept, owner: o, namespace: n };
    if (e !== undefined) record.error = e ?? undefined;
    return record;
  }

  /** `entry` with its record opened. */
  openedEntry(entry: StateEntry<StoredJobRecord | JobRecord> | null): StateEntry<JobRecord> | null {
    return entry && { ...entry, value: this.opened(entry.value)! };
  }

  /** A dead letter as stored. */
  deadLetter(jobId: string, error: string): StoredDeadLetter {
    return { job_id: jobId, sealed_error: this.#seal(`dead:${jobId}`, error) };
  }

  /**
   * The dead letter of job `jobId` that `value` holds: one sealed, one an earlier version stored
   * in clear, or the queue message Deno KV stored when it gave up delivering one (earlier
   * versions asked it to).
   */
  openedDeadLetter(jobId: string, value: StoredDeadLetter | DeadLetter | object): DeadLetter {
    if ("sealed_error" in value) {
      return { job_id: jobId, error: this.#open(`dead:${jobId}`, value.sealed_error) };
    }
    if ("error" in value && typeof value.error === "string") {
      return { job_id: jobId, error: value.error };
    }
    return { job_id: jobId, error: UNDELIVERED };
  }

  /** `text` sealed for `bound`: the same seal again while the text is the same. */
  #seal(bound: string, text: string): Uint8Array<ArrayBuffer> {
    const known = this.#known.get(bound);
    if (known?.text === text) return known.sealed;
    const sealed = sealNow(this.#key, encoder.encode(text), aad(bound));
    this.#known.set(bound, { text, sealed });
    return sealed;
  }

  #open(bound: string, sealed: Uint8Array<ArrayBuffer>): string {
    const known = this.#known.get(bound);
    if (known && equalBytes(known.sealed, sealed)) return known.text;
    const text = decoder.decode(openNow(this.#key, sealed, aad(bound)));
    this.#known.set(bound, { text, sealed });
    return text;
  }
}

/** The error of a dead letter Deno KV stored: the queue's message, not delivered. */
const UNDELIVERED = "The job queue could not deliver the job";

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && a.every((byte, i) => byte === b[i]);
}

function aad(bound: string): Uint8Array {
  return encoder.encode(`svc-kv-job-${bound}`);
}

/**
 * Seals the records and dead letters an earlier version stored in clear in `state` (kept another
 * 7 days from now); resolves to how many.
 */
export async function sealStoredRecords(
  state: StateStore,
  secret: Uint8Array<ArrayBuffer>,
): Promise<number> {
  const seal = await JobSeal.derive(secret);
  const expires = { expireIn: RECORD_TTL_MS };
  const records = await rewriteEach<StoredJobRecord | JobRecord>(
    state,
    ["job"],
    (value) => "sealed" in value ? undefined : seal.stored(value),
    expires,
  );
  const letters = await rewriteEach<StoredDeadLetter | DeadLetter>(
    state,
    ["job_dead"],
    (value, key) =>
      "error" in value && typeof value.error === "string"
        ? seal.deadLetter(key[1] as string, value.error)
        : undefined,
    expires,
  );
  return records + letters;
}
