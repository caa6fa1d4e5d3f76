/**
 * Update claims in PostgreSQL, shared by every relayer: of two updates of one memory stored by
 * two relayers at once, one goes on. A claim is one conditional upsert: taken when the memory is
 * free, held by the same update already, or held by another for `UPDATE_CLAIM_MS` or more. The
 * memory and the update are kept as keyed hashes (HMAC-SHA-256 under a key HKDF derives from the
 * relayers' shared secret): the table does not show which memory replaces which.
 *
 * @example
 * ```ts ignore
 * const claims = await PgUpdateClaims.open(await Database.open({ url }), secret);
 * await claims.claim(oldId, newId, Date.now()); // true: this update goes on
 * ```
 */
import { pgError } from "./database.ts";
import { UPDATE_CLAIM_MS, type UpdateClaims } from "@svc/relayer/kit";
import type { Database } from "./database.ts";
import { deriveTagKey, tagOf } from "./tags.ts";

/** Update claims decided by the shared database; see the module documentation. */
export class PgUpdateClaims implements UpdateClaims {
  #database: Database;
  #key: CryptoKey;

  private constructor(database: Database, key: CryptoKey) {
    this.#database = database;
    this.#key = key;
  }

  /** The claims on `database` (whose schema is migrated), keyed by the 32-byte `secret`. */
  static async open(database: Database, secret: Uint8Array<ArrayBuffer>): Promise<PgUpdateClaims> {
    return new PgUpdateClaims(database, await deriveTagKey(secret, "update claims"));
  }

  async claim(memoryId: string, by: string, now: number): Promise<boolean> {
    const [memory, update] = await Promise.all([tagOf(this.#key, memoryId), tagOf(this.#key, by)]);
    try {
      const rows = await this.#database.sql`
        insert into svc_lifecycle_update_claims as held (memory, claimed_by, claimed_at)
        values (${memory}::bytea, ${update}::bytea, ${now}::int8)
        on conflict (memory) do update
          set claimed_by = excluded.claimed_by, claimed_at = excluded.claimed_at
          where held.claimed_by = excluded.claimed_by
            or held.claimed_at <= excluded.claimed_at - ${UPDATE_CLAIM_MS}::int8
        returning 1`;
      return rows.length === 1;
    } catch (error) {
      throw pgError("claim a memory for its update", error);
    }
  }

  async release(memoryId: string, by: string): Promise<void> {
    const [memory, update] = await Promise.all([tagOf(this.#key, memoryId), tagOf(this.#key, by)]);
    try {
      await this.#database.sql`
        delete from svc_lifecycle_update_claims
        where memory = ${memory}::bytea and claimed_by = ${update}::bytea`;
    } catch (error) {
      throw pgError("release a memory's update claim", error);
    }
  }

  async holds(memoryId: string, by: string, now: number): Promise<boolean> {
    const [memory, update] = await Promise.all([tagOf(this.#key, memoryId), tagOf(this.#key, by)]);
    try {
      const rows = await this.#database.sql`
        select 1 from svc_lifecycle_update_claims
        where memory = ${memory}::bytea and claimed_by = ${update}::bytea
          and claimed_at > ${now}::int8 - ${UPDATE_CLAIM_MS}::int8`;
      return rows.length === 1;
    } catch (error) {
      throw pgError("read a memory's update claim", error);
    }
  }

  async revoke(memoryIds: string[]): Promise<void> {
    if (memoryIds.length === 0) return;
    const memories = await Promise.all(memoryIds.map((id) => tagOf(this.#key, id)));
    const sql = this.#database.sql;
    try {
      await sql`
        delete from svc_lifecycle_update_claims
        where memory = any(${sql.array(memories, 17)}::bytea[])`;
    } catch (error) {
      throw pgError("revoke erased memories' update claims", error);
    }
  }
}
