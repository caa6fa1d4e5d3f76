/**
 * Reading `StateJobStore`'s jobs out of its state, as they are stored, for copying them into
 * another queue (`svc migrate-store`): each job record (opened) with its text still sealed (as
 * `job_texts.ts` sealed it) and the ciphertext its worker saved, and the dead letters.
 */
import type { JobRecord, KeyStore, StateStore } from "@svc/relayer/kit";
import {
  type CiphertextMark,
  type DeadLetter,
  type JobSeal,
  openTexts,
  type StoredDeadLetter,
  type StoredJobRecord,
} from "@svc/relayer/stored";

/** A job as `StateJobStore` keeps it. */
export interface StoredJob {
  /** The job's record, opened. */
  record: JobRecord;
  /**
   * The text, sealed, while the job waits; `null` once it finished (or, read with the keys, once
   * its memory was erased).
   */
  sealedText: Uint8Array<ArrayBuffer> | null;
  /** The ciphertext an attempt saved, whole; `null` when there is none. */
  ciphertext: { attempt: number; bytes: Uint8Array<ArrayBuffer> } | null;
}

/** The relayer's secret and the key store its queue kept its texts' keys in, if it did. */
export interface TextKeys {
  /** The relayer's 32 bytes. */
  secret: Uint8Array<ArrayBuffer>;
  /** The key store (`keys.sqlite`). */
  keyStore?: KeyStore;
}

/**
 * Every job record of `state` (a `StateJobStore`'s, its records sealed under `seal`), by id,
 * with its sealed text and ciphertext. With a key store, a text sealed under a key of its own is
 * sealed again under the secret's (as `PgJobQueue` reads it); without, it is given as it is,
 * which only its key opens.
 */
export async function* storedJobs(
  state: StateStore,
  seal: JobSeal,
  { secret, keyStore }: TextKeys,
): AsyncIterable<StoredJob> {
  const texts = await openTexts(state, secret, keyStore);
  for await (const { value } of state.list<StoredJobRecord>({ prefix: ["job"] })) {
    const record = seal.opened(value)!;
    const id = record.job_id;
    let sealedText = await texts.sealedPayload(id);
    if (sealedText && keyStore) sealedText = await texts.resealed(id, record.owner, sealedText);
    const mark = (await state.get<CiphertextMark>(["job_ciphertext", id]))?.value;
    // A ciphertext cut short is none: the job encrypts again.
    const [bytes] = mark ? await texts.ciphertexts([id]) : [null];
    const ciphertext = mark && bytes ? { attempt: mark.attempt, bytes } : null;
    yield { record, sealedText, ciphertext };
  }
}

/** Every dead letter of `state` (a `StateJobStore`'s, sealed under `seal`), by job id. */
export async function* deadLetters(state: StateStore, seal: JobSeal): AsyncIterable<DeadLetter> {
  for await (const { key, value } of state.list<StoredDeadLetter>({ prefix: ["job_dead"] })) {
    yield seal.openedDeadLetter(key[1] as string, value);
  }
}
