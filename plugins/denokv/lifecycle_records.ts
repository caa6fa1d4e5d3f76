/**
 * What the relayer keeps about memories' lives, in its Deno KV: which memories were erased
 * (so restore never brings one back from a blob that survived, a backup put back for instance,
 * and deletes that blob), and when memories expire (so the sweep finds them after a restart).
 *
 * Keys: `["erased", owner, memoryId]` → Unix ms of the erase (what its receipt names);
 * `["expiry", expiresAt, memoryId]` → `{sealed}`, the owner and namespace sealed together
 * (`ExpirySeal`, as the PostgreSQL store seals them), in expiry order. An entry an earlier
 * version kept in clear (`{owner, namespace}`) is read as it is, and sealed by `sealStored`.
 *
 * Recording memories erased also erases their keys from the key store the job queue keeps its
 * texts' keys in, when given one: whatever the cipher (Seal keeps no key there), what `jobs.kv`
 * still holds of their jobs' texts no longer opens once the erase is recorded.
 */
import {
  type Expiry,
  ExpirySeal,
  type KeyStore,
  type LifecycleRecordStore,
} from "@svc/relayer/kit";
import { getAll, rewriteEach } from "./job_texts.ts";

/** KV allows 1000 mutations a commit; fewer keep each commit small. */
const PER_COMMIT = 200;

async function commitAll<T>(
  kv: Deno.Kv,
  items: T[],
  apply: (op: Deno.AtomicOperation, item: T) => void,
): Promise<void> {
  for (let i = 0; i < items.length; i += PER_COMMIT) {
    const op = kv.atomic();
    for (const item of items.slice(i, i + PER_COMMIT)) apply(op, item);
    const result = await op.commit();
    if (!result.ok) throw new Error("Cannot record the memories' lifecycle: a commit failed");
  }
}

/** An owner and namespace as an expiry keeps them: sealed, or in clear (an earlier version). */
type ExpiryValue = { sealed: Uint8Array<ArrayBuffer> } | { owner: string; namespace: string };

/** The erased memories and the expiry schedule in Deno KV; see the module documentation. */
export class LifecycleRecords implements LifecycleRecordStore {
  #kv: Deno.Kv;
  #seal: ExpirySeal;
  #keys?: KeyStore;

  /**
   * The records in `kv`, the expiries sealed under the relayer's 32-byte `secret`; `keyStore`
   * keeps the keys of the job queue's texts (see the module documentation).
   */
  constructor(kv: Deno.Kv, secret: Uint8Array<ArrayBuffer>, keyStore?: KeyStore) {
    this.#kv = kv;
    this.#seal = new ExpirySeal(secret);
    this.#keys = keyStore;
  }

  /** The owner and namespace of the expiry at `key` that `value` holds. */
  #opened(key: Deno.KvKey, value: ExpiryValue): { owner: string; namespace: string } {
    if (!("sealed" in value)) return { owner: value.owner, namespace: value.namespace };
    return this.#seal.open(key[1] as number, key[2] as string, value.sealed);
  }

  /** Seals the expiries an earlier version kept in clear; resolves to how many. */
  sealStored(): Promise<number> {
    return rewriteEach<ExpiryValue>(this.#kv, ["expiry"], (value, key) => {
      if ("sealed" in value) return undefined;
      const [, expiresAt, memoryId] = key as [string, number, string];
      return { sealed: this.#seal.seal({ ...value, expiresAt, memoryId }) };
    });
  }

  /**
   * Records erases, and drops the erased memories from the expiry schedule; their jobs' text
   * keys are erased first (again, with a local cipher that keeps its keys in the same store).
   */
  async markErased(
    owner: string,
    memories: { memoryId: string; expiresAt?: number }[],
    erasedAt: number,
  ): Promise<void> {
    if (memories.length === 0) return;
    await this.#keys?.erase(owner, memories.map(({ memoryId }) => memoryId));
    await commitAll(this.#kv, memories, (op, { memoryId, expiresAt }) => {
      op.set(["erased", owner, memoryId], erasedAt);
      if (expiresAt !== undefined) op.delete(["expiry", expiresAt, memoryId]);
    });
  }

  /** Which of `memoryIds` were erased. */
  async erased(owner: string, memoryIds: string[]): Promise<Set<string>> {
    const entries = await getAll(this.#kv, memoryIds.map((id) => ["erased", owner, id]));
    return new Set(memoryIds.filter((_, i) => entries[i].versionstamp !== null));
  }

  /** Adds memories to the expiry schedule. */
  async schedule(expiries: Expiry[]): Promise<void> {
    await commitAll(this.#kv, expiries, (op, expiry) => {
      op.set(["expiry", expiry.expiresAt, expiry.memoryId], { sealed: this.#seal.seal(expiry) });
    });
  }

  /** Takes these entries off the expiry schedule. */
  async unschedule(expiries: Pick<Expiry, "memoryId" | "expiresAt">[]): Promise<void> {
    await commitAll(this.#kv, expiries, (op, { expiresAt, memoryId }) => {
      op.delete(["expiry", expiresAt, memoryId]);
    });
  }

  /** The memories expired at `now`, soonest first, at most `limit`. */
  async due(now: number, limit: number): Promise<Expiry[]> {
    const due: Expiry[] = [];
    const entries = this.#kv.list<ExpiryValue>(
      { start: ["expiry"], end: ["expiry", now + 1] },
      { limit },
    );
    for await (const { key, value } of entries) {
      due.push({
        expiresAt: key[1] as number,
        memoryId: key[2] as string,
        ...this.#opened(key, value),
      });
    }
    return due;
  }

  /** Every erase recorded, by owner then memory id (for copying the records elsewhere). */
  async *erasedEntries(): AsyncIterable<{ owner: string; memoryId: string; erasedAt: number }> {
    for await (const entry of this.#kv.list<number>({ prefix: ["erased"] })) {
      const [, owner, memoryId] = entry.key as [string, string, string];
      yield { owner, memoryId, erasedAt: entry.value };
    }
  }

  /** The whole expiry schedule, soonest first (for copying the records elsewhere). */
  async *expiries(): AsyncIterable<Expiry> {
    for await (const { key, value } of this.#kv.list<ExpiryValue>({ prefix: ["expiry"] })) {
      const [, expiresAt, memoryId] = key as [string, number, string];
      yield { memoryId, ...this.#opened(key, value), expiresAt };
    }
  }
}
