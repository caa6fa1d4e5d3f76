/**
 * The lifecycle records in PostgreSQL, shared by every relayer: which memories were erased (so
 * no relayer stores or restores one again) and the expiry schedule (so some relayer's sweep
 * erases each expired memory).
 *
 * Nothing is readable at rest: an erase is kept under a keyed hash of its owner (HMAC-SHA-256
 * under a key HKDF derives from the relayers' shared secret) and the memory's id, as the
 * embedded store keeps the id; a scheduled expiry's owner and namespace are sealed (AES-GCM,
 * bound to the row's expiry and memory id). Each call is one statement, whatever its size.
 *
 * Relayers sweep together: `due` leases the rows it returns for `sweepLeaseMs` (skipping rows
 * another relayer is taking at that moment), so each expired memory is handed to one sweep; a
 * sweep that dies leaves its rows to the next one past the lease.
 *
 * @example
 * ```ts ignore
 * const records = await PgLifecycleRecords.open(await Database.open({ url }), secret);
 * await records.schedule([{ memoryId, owner, namespace, expiresAt }]);
 * ```
 */
import { pgError } from "./database.ts";
import { type Expiry, ExpirySeal, type LifecycleRecordStore } from "@svc/relayer/kit";
import { deriveHmacKey, hkdfMaster } from "@svc/util/sealing";
import type { Database } from "./database.ts";

/** Settings of {@link PgLifecycleRecords.open}. */
export interface PgLifecycleRecordsOptions {
  /** How long `due` hands its rows to one sweep (default 60 s, the sweep's interval). */
  sweepLeaseMs?: number;
}

const SALT = "svc-postgres-lifecycle-v1";
const encoder = new TextEncoder();

/** The HMAC-SHA-256 key HKDF derives from `secret` for `info` (salt: the lifecycle store's). */
export async function deriveTagKey(
  secret: Uint8Array<ArrayBuffer>,
  info: string,
): Promise<CryptoKey> {
  return await deriveHmacKey(await hkdfMaster(secret), SALT, info);
}

/** The keyed hash of `value` under `key`: 16 bytes. */
export async function tagOf(key: CryptoKey, value: string): Promise<Uint8Array<ArrayBuffer>> {
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(value));
  return new Uint8Array(mac, 0, 16).slice();
}

/** Erased memories and the expiry schedule in the shared database; see the module documentation. */
export class PgLifecycleRecords implements LifecycleRecordStore {
  #database: Database;
  #owners: CryptoKey;
  #seal: ExpirySeal;
  #leaseMs: number;

  private constructor(
    database: Database,
    owners: CryptoKey,
    seal: ExpirySeal,
    options: PgLifecycleRecordsOptions,
  ) {
    this.#database = database;
    this.#owners = owners;
    this.#seal = seal;
    this.#leaseMs = options.sweepLeaseMs ?? 60_000;
  }

  /** The records on `database` (whose schema is migrated), keyed by the 32-byte `secret`. */
  static async open(
    database: Database,
    secret: Uint8Array<ArrayBuffer>,
    options: PgLifecycleRecordsOptions = {},
  ): Promise<PgLifecycleRecords> {
    const owners = await deriveTagKey(secret, "erased owners");
    return new PgLifecycleRecords(database, owners, new ExpirySeal(secret), options);
  }

  async markErased(
    owner: string,
    memories: { memoryId: string; expiresAt?: number }[],
    erasedAt: number,
  ): Promise<void> {
    if (memories.length === 0) return;
    const sql = this.#database.sql;
    const tag = await tagOf(this.#owners, owner);
    const scheduled = memories.filter((memory) => memory.expiresAt !== undefined);
    try {
      // One statement: the erases recorded and their expiries dropped together.
      await sql`
        with erased as (
          insert into svc_lifecycle_erased (owner, memory_id, erased_at)
          select ${tag}::bytea, id, ${erasedAt}::int8
          from unnest(${sql.array(memories.map((m) => m.memoryId))}::text[]) as id
          on conflict do nothing
        )
        delete from svc_lifecycle_expiry
        where (expires_at, memory_id) in (
          select * from unnest(
            ${sql.array(scheduled.map((m) => m.expiresAt!))}::int8[],
            ${sql.array(scheduled.map((m) => m.memoryId))}::text[]
          )
        )`;
    } catch (error) {
      throw pgError("record erased memories", error);
    }
  }

  async erased(owner: string, memoryIds: string[]): Promise<Set<string>> {
    if (memoryIds.length === 0) return new Set();
    const sql = this.#database.sql;
    const tag = await tagOf(this.#owners, owner);
    try {
      const rows = await sql<{ memory_id: string }[]>`
        select memory_id from svc_lifecycle_erased
        where owner = ${tag}::bytea and memory_id = any(${sql.array(memoryIds)}::text[])`;
      return new Set(rows.map((row) => row.memory_id));
    } catch (error) {
      throw pgError("read erased memories", error);
    }
  }

  async schedule(expiries: Expiry[]): Promise<void> {
    if (expiries.length === 0) return;
    const sql = this.#database.sql;
    const sealed = expiries.map((expiry) => this.#seal.seal(expiry));
    try {
      await sql`
        insert into svc_lifecycle_expiry (expires_at, memory_id, sealed)
        select * from unnest(
          ${sql.array(expiries.map((e) => e.expiresAt))}::int8[],
          ${sql.array(expiries.map((e) => e.memoryId))}::text[],
          ${sql.array(sealed, 17)}::bytea[]
        )
        on conflict do nothing`;
    } catch (error) {
      throw pgError("schedule memories' expiry", error);
    }
  }

  async unschedule(expiries: Pick<Expiry, "memoryId" | "expiresAt">[]): Promise<void> {
    if (expiries.length === 0) return;
    const sql = this.#database.sql;
    try {
      await sql`
        delete from svc_lifecycle_expiry
        where (expires_at, memory_id) in (
          select * from unnest(
            ${sql.array(expiries.map((e) => e.expiresAt))}::int8[],
            ${sql.array(expiries.map((e) => e.memoryId))}::text[]
          )
        )`;
    } catch (error) {
      throw pgError("take memories off the expiry schedule", error);
    }
  }

  async due(now: number, limit: number): Promise<Expiry[]> {
    let rows: { expires_at: bigint; memory_id: string; sealed: Uint8Array<ArrayBuffer> }[];
    try {
      rows = await this.#database.sql`
        update svc_lifecycle_expiry set leased_until = ${now + this.#leaseMs}::int8
        where (expires_at, memory_id) in (
          select expires_at, memory_id from svc_lifecycle_expiry
          where expires_at <= ${now}::int8 and leased_until <= ${now}::int8
          order by expires_at, memory_id
          limit ${limit}
          for update skip locked
        )
        returning expires_at, memory_id, sealed`;
    } catch (error) {
      throw pgError("read the expiry schedule", error);
    }
    const due = rows.map((row) => {
      const expiresAt = Number(row.expires_at);
      const memoryId = row.memory_id;
      return { memoryId, ...this.#seal.open(expiresAt, memoryId, row.sealed), expiresAt };
    });
    return due.sort((a, b) =>
      a.expiresAt - b.expiresAt ||
      (a.memoryId < b.memoryId ? -1 : a.memoryId > b.memoryId ? 1 : 0)
    );
  }
}
