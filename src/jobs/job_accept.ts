/**
 * Group commit of `StateJobStore.create`: the accepts that arrive while a commit is in flight are
 * committed together by the next one, so that many clients remembering at once cost the store one
 * commit (Deno KV: one sync to disk) per group rather than one each. Each accept still lands whole
 * or not at all, and resolves only once the commit holding it has landed. An accept too large to
 * share a commit (its texts past the commit's budget, or more jobs than a commit checks) is
 * committed alone, its texts staged first.
 *
 * A commit writes, per job, its record (checked absent), its `job_active` key and its sealed
 * text (its key stored in the key store first, see `job_texts.ts`); and the replay claims of the
 * requests accepting, where they are kept in the same store (otherwise a claim is settled before
 * its accept joins a commit). Once it landed, one queue message goes for the jobs of the commit
 * that need one (those not handed to a worker in this process).
 */
import type { CarriedClaim, PendingClaim } from "../auth/replay_guard.ts";
import type { StateBatch, StateStore } from "../state/state_store.ts";
import type { JobRecord } from "./job_queue.ts";
import type { JobSeal } from "./job_seal.ts";
import { writeTogether } from "@svc/util/write_together";
import { chunksOf, commit, type JobTexts, MAX_COMMIT_BYTES, RECORD_TTL_MS } from "./job_texts.ts";

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
}

/** Commits accepted jobs in groups (see the module's documentation). */
export class AcceptGroups {
  #state: StateStore;
  #texts: JobTexts;
  #seal: JobSeal;
  #enqueue: (jobIds: string[]) => Promise<void>;
  /** The accepts made while a commit is in flight, in the next one. */
  #commitTogether = writeTogether((group: Waiting[]) => this.#commitGroup(group), {
    limits: [GROUP_JOBS, MAX_COMMIT_BYTES, GROUP_CLAIMS],
    weigh: ({ records, bytes, claim }) => [records.length, bytes, claim ? 1 : 0],
  });

  /**
   * Groups on `state`, the records stored under `seal`; `enqueue` sends the queue message of a
   * commit's jobs.
   */
  constructor(
    state: StateStore,
    texts: JobTexts,
    seal: JobSeal,
    enqueue: (jobIds: string[]) => Promise<void>,
  ) {
    this.#state = state;
    this.#texts = texts;
    this.#seal = seal;
    this.#enqueue = enqueue;
  }

  /**
   * Resolves once `records` with their `texts` are committed, with others or alone, and with
   * `pending`, the replay claim of the request accepting them (and with a queue message for them
   * when `message`).
   */
  async commit(
    records: JobRecord[],
    texts: string[],
    options: { claim?: PendingClaim; message: boolean },
  ): Promise<void> {
    const { claim: pending, message } = options;
    const claim = pending?.carriedBy?.(this.#state);
    if (pending && !claim) await pending.settle();
    // Each text's key is durable before the commit that writes the text (a crash between leaves
    // an unused key, erased with its memory id).
    const sealed = await Promise.all(
      records.map((record, i) => this.#texts.seal(record.job_id, record.owner, texts[i])),
    );
    const bytes = sealed.reduce((n, s) => n + s.byteLength, 0);
    if (bytes > MAX_COMMIT_BYTES || records.length > GROUP_JOBS) {
      // Too large to share a commit: its texts are staged, and its records committed alone.
      await this.#texts.stagePayloads(records.map((record) => record.job_id), sealed);
      await this.#commitGroup([{ records, sealed: [], bytes, claim, message }]);
      return;
    }
    await this.#commitTogether({ records, sealed, bytes, claim, message });
  }

  /** Commits a group of accepts, then sends the queue message of those that need one. */
  async #commitGroup(group: Waiting[]): Promise<void> {
    const op = this.#state.batch();
    for (const { records, sealed, claim } of group) {
      this.#add(op, records, sealed);
      claim?.add(op);
    }
    await commit(op, "accept the job");
    for (const { claim } of group) claim?.landed();
    const ids = group.flatMap(({ records, message }) =>
      message ? records.map((record) => record.job_id) : []
    );
    if (ids.length > 0) await this.#enqueue(ids);
  }

  /** Adds the records of jobs, and their sealed texts (when not staged), to `op`. */
  #add(op: StateBatch, records: JobRecord[], sealed: Uint8Array<ArrayBuffer>[]) {
    for (const [i, record] of records.entries()) {
      const key = ["job", record.job_id];
      op.check(key, null);
      op.set(key, this.#seal.stored(record), { expireIn: RECORD_TTL_MS });
      op.set(["job_active", record.job_id], record.created_at);
      if (!sealed[i]) continue;
      for (const [c, chunk] of chunksOf(sealed[i]).entries()) {
        op.set(["job_payload", record.job_id, c], chunk, { expireIn: RECORD_TTL_MS });
      }
    }
  }
}
