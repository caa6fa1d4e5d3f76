/**
 * Where `StateJobStore` keeps what waits with a job: its text, sealed, and the ciphertext its
 * worker saved, both in chunks under a state value's limit.
 *
 * A text is sealed (AES-256-GCM, the job id bound in) under a random key of its own, kept in the
 * key store at the job's memory id (`job_keys.ts`): `0x4b ‖ iv (12) ‖ ciphertext (+ 16 tag)`.
 * Erasing the memory erases the key, so what a store leaves of a deleted text (Deno KV's free
 * pages and log keep it until the next start rewrites `jobs.kv`) no longer opens. A store
 * opened without a key store (tests, tools on a state in memory), and earlier versions, seal it
 * under a key derived from the relayer's secret instead, `iv (12) ‖ ciphertext (+ 16 tag)`:
 * those are still read, so jobs accepted before an upgrade run after it.
 *
 * Keys: `["job_payload", id, chunk]` the sealed text; `["job_ciphertext", id]` which attempt's
 * ciphertext is complete, and its chunk count; `["job_ciphertext_chunk", id, attempt, chunk]`
 * the ciphertext an attempt saved. Everything expires after `RECORD_TTL_MS`.
 *
 * Reads of many jobs take one `getMany` for the common case, a text or ciphertext of one chunk,
 * and list the chunks of the others.
 */
import { concatBytes, openBytes, openNow, sealBytes, sealNow } from "@svc/util/sealing";
import { SvcError } from "../errors.ts";
import { STATE_LIMITS, type StateBatch, type StateStore } from "../state/state_store.ts";
import type { JobTextKeys } from "./job_text_keys.ts";
import type { JobRecord } from "./job_queue.ts";

/** How long records, texts and ciphertexts are kept. */
export const RECORD_TTL_MS = 7 * 24 * 3600_000;
/** The largest chunk of a text or ciphertext a value holds. */
export const CHUNK_BYTES = STATE_LIMITS.valueBytes;
/** The bytes of chunks one commit carries at most. */
export const MAX_COMMIT_BYTES = STATE_LIMITS.batchBytes;
/** The first byte of a text sealed under its job's own key. */
const KEYED = 0x4b;
const EXPIRES = { expireIn: RECORD_TTL_MS };

/** The key of chunk `chunk` of the ciphertext attempt `attempt` of a job saved. */
function chunkKey(jobId: string, attempt: number, chunk: number) {
  return ["job_ciphertext_chunk", jobId, attempt, chunk];
}

/** Which attempt's ciphertext chunks are complete. */
export interface CiphertextMark {
  /** The attempt that wrote them. */
  attempt: number;
  /** How many chunks there are. */
  chunks: number;
}

/** `bytes` cut into chunks of `CHUNK_BYTES` (one, possibly empty, at least). */
export function chunksOf(bytes: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer>[] {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  for (let offset = 0; offset < bytes.byteLength || offset === 0; offset += CHUNK_BYTES) {
    chunks.push(bytes.slice(offset, offset + CHUNK_BYTES));
  }
  return chunks;
}

/** What finishing jobs removes: set on the finishing commit; the rest listed afterwards. */
export interface TextsToDrop {
  /** Adds the deletes of job `index`'s known keys to `op`. */
  deleteKnown(op: StateBatch, index: number): void;
  /** Whether job `index` may have more keys than `deleteKnown` removes. */
  more(index: number): boolean;
}

/** The texts and ciphertexts of `StateJobStore`'s jobs. */
export class JobTexts {
  #state: StateStore;
  #payloadKey: CryptoKey;
  #keys: JobTextKeys | null;

  /**
   * Texts kept in `state`, each sealed under a key of its own kept in `keys`; without `keys`,
   * under `payloadKey` (derived from the secret), which also opens the texts sealed so before.
   */
  constructor(state: StateStore, payloadKey: CryptoKey, keys: JobTextKeys | null) {
    this.#state = state;
    this.#payloadKey = payloadKey;
    this.#keys = keys;
  }

  /**
   * Commits the sealed texts of `jobIds` in commits of their own, for an accept whose texts do
   * not fit its commit (they are read only once it landed, since a job exists only once its
   * record does).
   */
  async stagePayloads(jobIds: string[], sealed: Uint8Array<ArrayBuffer>[]): Promise<void> {
    let staged = this.#state.batch();
    let stagedBytes = 0;
    for (const [i, bytes] of sealed.entries()) {
      for (const [c, chunk] of chunksOf(bytes).entries()) {
        if (stagedBytes + chunk.byteLength > MAX_COMMIT_BYTES) {
          await commit(staged, "accept the job");
          staged = this.#state.batch();
          stagedBytes = 0;
        }
        staged.set(["job_payload", jobIds[i], c], chunk, EXPIRES);
        stagedBytes += chunk.byteLength;
      }
    }
    await commit(staged, "accept the job");
  }

  /**
   * The text of job `jobId` of `owner` (`undefined`: no record), or `null` once the job finished
   * and its text is gone, or its memory was erased and its key with it.
   */
  async payload(jobId: string, owner: string | undefined): Promise<string | null> {
    const sealed = await this.sealedPayload(jobId);
    return sealed && await this.#open(jobId, owner, sealed);
  }

  /** The sealed text of a job, its chunks joined, or `null` when there is none. */
  async sealedPayload(jobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    const chunks = await Array.fromAsync(
      this.#state.list<Uint8Array<ArrayBuffer>>({ prefix: ["job_payload", jobId] }),
    );
    return chunks.length === 0 ? null : concatBytes(...chunks.map((entry) => entry.value));
  }

  /** `payload` of each job, in order; `owners` are the jobs' owners. */
  async payloads(jobIds: string[], owners: (string | undefined)[]): Promise<(string | null)[]> {
    const firsts = await this.#state.getMany<Uint8Array<ArrayBuffer>>(
      jobIds.map((jobId) => ["job_payload", jobId, 0]),
    );
    return await Promise.all(jobIds.map((jobId, i) => {
      const first = firsts[i]?.value;
      if (!first) return null;
      // A full first chunk may have others after it.
      return first.byteLength < CHUNK_BYTES
        ? this.#open(jobId, owners[i], first)
        : this.payload(jobId, owners[i]);
    }));
  }

  /**
   * Commits the leading chunks of the ciphertext of job `seen`'s attempt, as many commits as they
   * take, when it does not fit in one; resolves to the first chunk left for the commit that marks
   * it complete (`setCiphertext`): 0 for one chunk at most.
   */
  async stageCiphertext(seen: JobRecord, ciphertext?: Uint8Array<ArrayBuffer>): Promise<number> {
    if (!ciphertext || ciphertext.byteLength <= CHUNK_BYTES) return 0;
    const { job_id: jobId, attempts: attempt } = seen;
    const chunks = chunksOf(ciphertext);
    // Chunks [first, c) wait for a commit; they hold `bytes`.
    let first = 0;
    for (let bytes = 0, c = 0; c < chunks.length; c++) {
      if (bytes + chunks[c].byteLength > MAX_COMMIT_BYTES) {
        const op = this.#state.batch();
        for (; first < c; first++) op.set(chunkKey(jobId, attempt, first), chunks[first], EXPIRES);
        await commit(op, "save the ciphertext");
        bytes = 0;
      }
      bytes += chunks[c].byteLength;
    }
    return first;
  }

  /**
   * Sets on `op` the ciphertext of attempt `attempt` of a job, in chunks, and its mark; the
   * chunks of `first` onwards only, when earlier ones were staged already.
   */
  setCiphertext(
    op: StateBatch,
    jobId: string,
    attempt: number,
    ciphertext: Uint8Array<ArrayBuffer>,
    first = 0,
  ): void {
    const chunks = chunksOf(ciphertext);
    for (let c = first; c < chunks.length; c++) {
      op.set(chunkKey(jobId, attempt, c), chunks[c], EXPIRES);
    }
    const mark: CiphertextMark = { attempt, chunks: chunks.length };
    op.set(["job_ciphertext", jobId], mark, EXPIRES);
  }

  /** The ciphertext saved for each job, in order, `null` where none was (or the job finished). */
  async ciphertexts(jobIds: string[]): Promise<(Uint8Array<ArrayBuffer> | null)[]> {
    const marks = await this.#state.getMany<CiphertextMark>(
      jobIds.map((jobId) => ["job_ciphertext", jobId]),
    );
    const single = jobIds.flatMap((jobId, i) => {
      const mark = marks[i]?.value;
      return mark?.chunks === 1 ? [["job_ciphertext_chunk", jobId, mark.attempt, 0]] : [];
    });
    const chunks = new Map(
      (await this.#state.getMany<Uint8Array<ArrayBuffer>>(single))
        .flatMap((entry) => entry ? [[entry.key[1], entry.value]] : []),
    );
    return await Promise.all(jobIds.map((jobId, i) => {
      const mark = marks[i]?.value;
      if (!mark) return null;
      return mark.chunks === 1 ? chunks.get(jobId) ?? null : this.#ciphertextOf(jobId, mark);
    }));
  }

  async #ciphertextOf(jobId: string, mark: CiphertextMark) {
    const chunks = await Array.fromAsync(this.#state.list<Uint8Array<ArrayBuffer>>({
      prefix: ["job_ciphertext_chunk", jobId, mark.attempt],
    }));
    return chunks.length === mark.chunks
      ? concatBytes(...chunks.map((entry) => entry.value))
      : null;
  }

  /**
   * What finishing `jobIds` removes. A job's text of one chunk and its ciphertext mark and
   * chunk go with the finishing commit; a longer text, or a ciphertext of several chunks (which
   * an attempt that lost its lease may have left others of), is also listed afterwards (`drop`).
   */
  async toDrop(jobIds: string[]): Promise<TextsToDrop> {
    // One read for both (a read costs about as much whatever its few keys).
    const read = await this.#state.getMany([
      ...jobIds.map((jobId) => ["job_ciphertext", jobId]),
      ...jobIds.map((jobId) => ["job_payload", jobId, 1]),
    ]);
    const marks = read.slice(0, jobIds.length).map((entry) => entry?.value as CiphertextMark);
    const seconds = read.slice(jobIds.length);
    return {
      deleteKnown(op, index) {
        const jobId = jobIds[index];
        op.delete(["job_ciphertext", jobId]).delete(["job_payload", jobId, 0]);
        const mark = marks[index];
        if (mark?.chunks === 1) op.delete(["job_ciphertext_chunk", jobId, mark.attempt, 0]);
      },
      more: (index) => seconds[index] !== null || (marks[index]?.chunks ?? 1) > 1,
    };
  }

  /** Removes every chunk of a job's text and ciphertexts, one by one. */
  async drop(jobId: string): Promise<void> {
    for (const prefix of [["job_payload", jobId], ["job_ciphertext_chunk", jobId]]) {
      for await (const entry of this.#state.list({ prefix })) await this.#state.delete(entry.key);
    }
  }

  /**
   * A job's text sealed, as it waits: under a new key of its own, durable in the key store once
   * this resolves (without a key store, under the secret's).
   */
  async seal(jobId: string, owner: string, text: string): Promise<Uint8Array<ArrayBuffer>> {
    const plain = new TextEncoder().encode(text);
    if (!this.#keys) return await sealBytes(this.#payloadKey, plain, legacyAad(jobId));
    const key = await this.#keys.create(owner, jobId);
    try {
      return concatBytes(new Uint8Array([KEYED]), sealNow(key, plain, keyedAad(jobId)));
    } finally {
      key.fill(0);
    }
  }

  /**
   * `sealed` as a store without a key store seals it (under the secret's key, as `PgJobQueue`
   * reads it too), or `null` when it no longer opens (its memory erased).
   */
  async resealed(
    jobId: string,
    owner: string,
    sealed: Uint8Array<ArrayBuffer>,
  ): Promise<Uint8Array<ArrayBuffer> | null> {
    if (sealed[0] !== KEYED) return sealed;
    const text = await this.#open(jobId, owner, sealed);
    if (text === null) return null;
    return await sealBytes(this.#payloadKey, new TextEncoder().encode(text), legacyAad(jobId));
  }

  /**
   * Erases the text keys of finished jobs of `owner` that are no memory of their own (done as a
   * duplicate of another): no erase would reach them, and what `jobs.kv` keeps of their texts no
   * longer opens. Best effort: the next start's rewrite of `jobs.kv` drops those texts.
   */
  async forget(owner: string, jobIds: string[]): Promise<void> {
    await this.#keys?.erase(owner, jobIds).catch(() => {});
  }

  /** What `seal` sealed; `null` when the text's key was erased. */
  async #open(
    jobId: string,
    owner: string | undefined,
    sealed: Uint8Array<ArrayBuffer>,
  ): Promise<string | null> {
    if (sealed[0] !== KEYED || !this.#keys) return await this.#openLegacy(jobId, sealed);
    const key = owner === undefined ? null : await this.#keys.get(owner, jobId);
    if (!key) {
      // Erased; unless sealed under the secret's key by an earlier version, its IV's first byte
      // the marker by chance.
      return await this.#openLegacy(jobId, sealed).catch(() => null);
    }
    try {
      return new TextDecoder().decode(openNow(key, sealed.subarray(1), keyedAad(jobId)));
    } finally {
      key.fill(0);
    }
  }

  async #openLegacy(jobId: string, sealed: Uint8Array<ArrayBuffer>): Promise<string> {
    const plain = await openBytes(this.#payloadKey, sealed, legacyAad(jobId));
    return new TextDecoder().decode(plain);
  }
}

/** What a text sealed under the secret's key binds: its job id. */
function legacyAad(jobId: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`svc-job:${jobId}`);
}

/** What a text sealed under its own key binds: its job id. */
function keyedAad(jobId: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`svc-job-text:${jobId}`);
}

/** Throws the error of a job store that failed to `action`. */
export function storeFailed(action: string, cause: unknown): never {
  throw new SvcError("backend_unavailable", `Cannot ${action}: the job store failed`, { cause });
}

/** Commits `op`, which checks nothing but that a new job's id is free; `action` says why. */
export async function commit(op: StateBatch, action: string): Promise<void> {
  const ok = await op.commit().catch((cause) => storeFailed(action, cause));
  if (!ok) {
    throw new SvcError("conflict", "Cannot accept the job: a job with this id already exists");
  }
}
