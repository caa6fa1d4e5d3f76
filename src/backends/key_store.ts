/**
 * The store of a cipher's wrapped data keys: the local cipher keeps each memory's data key,
 * wrapped under the master key, apart from its ciphertext, and erasing the memory deletes it.
 * Implementations: SQLite (`keys.sqlite`, one relayer), memory (tests, tools), PostgreSQL (many
 * relayers sharing the keys).
 */

/** A wrapped key's place: the owner, the memory, and the tag that tells its encryptions apart. */
export interface KeyPlace {
  /** The owner's address. */
  owner: string;
  /** The memory's id. */
  memoryId: string;
  /** 16 hex characters, random per encryption. */
  keyTag: string;
}

/**
 * Wrapped data keys by place. A memory has one key per encryption (a job that is retried
 * encrypts again); erasing the memory deletes all of them.
 */
export interface KeyStore {
  /** Stores a wrapped key; resolves once it is durable. */
  put(place: KeyPlace, wrapped: Uint8Array<ArrayBuffer>): Promise<void>;
  /** The wrapped key, or `null` when there is none (erased, or never stored). */
  get(place: KeyPlace): Promise<Uint8Array<ArrayBuffer> | null>;
  /**
   * Deletes every key of these memories of `owner` (those of puts this store is still writing
   * included), durably once it resolves; unknown ids are ignored.
   */
  erase(owner: string, memoryIds: string[]): Promise<void>;
  /** Waits for the pending writes, then releases what the store holds open. */
  close(): Promise<void>;
}

/**
 * The key tag under which a Deno KV remember job keeps the key of its waiting text (the memory id
 * is the job id): erasing the memory erases it with the memory's own keys. A cipher never draws
 * it for a key of its own.
 */
export const JOB_TEXT_KEY_TAG = "0000000000000000";
