/**
 * What a reindex keeps so that it resumes after a crash: its plan, and a cursor per namespace
 * (the last memory id, in id order, written to the new index). A namespace is filed under a
 * keyed hash of its owner and name (`partitionNamer`), so the store names none. `ReindexState`
 * keeps it in the relayer's `StateStore`.
 */
import { deriveHmacKey, hkdfMaster } from "@svc/util/sealing";
import { type StateKey, type StateStore, writeInBatches } from "../state/state_store.ts";

/** The reindex under way: from which index to which, for which embedder. */
export interface ReindexPlan {
  /** The index being replaced (active when the reindex began). */
  from: string;
  /** The index being built. */
  to: string;
  /** The embedder it is built with. */
  model: string;
  /** The vector size of that embedder. */
  dimensions: number;
  /** Unix milliseconds. */
  startedAt: number;
}

/** How far a namespace got. */
export interface PartitionCursor {
  /** The last memory id done, in id order ("" before the first). */
  after: string;
  /** Memories written to the new index. */
  copied: number;
  /** Memories not written: left out (unreadable, a client's vector of another size) or erased. */
  skipped: number;
  /** Every memory of the namespace is done. */
  done: boolean;
}

/** Names a namespace by a keyed hash of its owner and name (22 base64url characters). */
type PartitionNamer = (owner: string, namespace: string) => Promise<string>;

/**
 * The names a reindex files its namespaces under, whichever store keeps them: HMAC-SHA-256 of
 * the owner and namespace under a key derived from `secret`.
 */
async function partitionNamer(secret: Uint8Array<ArrayBuffer>): Promise<PartitionNamer> {
  const naming = await deriveHmacKey(await hkdfMaster(secret), "svc-reindex-v1", "partition names");
  return async (owner, namespace) => {
    const mac = await crypto.subtle.sign(
      "HMAC",
      naming,
      new TextEncoder().encode(JSON.stringify([owner, namespace])),
    );
    return new Uint8Array(mac).toBase64({ alphabet: "base64url", omitPadding: true }).slice(0, 22);
  };
}

const PLAN = ["reindex", "plan"];
const CURSORS = ["reindex", "cursor"];

/**
 * A reindex's progress in the relayer's `StateStore`:
 *
 * ```
 * ["reindex", "plan"]               { from, to, model, dimensions, startedAt }
 * ["reindex", "cursor", partition]  { after, copied, skipped, done }: one per namespace
 * ```
 */
export class ReindexState {
  readonly #state: StateStore;
  readonly #name: PartitionNamer;

  private constructor(state: StateStore, name: PartitionNamer) {
    this.#state = state;
    this.#name = name;
  }

  /** The progress kept in `state`, its namespaces named under keys derived from `secret`. */
  static async open(state: StateStore, secret: Uint8Array<ArrayBuffer>): Promise<ReindexState> {
    return new ReindexState(state, await partitionNamer(secret));
  }

  async #key(owner: string, namespace: string): Promise<StateKey> {
    return [...CURSORS, await this.#name(owner, namespace)];
  }

  /** The reindex under way, or `null`. */
  async plan(): Promise<ReindexPlan | null> {
    return (await this.#state.get<ReindexPlan>(PLAN))?.value ?? null;
  }

  /** Starts a reindex: records `plan`, with no namespace done yet. */
  async begin(plan: ReindexPlan): Promise<void> {
    await this.clear();
    await this.#state.set(PLAN, plan);
  }

  /** A namespace's progress, or `null` before its first memory. */
  async cursor(owner: string, namespace: string): Promise<PartitionCursor | null> {
    return (await this.#state.get<PartitionCursor>(await this.#key(owner, namespace)))?.value ??
      null;
  }

  /** Records a namespace's progress. */
  async setCursor(owner: string, namespace: string, cursor: PartitionCursor): Promise<void> {
    await this.#state.set(await this.#key(owner, namespace), cursor);
  }

  /** Forgets the reindex: its plan and every cursor. */
  async clear(): Promise<void> {
    const keys: StateKey[] = [];
    for await (const { key } of this.#state.list({ prefix: CURSORS })) keys.push(key);
    await writeInBatches(
      this.#state,
      [...keys, PLAN],
      (batch, key) => batch.delete(key),
      "Cannot clear the reindex's progress",
    );
  }
}
