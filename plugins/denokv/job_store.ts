/**
 * `KvJobStore`: where the relayer's remember jobs live, in Deno KV (`KvJobQueue` is the state
 * machine over it).
 *
 * Creating seals each text (see `job_texts.ts`: under a key of its own, in the key store), then
 * writes every job record and enqueues one message for all of them in one atomic commit, with
 * the texts when they fit in it (larger ones are staged in commits of their own first), so a job
 * exists exactly when its queue message does, unless the queue hands it to its listener itself. Creates made while a commit is in
 * flight share the next one (`job_accept.ts`), and its message: Deno KV spends a sync to disk
 * on every commit and transactions on every message it delivers. Records and texts expire after
 * 7 days; a failed job leaves a dead letter.
 *
 * A write commits only if the stored record is still as the caller saw it (read, compared, then
 * written under a versionstamp check), up to 64 jobs a commit (Deno KV checks at most 100 keys
 * per commit), with what goes with it: the ciphertext kept, the text and ciphertext dropped, the
 * dead letter, the next message. A record this store wrote or read needs no read: the
 * versionstamp it was stored under is checked instead (`RecordStamps`).
 *
 * Keys: `["job", id]` the record; `["job_active", id]` unfinished jobs (for the reconciler);
 * `["job_dead", id]` dead letters; texts and ciphertexts as `job_texts.ts` says.
 */
import { deriveAesKey, hkdfMaster } from "@svc/util/sealing";
import type {
  CreateOptions,
  JobRecord,
  JobStore,
  JobWrite,
  KeyStore,
  StoredMessage,
} from "@svc/relayer/kit";
import { AcceptGroups } from "./job_accept.ts";
import { JobTextKeys } from "./job_keys.ts";
import {
  BATCH,
  enqueueJobs,
  failuresOf,
  jobIdsOf,
  type KvRecords,
  storeFailed,
  updateMany,
} from "./job_records.ts";
import { KvJobSeal, type StoredJobRecord } from "./job_seal.ts";
import {
  CHUNK_BYTES,
  getAll,
  KvJobTexts,
  MAX_COMMIT_BYTES,
  RECORD_TTL_MS,
  type TextsToDrop,
} from "./job_texts.ts";

/** The jobs in Deno KV; see the module documentation. */
export class KvJobStore implements JobStore {
  readonly #kv: Deno.Kv;
  readonly #texts: KvJobTexts;
  readonly #accepts: AcceptGroups;
  /** The KV, versionstamps and seal of the records, as `job_records.ts` takes them. */
  readonly #records: KvRecords;

  private constructor(kv: Deno.Kv, texts: KvJobTexts, seal: KvJobSeal) {
    this.#kv = kv;
    this.#records = { kv, stamps: new WeakMap(), seal };
    this.#texts = texts;
    this.#accepts = new AcceptGroups(kv, this.#texts, seal, (op, ids) => enqueueJobs(op, ids));
  }

  /**
   * The store on `kv`; `secret` (32 bytes) seals its records, and `keyStore` keeps the keys of
   * its waiting texts (see `job_texts.ts`; without one, the secret seals them too).
   */
  static async open(
    kv: Deno.Kv,
    secret: Uint8Array<ArrayBuffer>,
    keyStore?: KeyStore,
  ): Promise<KvJobStore> {
    const texts = await openTexts(kv, secret, keyStore);
    return new KvJobStore(kv, texts, await KvJobSeal.derive(secret));
  }

  /** In one commit shared with the creates made meanwhile; the claim rides in it. */
  async create(records: JobRecord[], texts: string[], options: CreateOptions = {}): Promise<void> {
    const versionstamp = await this.#accepts.commit(records, texts, {
      claim: options.claim,
      message: options.deliver !== false,
    });
    for (const record of records) this.#records.stamps.set(record, versionstamp);
  }

  async read(jobIds: string[]): Promise<(JobRecord | null)[]> {
    const { kv, seal, stamps } = this.#records;
    const entries = await getAll<StoredJobRecord>(kv, jobIds.map((id) => ["job", id]));
    return entries.map((stored) => {
      const entry = seal.openedEntry(stored);
      if (entry.value) stamps.set(entry.value, entry.versionstamp!);
      return entry.value;
    });
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
    const first = await Promise.all(group.map((write) => this.#stageCiphertext(write)));
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
    return written;
  }

  /**
   * Erases the text keys of the jobs of `finished` done as a duplicate: their memory is another
   * one, whose erase would not reach them. (A failed job's key stays: its memory may still hold
   * a row or a blob until it is withdrawn, and the key store shares its id.)
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

  /**
   * Commits the leading chunks of a ciphertext too large for one commit under the attempt's own
   * keys; resolves to the first chunk the write's commit sets (0 for one that fits).
   */
  #stageCiphertext({ seen, ciphertext }: JobWrite): Promise<number> {
    if (!ciphertext || ciphertext.byteLength <= CHUNK_BYTES) return Promise.resolve(0);
    return this.#texts.stageCiphertext(seen.job_id, seen.attempts, ciphertext);
  }

  /** Adds to `op` what goes with a write besides its record. */
  #with(
    op: Deno.AtomicOperation,
    { seen, ciphertext, finished, deadLetter, enqueueAfterMs }: JobWrite,
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
    if (enqueueAfterMs !== undefined) enqueueJobs(op, [jobId], enqueueAfterMs);
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
    const op = this.#kv.atomic();
    enqueueJobs(op, jobIds, delayMs, failures);
    await op.commit().catch((cause) => storeFailed("enqueue the job", cause));
  }

  /** Finished jobs found in the `job_active` index are dropped from it on the way. */
  async *active(): AsyncGenerator<JobRecord> {
    for await (const entry of this.#kv.list({ prefix: ["job_active"] })) {
      const [record] = await this.read([entry.key[1] as string]);
      if (record && record.status !== "done" && record.status !== "failed") yield record;
      else await this.#kv.delete(entry.key);
    }
  }

  /**
   * Deno KV cannot stop a queue listener before its KV handle closes, and would share the
   * messages among several listeners, so listen once. When `signal` aborts, the returned
   * promise resolves and later deliveries are acknowledged without reaching `handler`: their
   * jobs stay `pending` in their records, and the reconciler re-drives them at the next start.
   * The underlying listener ends when the KV handle is closed.
   */
  listen(handler: (message: StoredMessage) => Promise<void>, signal?: AbortSignal): Promise<void> {
    const listening = this.#kv.listenQueue(async (message: unknown) => {
      if (signal?.aborted) return;
      const failures = failuresOf(message);
      await Promise.all(jobIdsOf(message).map((job_id) => handler({ job_id, failures })));
    });
    if (!signal) return listening;
    return new Promise<void>((resolve, reject) => {
      signal.addEventListener("abort", () => resolve(), { once: true });
      listening.then(resolve, reject);
    });
  }
}

/**
 * The texts of a store on `kv`: each sealed under a key of its own kept in `keyStore`, or under
 * one derived from `secret` without it (which also opens those an earlier version sealed).
 */
export async function openTexts(
  kv: Deno.Kv,
  secret: Uint8Array<ArrayBuffer>,
  keyStore?: KeyStore,
): Promise<KvJobTexts> {
  const payloadKey = await deriveAesKey(
    await hkdfMaster(secret),
    "svc-job-payload-v1",
    new Uint8Array(),
  );
  const keys = keyStore ? await JobTextKeys.derive(secret, keyStore) : null;
  return new KvJobTexts(kv, payloadKey, keys);
}

/**
 * Whether an earlier attempt on the job may have left ciphertext chunks of its own (its last
 * commit never landed), which only a listing finds.
 */
function tried(seen: JobRecord): boolean {
  return seen.attempts > 1 || (seen.interruptions ?? 0) > 0;
}

/**
 * `changes` in groups one commit holds: up to 64 jobs and 600 KB of ciphertext; a ciphertext of
 * several chunks in a group of its own.
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
