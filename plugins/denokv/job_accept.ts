/**
 * Group commit of `KvJobStore.create`: the accepts that arrive while a commit is in flight are
 * committed together by the next one, so that many clients remembering at once cost Deno KV one
 * commit (and one sync to disk) per group rather than one each. Each accept still lands whole
 * or not at all, and resolves only once the commit holding it has landed. An accept too large to
 * share a commit (its texts past the commit's budget, or more jobs than a commit checks) is
 * committed alone, its texts staged first.
 *
 * A commit writes, per job, its record (checked absent), its `job_active` key and its sealed
 * text (its key stored in the key store first, see `job_texts.ts`); one queue message for the jobs of the commit that need one (those not handed to a worker
 * in this process); and the replay claims of the requests accepting, where they are kept in the
 * same store (otherwise a claim is settled before its accept joins a commit).
 */
import type { CarriedClaim, JobRecord, PendingClaim } from "@svc/relayer/kit";
import type { KvJobSeal } from "./job_seal.ts";
import { chunksOf, commit, type KvJobTexts, MAX_COMMIT_BYTES, RECORD_TTL_MS } from "./job_texts.ts";

/** Jobs one commit accepts at most (each is one of its 100 checks). */
const GROUP_JOBS = 64;
/** Replay claims one commit carries at most (each is one more check). */
const GROUP_CLAIMS = 32;

/** An accept waiting for its commit. */
interface Waiting {
  records: JobRecord[];
  sealed: Uint8Array<ArrayBuffer>[];
  bytes: number;
  claim?: CarriedClaim;
  /** Whether its jobs need a queue message. */
  message: boolean;
  landed: PromiseWithResolvers<string>;
}

/** Commits accepted jobs in groups (see the module's documentation). */
export class AcceptGroups {
  #kv: Deno.Kv;
  #texts: KvJobTexts;
  #seal: KvJobSeal;
  #enqueue: (op: Deno.AtomicOperation, jobIds: string[]) => void;
  #waiting: Waiting[] = [];
  #committing = false;

  /**
   * Groups on `kv`, the records stored under `seal`; `enqueue` adds the queue message of a
   * commit's jobs to it.
   */
  constructor(
    kv: Deno.Kv,
    texts: KvJobTexts,
    seal: KvJobSeal,
    enqueue: (op: Deno.AtomicOperation, jobIds: string[]) => void,
  ) {
    this.#kv = kv;
    this.#texts = texts;
    this.#seal = seal;
    this.#enqueue = enqueue;
  }

  /**
   * Resolves once `records` with their `texts` are committed, with others or alone, and with
   * `pending`, the replay claim of the request accepting them (and with a queue message for them
   * when `message`); to the versionstamp of the commit that wrote the records.
   */
  async commit(
    records: JobRecord[],
    texts: string[],
    options: { claim?: PendingClaim; message: boolean },
  ): Promise<string> {
    const { claim: pending, message } = options;
    const claim = pending?.carriedBy?.(this.#kv);
    if (pending && !claim) await pending.settle();
    const ids = records.map((record) => record.job_id);
    // Each text's key is durable before the commit that writes the text (a crash between leaves
    // an unused key, erased with its memory id).
    const sealed = await Promise.all(
      records.map((record, i) => this.#texts.seal(record.job_id, record.owner, texts[i])),
    );
    const bytes = sealed.reduce((n, s) => n + s.byteLength, 0);
    if (bytes > MAX_COMMIT_BYTES || records.length > GROUP_JOBS) {
      await this.#texts.stagePayloads(ids, sealed);
      const op = this.#kv.atomic();
      this.#add(op, records, []);
      claim?.add(op);
      if (message) this.#enqueue(op, ids);
      const versionstamp = await commit(op, "accept the job");
      claim?.landed();
      return versionstamp;
    }
    const landed = Promise.withResolvers<string>();
    this.#waiting.push({ records, sealed, bytes, claim, message, landed });
    if (!this.#committing) this.#commitWaiting();
    return await landed.promise;
  }

  /** Commits the waiting accepts, a group at a time, until none waits. */
  async #commitWaiting(): Promise<void> {
    this.#committing = true;
    while (this.#waiting.length > 0) {
      const group: Waiting[] = [];
      let jobs = 0, claims = 0, bytes = 0;
      for (const next of this.#waiting) {
        if (jobs + next.records.length > GROUP_JOBS || bytes + next.bytes > MAX_COMMIT_BYTES) break;
        if (next.claim && claims === GROUP_CLAIMS) break;
        group.push(next);
        jobs += next.records.length;
        bytes += next.bytes;
        if (next.claim) claims++;
      }
      this.#waiting.splice(0, group.length);
      try {
        const op = this.#kv.atomic();
        for (const { records, sealed, claim } of group) {
          this.#add(op, records, sealed);
          claim?.add(op);
        }
        const ids = group.flatMap(({ records, message }) =>
          message ? records.map((record) => record.job_id) : []
        );
        if (ids.length > 0) this.#enqueue(op, ids);
        const versionstamp = await commit(op, "accept the job");
        for (const { claim, landed } of group) {
          claim?.landed();
          landed.resolve(versionstamp);
        }
      } catch (error) {
        for (const { landed } of group) landed.reject(error);
      }
    }
    this.#committing = false;
  }

  /** Adds the records of jobs, and their sealed texts (when not staged), to `op`. */
  #add(op: Deno.AtomicOperation, records: JobRecord[], sealed: Uint8Array<ArrayBuffer>[]) {
    for (const [i, record] of records.entries()) {
      const key = ["job", record.job_id];
      op.check({ key, versionstamp: null });
      op.set(key, this.#seal.stored(record), { expireIn: RECORD_TTL_MS });
      op.set(["job_active", record.job_id], record.created_at);
      if (!sealed[i]) continue;
      for (const [c, chunk] of chunksOf(sealed[i]).entries()) {
        op.set(["job_payload", record.job_id, c], chunk, { expireIn: RECORD_TTL_MS });
      }
    }
  }
}
