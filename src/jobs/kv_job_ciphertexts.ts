/**
 * How `KvJobQueue` saves the ciphertext a job's attempt made: in the attempt's own keys (see
 * `kv_job_texts.ts`), marked complete by a commit that also checks the job is still the
 * worker's, so a worker that lost its lease never mixes its bytes with its successor's.
 */
import { type CiphertextToSave, type JobRecord, LeaseLost } from "./job_queue.ts";
import {
  CHUNK_BYTES,
  chunksOf,
  commit,
  type KvJobTexts,
  MAX_COMMIT_BYTES,
} from "./kv_job_texts.ts";
import {
  BATCH,
  type KvRecords,
  type RecordChange,
  updateMany,
  updateOne,
} from "./kv_job_records.ts";

/**
 * Saves `ciphertext` for the job `record` holds. Its chunks go a commit at a time when they are
 * many; the last commit marks them complete, if the job is still this worker's (else `LeaseLost`).
 */
export async function saveCiphertext(
  records: KvRecords,
  texts: KvJobTexts,
  record: JobRecord,
  ciphertext: Uint8Array<ArrayBuffer>,
): Promise<void> {
  const { kv } = records;
  const { job_id: jobId, attempts: attempt } = record;
  const chunks = chunksOf(ciphertext);
  // Chunks [first, c) wait for a commit; they hold `bytes`.
  let first = 0;
  for (let bytes = 0, c = 0; c < chunks.length; c++) {
    if (bytes + chunks[c].byteLength > MAX_COMMIT_BYTES) {
      const op = kv.atomic();
      for (; first < c; first++) texts.setChunk(op, jobId, attempt, first, chunks[first]);
      await commit(op, "save the ciphertext");
      bytes = 0;
    }
    bytes += chunks[c].byteLength;
  }
  await updateOne(records, {
    seen: record,
    change: null,
    more: (op) => texts.setCiphertext(op, jobId, attempt, chunks, first),
  });
}

/**
 * Saves ciphertexts of one chunk together, up to 64 jobs and 600 KB a commit; larger ones one
 * job at a time, as `saveCiphertext` saves them. `false` for a job no longer the worker's.
 */
export async function saveCiphertexts(
  records: KvRecords,
  texts: KvJobTexts,
  items: CiphertextToSave[],
): Promise<boolean[]> {
  const saved: boolean[] = new Array(items.length).fill(false);
  let group: number[] = [];
  let bytes = 0;
  const flush = async () => {
    const changes = group.map((i): RecordChange => ({
      seen: items[i].record,
      change: null,
      more: (op) => {
        const { record: { job_id, attempts }, ciphertext } = items[i];
        texts.setCiphertext(op, job_id, attempts, [ciphertext]);
      },
    }));
    const results = await updateMany(records, changes);
    group.forEach((i, at) => saved[i] = results[at] !== null);
    group = [];
    bytes = 0;
  };
  for (const [i, { record, ciphertext }] of items.entries()) {
    if (ciphertext.byteLength > CHUNK_BYTES) {
      saved[i] = await saveCiphertext(records, texts, record, ciphertext)
        .then(() => true, lostIsFalse);
      continue;
    }
    if (group.length === BATCH || bytes + ciphertext.byteLength > MAX_COMMIT_BYTES) await flush();
    group.push(i);
    bytes += ciphertext.byteLength;
  }
  if (group.length > 0) await flush();
  return saved;
}

/** `false` for a change refused with `LeaseLost`; any other error is thrown again. */
function lostIsFalse(error: unknown): false {
  if (error instanceof LeaseLost) return false;
  throw error;
}
