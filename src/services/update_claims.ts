/**
 * Which update job holds a memory it replaces. An update is a new version of a memory, stored by
 * a remember job; before storing it the worker claims the old memory for the new version, so
 * that of two updates of one memory only one goes on. A claim lasts {@link UPDATE_CLAIM_MS} (a
 * job's lease): a job that died holding it does not block the memory for ever, and the same job
 * resumed after a crash takes its own claim again.
 *
 * {@link MemoryUpdateClaims} keeps the claims in process memory (one relayer; the default);
 * {@link StateUpdateClaims} in the relayer's `StateStore`, for relayers sharing it (PostgreSQL).
 * `updateClaimsSuite` (in the testing module) checks an implementation.
 */

import { type StateStore, writeInBatches } from "../state/state_store.ts";
import { tagKey, tagOf } from "../state/tags.ts";

/** How long an update holds the memory it replaces against another update (a job's lease). */
export const UPDATE_CLAIM_MS = 120_000;

/** Claims of memories by the updates replacing them; see the module documentation. */
export interface UpdateClaims {
  /**
   * Claims `memoryId` for the update `by` (the new version's id) at `now` (Unix ms): `true`
   * when it was free, held by `by` already, or held by another for `UPDATE_CLAIM_MS` or more;
   * the claim then holds from `now`. `false` while another update holds it.
   */
  claim(memoryId: string, by: string, now: number): Promise<boolean>;
  /** Ends the claim of `by` on `memoryId`; a claim another update took since is left. */
  release(memoryId: string, by: string): Promise<void>;
  /** Whether `by` holds `memoryId` at `now` (claimed, not released, revoked or run out). */
  holds(memoryId: string, by: string, now: number): Promise<boolean>;
  /** Ends every claim on `memoryIds`: they were erased, and the updates on the way go too. */
  revoke(memoryIds: string[]): Promise<void>;
}

/** Update claims in process memory: correct for one relayer. */
export class MemoryUpdateClaims implements UpdateClaims {
  #claims = new Map<string, { by: string; at: number }>();

  claim(memoryId: string, by: string, now: number): Promise<boolean> {
    const held = this.#claims.get(memoryId);
    if (held && held.by !== by && now - held.at < UPDATE_CLAIM_MS) return Promise.resolve(false);
    this.#claims.set(memoryId, { by, at: now });
    return Promise.resolve(true);
  }

  release(memoryId: string, by: string): Promise<void> {
    if (this.#claims.get(memoryId)?.by === by) this.#claims.delete(memoryId);
    return Promise.resolve();
  }

  holds(memoryId: string, by: string, now: number): Promise<boolean> {
    const held = this.#claims.get(memoryId);
    return Promise.resolve(held?.by === by && now - held.at < UPDATE_CLAIM_MS);
  }

  revoke(memoryIds: string[]): Promise<void> {
    for (const id of memoryIds) this.#claims.delete(id);
    return Promise.resolve();
  }
}

/** A claim as stored: the update holding it (tagged) and since when (Unix ms). */
interface StoredClaim {
  by: string;
  at: number;
}

/**
 * Update claims in the relayer's `StateStore`, shared by the relayers that share it. Keys:
 * `["update_claim", memory]` → `{ by, at }`, both ids by keyed hashes (`tags.ts`), kept a claim's
 * length past its last change. A claim is taken by a batch that checks the entry it read, so of
 * updates claiming one memory at once exactly one wins.
 */
export class StateUpdateClaims implements UpdateClaims {
  readonly #state: StateStore;
  readonly #key: CryptoKey;

  private constructor(state: StateStore, key: CryptoKey) {
    this.#state = state;
    this.#key = key;
  }

  /** The claims in `state`, their ids hashed under keys derived from `secret`. */
  static async open(
    state: StateStore,
    secret: Uint8Array<ArrayBuffer>,
  ): Promise<StateUpdateClaims> {
    return new StateUpdateClaims(state, await tagKey(secret, "update claims"));
  }

  async #read(memoryId: string, by: string) {
    const [memory, update] = await Promise.all([tagOf(this.#key, memoryId), tagOf(this.#key, by)]);
    const key = ["update_claim", memory];
    return { key, update, held: await this.#state.get<StoredClaim>(key) };
  }

  async claim(memoryId: string, by: string, now: number): Promise<boolean> {
    const { key, update, held } = await this.#read(memoryId, by);
    const free = !held || held.value.by === update || now - held.value.at >= UPDATE_CLAIM_MS;
    if (!free) return false;
    return await this.#state.batch().check(key, held?.version ?? null)
      .set(key, { by: update, at: now }, { expireIn: 2 * UPDATE_CLAIM_MS }).commit();
  }

  async release(memoryId: string, by: string): Promise<void> {
    const { key, update, held } = await this.#read(memoryId, by);
    if (held?.value.by === update) {
      await this.#state.batch().check(key, held.version).delete(key).commit();
    }
  }

  async holds(memoryId: string, by: string, now: number): Promise<boolean> {
    const { update, held } = await this.#read(memoryId, by);
    return held?.value.by === update && now - held.value.at < UPDATE_CLAIM_MS;
  }

  async revoke(memoryIds: string[]): Promise<void> {
    const keys = await Promise.all(
      memoryIds.map(async (id) => ["update_claim", await tagOf(this.#key, id)]),
    );
    await writeInBatches(
      this.#state,
      keys,
      (batch, key) => batch.delete(key),
      "Cannot revoke the update claims",
    );
  }
}
