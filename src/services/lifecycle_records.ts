/**
 * What the relayer keeps about memories' lives, in its Deno KV: which memories were erased
 * (so restore never brings one back from a blob that survived, a backup put back for instance,
 * and deletes that blob), and when memories expire (so the sweep finds them after a restart).
 *
 * Keys: `["erased", owner, memoryId]` → Unix ms of the erase; `["expiry", expiresAt, memoryId]`
 * → `{owner, namespace}`, in expiry order.
 */
import { getAll } from "../jobs/kv_job_texts.ts";

/** A memory due to expire. */
export interface Expiry {
  /** The memory's id. */
  memoryId: string;
  /** The owner's address. */
  owner: string;
  /** The namespace the memory is in. */
  namespace: string;
  /** Unix milliseconds. */
  expiresAt: number;
}

/**
 * Where the relayer keeps the erased memories and the expiry schedule. {@link LifecycleRecords}
 * keeps them in Deno KV (the default); a store shared by several relayers (PostgreSQL) may lease
 * what `due` returns to one caller at a time for a while, so that relayers sweeping together
 * erase each memory once. `lifecycleRecordStoreSuite` (in the testing module) checks a store.
 */
export interface LifecycleRecordStore {
  /** Records erases, and drops the erased memories from the expiry schedule. */
  markErased(
    owner: string,
    memories: { memoryId: string; expiresAt?: number }[],
    erasedAt: number,
  ): Promise<void>;
  /** Which of `memoryIds` were erased. */
  erased(owner: string, memoryIds: string[]): Promise<Set<string>>;
  /** Adds memories to the expiry schedule. */
  schedule(expiries: Expiry[]): Promise<void>;
  /** The memories expired at `now`, soonest first, at most `limit`. */
  due(now: number, limit: number): Promise<Expiry[]>;
}

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

/** The erased memories and the expiry schedule in Deno KV; see the module documentation. */
export class LifecycleRecords implements LifecycleRecordStore {
  #kv: Deno.Kv;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Records erases, and drops the erased memories from the expiry schedule. */
  async markErased(
    owner: string,
    memories: { memoryId: string; expiresAt?: number }[],
    erasedAt: number,
  ): Promise<void> {
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
    await commitAll(this.#kv, expiries, (op, { memoryId, owner, namespace, expiresAt }) => {
      op.set(["expiry", expiresAt, memoryId], { owner, namespace });
    });
  }

  /** The memories expired at `now`, soonest first, at most `limit`. */
  async due(now: number, limit: number): Promise<Expiry[]> {
    const due: Expiry[] = [];
    const entries = this.#kv.list<{ owner: string; namespace: string }>(
      { start: ["expiry"], end: ["expiry", now + 1] },
      { limit },
    );
    for await (const { key, value } of entries) {
      due.push({ expiresAt: key[1] as number, memoryId: key[2] as string, ...value });
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
    const entries = this.#kv.list<{ owner: string; namespace: string }>({ prefix: ["expiry"] });
    for await (const { key, value } of entries) {
      const [, expiresAt, memoryId] = key as [string, number, string];
      yield { memoryId, owner: value.owner, namespace: value.namespace, expiresAt };
    }
  }
}
