/**
 * Where the local cipher keeps the wrapped data keys of memories: a Deno KV database (the
 * relayer's key store, `keys.kv` in the data directory), or a map in memory when the cipher is
 * opened without one (tests, tools). Entries are `["key", owner, memoryId, keyTag]` → the
 * wrapped key; a memory has one entry per encryption (a job that is retried encrypts again),
 * and erasing a memory deletes all of them.
 *
 * Writes are group-committed: the keys of concurrent `put` calls go into one atomic commit
 * (one fsync) within Deno KV's limits, while the previous commit is under way; each `put`
 * resolves once the commit holding its key is durable. Reads are grouped too: the `get` calls of
 * one turn are read ten keys to a `getMany`, which costs Deno KV about half as much a key as a
 * `get` (a recall reads the keys of 30 or so memories at once).
 *
 * Given its file (`scrubPath`), the store wipes an erased key from the disk before `erase`
 * resolves: the file is rewritten without the deleted rows' remains and its write-ahead log
 * emptied (`scrubSqlite`), while no commit of the store runs. Erases that arrive meanwhile share
 * the next wipe.
 */
import { backendError, type KeyPlace, type KeyStore } from "@svc/relayer/kit";
import { readTogether } from "@svc/util/read_together";
import { coalesced, scrubSqlite } from "@svc/util/scrub";

export type { KeyPlace, KeyStore };

/** The longest memory id (UTF-8 bytes) a ciphertext can carry. */
export const MAX_MEMORY_ID_BYTES = 255;
/** The longest owner (UTF-8 bytes) whose memories get keys of their own (a KV key's size). */
export const MAX_OWNER_BYTES = 1024;

const PREFIX = "key";
// Deno KV refuses an atomic commit of more than 1000 mutations, 80 KiB of keys or 800 KiB in
// all; a batch stays well inside.
const MAX_BATCH_ENTRIES = 1000;
const MAX_BATCH_KEY_BYTES = 64 * 1024;
const MAX_BATCH_BYTES = 640 * 1024;
/** The most keys Deno KV reads in one `getMany`. */
const READ_BATCH = 10;
/** Memories whose keys an erase looks up concurrently. */
const ERASE_LISTS_AT_ONCE = 32;

const utf8 = new TextEncoder();

/** An upper bound of the bytes Deno KV encodes a string key part into. */
function partBytes(part: string): number {
  const bytes = utf8.encode(part);
  return 2 + bytes.length + bytes.filter((byte) => byte === 0).length;
}

function kvKey({ owner, memoryId, keyTag }: KeyPlace): Deno.KvKey {
  return [PREFIX, owner, memoryId, keyTag];
}

interface Pending {
  key: Deno.KvKey;
  value: Uint8Array<ArrayBuffer>;
  keyBytes: number;
  resolve(): void;
  reject(error: unknown): void;
}

/** The key store in a Deno KV database; `close` closes the database. */
export class KvKeyStore implements KeyStore {
  #kv: Deno.Kv;
  #queue: Pending[] = [];
  #draining = false;
  /** Settles once every `put` made so far has (commits happen in order). */
  #written: Promise<void> = Promise.resolve();
  #closed = false;
  /** The store's commits and wipes, one at a time. */
  #exclusive: Promise<unknown> = Promise.resolve();
  /** Wipes the file of erased keys (when its path is known). */
  #scrub?: () => Promise<void>;
  /** Keys were deleted and the file not wiped since (a wipe that failed is tried again). */
  #unwiped = false;

  /**
   * A store over `kv`; with `scrubPath`, the database's file, it wipes erased keys from the disk.
   */
  constructor(kv: Deno.Kv, options: { scrubPath?: string } = {}) {
    this.#kv = kv;
    const { scrubPath } = options;
    if (!scrubPath) return;
    this.#scrub = coalesced(() =>
      this.#alone(async () => {
        this.#unwiped = false;
        try {
          await scrubSqlite(scrubPath);
        } catch (error) {
          this.#unwiped = true; // the next erase tries again
          throw error;
        }
      })
    );
  }

  /** Runs `step` once no other commit or wipe of the store runs. */
  #alone<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#exclusive.catch(() => {}).then(step);
    this.#exclusive = run;
    return run;
  }

  put(place: KeyPlace, wrapped: Uint8Array<ArrayBuffer>): Promise<void> {
    if (this.#closed) {
      return Promise.reject(backendError("the key store", "store a key", "closed"));
    }
    const key = kvKey(place);
    const keyBytes = 3 + key.reduce((sum: number, part) => sum + partBytes(part as string), 0);
    const done = new Promise<void>((resolve, reject) => {
      this.#queue.push({ key, value: wrapped, keyBytes, resolve, reject });
    });
    this.#written = done.catch(() => {});
    if (!this.#draining) {
      this.#draining = true;
      // Let the calls made in the same turn join the first commit.
      queueMicrotask(() => this.#drain());
    }
    return done;
  }

  /** Commits the queue in batches, one at a time: what arrives during a commit joins the next. */
  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      let count = 0, keyBytes = 0, bytes = 0;
      while (count < this.#queue.length && count < MAX_BATCH_ENTRIES) {
        const next = this.#queue[count];
        const size = next.keyBytes + next.value.byteLength + 16;
        if (
          count > 0 &&
          (keyBytes + next.keyBytes > MAX_BATCH_KEY_BYTES || bytes + size > MAX_BATCH_BYTES)
        ) break;
        keyBytes += next.keyBytes;
        bytes += size;
        count++;
      }
      const batch = this.#queue.splice(0, count);
      try {
        const operation = this.#kv.atomic();
        for (const { key, value } of batch) operation.set(key, value);
        const result = await this.#alone(() => operation.commit());
        if (!result.ok) throw new Error("the commit was refused");
        for (const pending of batch) pending.resolve();
      } catch (cause) {
        const error = backendError("the key store", "store a key", cause);
        for (const pending of batch) pending.reject(error);
      }
    }
    this.#draining = false;
  }

  get(place: KeyPlace): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.#read(place);
  }

  #read = readTogether(READ_BATCH, async (places: KeyPlace[]) => {
    try {
      const entries = await this.#kv.getMany<unknown[]>(places.map(kvKey));
      return entries.map(({ value }) =>
        value instanceof Uint8Array ? value as Uint8Array<ArrayBuffer> : null
      );
    } catch (cause) {
      throw backendError("the key store", "read a key", cause);
    }
  });

  async erase(owner: string, memoryIds: string[]): Promise<void> {
    // A key whose `put` is under way when the erase starts is deleted too.
    await this.#written;
    try {
      const keys: Deno.KvKey[] = [];
      const ids = [...new Set(memoryIds)];
      for (let at = 0; at < ids.length; at += ERASE_LISTS_AT_ONCE) {
        const found = await Promise.all(
          ids.slice(at, at + ERASE_LISTS_AT_ONCE).map((memoryId) =>
            Array.fromAsync(this.#kv.list({ prefix: [PREFIX, owner, memoryId] }), (e) => e.key)
          ),
        );
        keys.push(...found.flat());
      }
      for (let at = 0; at < keys.length;) {
        const operation = this.#kv.atomic();
        let keyBytes = 0, count = 0;
        for (; at < keys.length && count < MAX_BATCH_ENTRIES; at++, count++) {
          const size = 3 + keys[at].reduce((sum: number, p) => sum + partBytes(p as string), 0);
          if (count > 0 && keyBytes + size > MAX_BATCH_KEY_BYTES) break;
          keyBytes += size;
          operation.delete(keys[at]);
        }
        this.#unwiped = true;
        const result = await this.#alone(() => operation.commit());
        if (!result.ok) throw new Error("the commit was refused");
      }
      if (keys.length > 0 || this.#unwiped) await this.#scrub?.();
    } catch (cause) {
      throw backendError("the key store", "erase keys", cause);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#written;
    this.#kv.close();
  }

  /** Every wrapped key with its place, in key order (for copying the store elsewhere). */
  async *entries(): AsyncIterable<{ place: KeyPlace; wrapped: Uint8Array<ArrayBuffer> }> {
    for await (const entry of this.#kv.list<Uint8Array<ArrayBuffer>>({ prefix: [PREFIX] })) {
      const [, owner, memoryId, keyTag] = entry.key as string[];
      if (entry.value instanceof Uint8Array) {
        yield { place: { owner, memoryId, keyTag }, wrapped: entry.value };
      }
    }
  }
}

/** The key store in memory: keys last as long as the object. */
export class MemoryKeyStore implements KeyStore {
  /** owner → memory id → key tag → wrapped key. */
  #keys = new Map<string, Map<string, Map<string, Uint8Array<ArrayBuffer>>>>();

  put({ owner, memoryId, keyTag }: KeyPlace, wrapped: Uint8Array<ArrayBuffer>): Promise<void> {
    let memories = this.#keys.get(owner);
    if (!memories) this.#keys.set(owner, memories = new Map());
    let tags = memories.get(memoryId);
    if (!tags) memories.set(memoryId, tags = new Map());
    tags.set(keyTag, wrapped.slice());
    return Promise.resolve();
  }

  get({ owner, memoryId, keyTag }: KeyPlace): Promise<Uint8Array<ArrayBuffer> | null> {
    return Promise.resolve(this.#keys.get(owner)?.get(memoryId)?.get(keyTag)?.slice() ?? null);
  }

  erase(owner: string, memoryIds: string[]): Promise<void> {
    const memories = this.#keys.get(owner);
    for (const memoryId of memoryIds) memories?.delete(memoryId);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
