/**
 * Reading `KvJobQueue`'s state out of its Deno KV, as it is stored, for copying it into another
 * queue (`svc migrate-store`): each job record (opened) with its text still sealed (as
 * `job_texts.ts` sealed it) and the ciphertext its worker saved, and the dead letters.
 */
import type { JobRecord } from "@svc/relayer/kit";
import { concatBytes } from "@svc/util/sealing";
import type { DeadLetter, KvJobSeal, StoredDeadLetter, StoredJobRecord } from "./job_seal.ts";
import type { CiphertextMark } from "./job_texts.ts";

/** A job as `KvJobQueue` keeps it. */
export interface StoredJob {
  /** The job's record, opened. */
  record: JobRecord;
  /** The text, sealed, while the job waits; `null` once it finished. */
  sealedText: Uint8Array<ArrayBuffer> | null;
  /** The ciphertext an attempt saved, whole; `null` when there is none. */
  ciphertext: { attempt: number; bytes: Uint8Array<ArrayBuffer> } | null;
}

/**
 * Every job record of `kv` (a `KvJobQueue`'s, its records sealed under `seal`), by id, with its
 * sealed text and ciphertext.
 */
export async function* storedJobs(kv: Deno.Kv, seal: KvJobSeal): AsyncIterable<StoredJob> {
  for await (const { value } of kv.list<StoredJobRecord>({ prefix: ["job"] })) {
    const record = seal.opened(value)!;
    const id = record.job_id;
    const text = await Array.fromAsync(
      kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["job_payload", id] }),
      (entry) => entry.value,
    );
    const mark = (await kv.get<CiphertextMark>(["job_ciphertext", id])).value;
    let ciphertext: StoredJob["ciphertext"] = null;
    if (mark) {
      const chunks = await Array.fromAsync(
        kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["job_ciphertext_chunk", id, mark.attempt] }),
        (entry) => entry.value,
      );
      // A ciphertext cut short is none: the job encrypts again.
      if (chunks.length === mark.chunks) {
        ciphertext = { attempt: mark.attempt, bytes: concatBytes(...chunks) };
      }
    }
    yield { record, sealedText: text.length > 0 ? concatBytes(...text) : null, ciphertext };
  }
}

/** Every dead letter of `kv` (a `KvJobQueue`'s, sealed under `seal`), by job id. */
export async function* deadLetters(kv: Deno.Kv, seal: KvJobSeal): AsyncIterable<DeadLetter> {
  for await (const { key, value } of kv.list<StoredDeadLetter>({ prefix: ["job_dead"] })) {
    yield seal.openedDeadLetter(key[1] as string, value);
  }
}
