/**
 * The local cipher's wrapped memory keys in the PostgreSQL database many relayers share
 * (`svc_cipher_keys_wrapped`), so a memory encrypted through one relayer decrypts through any
 * other, and erasing it through any relayer destroys its keys for all of them.
 *
 * A row is `(memory, key_tag) → wrapped`: `memory` is a keyed hash of the owner and the memory
 * id (HMAC-SHA-256 under a key HKDF derives from the relayer's 32-byte secret); `key_tag` is the
 * random tag the ciphertext's header names; `wrapped` is the data key wrapped under the master
 * key (and bound to the owner, the memory id and the tag). Nothing else is stored.
 *
 * Concurrent `put` calls go into one `INSERT` (a group commit, as the Deno KV store's); each
 * resolves once its key is committed. An erase waits for this relayer's pending puts, then
 * deletes every row of the memories; puts and erases from several relayers are ordered by the
 * database (a put that commits after an erase is a new key, as on one relayer). No key is
 * cached (the gets of one turn are one query), so an erase is final on every relayer the moment
 * it commits, and no notification is needed.
 */
import { type KeyPlace, type KeyStore, SvcError } from "@svc/relayer/kit";
import { readTogether } from "@svc/util/read_together";
import { writeTogether } from "@svc/util/write_together";
import { deriveHmacKey, hkdfMaster } from "@svc/util/sealing";
import { type Database, pgCall, pgError } from "./database.ts";

const SALT = new TextEncoder().encode("svc-postgres-cipher-keys-v1");
/** Keys one statement writes, reads or deletes at most (3 parameters a row, far below 65,535). */
const MAX_BATCH = 1000;
/** PostgreSQL's type id of `bytea`, for arrays of bytes. */
const BYTEA = 17;

/** Options of {@link PgKeyStore.open}. */
export interface PgKeyStoreOptions {
  /** The shared database (its schema at version 5 or later); the caller closes it. */
  database: Database;
  /** The relayer's 32-byte secret (`SVC_MASTER_KEY`), the same on every relayer. */
  secret: Uint8Array<ArrayBuffer>;
}

/** The PostgreSQL `KeyStore`; see the module documentation. */
export class PgKeyStore implements KeyStore {
  readonly #database: Database;
  #naming: CryptoKey;
  /** Settles once every `put` made so far has (batches are written in order). */
  #written: Promise<void> = Promise.resolve();
  #closed = false;

  private constructor(database: Database, naming: CryptoKey) {
    this.#database = database;
    this.#naming = naming;
  }

  /** The key store on `options.database`, its keyed hashes derived from `options.secret`. */
  static async open(options: PgKeyStoreOptions): Promise<PgKeyStore> {
    if (options.secret.byteLength !== 32) {
      throw new SvcError(
        "internal",
        "Cannot open the PostgreSQL key store: the secret is not 32 bytes",
      );
    }
    const naming = await deriveHmacKey(
      await hkdfMaster(options.secret),
      SALT,
      "cipher_keys:memory",
    );
    return new PgKeyStore(options.database, naming);
  }

  /** The keyed hash a memory's keys are filed under. */
  async #memory(owner: string, memoryId: string): Promise<Uint8Array<ArrayBuffer>> {
    const name = new TextEncoder().encode(JSON.stringify([owner, memoryId]));
    return new Uint8Array(await crypto.subtle.sign("HMAC", this.#naming, name));
  }

  put(place: KeyPlace, wrapped: Uint8Array<ArrayBuffer>): Promise<void> {
    if (this.#closed) {
      return Promise.reject(pgError("store a key", "closed"));
    }
    const done = this.#write({ place, wrapped });
    this.#written = done.catch(() => {});
    return done;
  }

  /** The keys of the `put` calls made while a batch is written, in the next batch. */
  #write = writeTogether(
    (keys: { place: KeyPlace; wrapped: Uint8Array<ArrayBuffer> }[]) =>
      pgCall("store a key", async () => {
        const rows = await Promise.all(keys.map(async ({ place, wrapped }) => ({
          memory: await this.#memory(place.owner, place.memoryId),
          key_tag: place.keyTag,
          wrapped,
        })));
        const sql = this.#database.sql;
        await sql`insert into svc_cipher_keys_wrapped ${sql(rows)}
          on conflict (memory, key_tag) do update set wrapped = excluded.wrapped`;
      }),
    { limits: [MAX_BATCH] },
  );

  get(place: KeyPlace): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.#read(place);
  }

  #read = readTogether(MAX_BATCH, (places: KeyPlace[]) =>
    pgCall("read a key", async () => {
      const memories = await Promise.all(
        places.map(({ owner, memoryId }) => this.#memory(owner, memoryId)),
      );
      const sql = this.#database.sql;
      const rows = await sql`select w.memory, w.key_tag, w.wrapped from svc_cipher_keys_wrapped w
        join unnest(${sql.array(memories, BYTEA)}::bytea[],
          ${sql.array(places.map(({ keyTag }) => keyTag))}::text[]) as asked(memory, key_tag)
        on w.memory = asked.memory and w.key_tag = asked.key_tag`;
      const found = new Map(
        rows.map((row) => [
          `${(row.memory as Uint8Array).toHex()}/${row.key_tag}`,
          row.wrapped as Uint8Array<ArrayBuffer>,
        ]),
      );
      return places.map(({ keyTag }, i) => found.get(`${memories[i].toHex()}/${keyTag}`) ?? null);
    }));

  async erase(owner: string, memoryIds: string[]): Promise<void> {
    // A key whose `put` is under way on this relayer when the erase starts is deleted too.
    await this.#written;
    const ids = [...new Set(memoryIds)];
    for (let at = 0; at < ids.length; at += MAX_BATCH) {
      const memories = await Promise.all(
        ids.slice(at, at + MAX_BATCH).map((memoryId) => this.#memory(owner, memoryId)),
      );
      const sql = this.#database.sql;
      await pgCall(
        "erase keys",
        () => sql`delete from svc_cipher_keys_wrapped where memory in ${sql(memories)}`,
      );
    }
  }

  /** Waits for the pending puts; the database stays open (its owner closes it). */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#written;
  }
}
