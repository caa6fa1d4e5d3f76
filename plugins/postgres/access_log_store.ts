/**
 * The access log in PostgreSQL, shared by every relayer: the same sealed records the Deno KV
 * store keeps (an owner's opaque log tag, a time-ordered id, the sealed bytes) in
 * `svc_access_log_records`. A batch is written in one statement; a scan is one indexed range
 * read; prune is one delete, which several relayers may run at once.
 *
 * @example
 * ```ts ignore
 * const database = await Database.open({ url });
 * const store = new PgAccessLogStore(database);
 * await store.append([{ log, id, sealed }]);
 * ```
 */
import { pgError } from "./database.ts";
import {
  type AccessLogStore,
  type AccessRecordRange,
  type SealedAccessRecord,
} from "@svc/relayer/kit";
import type { Database } from "./database.ts";

/** Access-log records in the shared database; see the module documentation. */
export class PgAccessLogStore implements AccessLogStore {
  #database: Database;

  /** A store on `database` (whose schema is migrated); opens nothing. */
  constructor(database: Database) {
    this.#database = database;
  }

  async append(records: SealedAccessRecord[]): Promise<void> {
    if (records.length === 0) return;
    const sql = this.#database.sql;
    try {
      // Ids are fresh: a record already there (a batch written again) is left as it is.
      await sql`
        insert into svc_access_log_records (log, id, sealed)
        select * from unnest(
          ${sql.array(records.map((r) => r.log))}::text[],
          ${sql.array(records.map((r) => r.id))}::text[],
          ${sql.array(records.map((r) => r.sealed), 17)}::bytea[]
        )
        on conflict do nothing`;
    } catch (error) {
      throw pgError("write the access log", error);
    }
  }

  async scan(
    log: string,
    range: AccessRecordRange,
    limit: number,
  ): Promise<SealedAccessRecord[]> {
    const sql = this.#database.sql;
    const from = range.from === undefined ? sql`` : sql`and id >= ${range.from}`;
    const to = range.to === undefined ? sql`` : sql`and id < ${range.to}`;
    try {
      const rows = await sql<{ id: string; sealed: Uint8Array }[]>`
        select id, sealed from svc_access_log_records
        where log = ${log} ${from} ${to}
        order by id desc
        limit ${limit}`;
      return rows.map(({ id, sealed }) => ({ log, id, sealed: new Uint8Array(sealed) }));
    } catch (error) {
      throw pgError("read the access log", error);
    }
  }

  async prune(before: string): Promise<number> {
    try {
      const result = await this.#database.sql`
        delete from svc_access_log_records where id < ${before}`;
      return result.count;
    } catch (error) {
      throw pgError("prune the access log", error);
    }
  }
}
