/**
 * Versioned schema migrations. `svc_schema` records each applied version; `migrate` applies the
 * missing ones in order, in one transaction under an advisory lock, so relayers starting together
 * migrate once and a failed migration leaves the schema as it was. A migration only adds
 * (tables, columns, indexes) or moves data forward; none drops what an older version stored.
 * A database whose schema is newer than the versions given is refused.
 */
import { SvcError } from "@svc/relayer/kit";
import type { Sql, Transaction } from "./database.ts";

/** One step of the schema. */
export interface Migration {
  /** 1, 2, 3…: applied in this order, each once. */
  version: number;
  /** What it adds, in a few words. */
  name: string;
  /** The SQL statements, run in the migration's transaction. */
  up: string;
}

/** Every relayer and `svc migrate` take this lock (an arbitrary constant: "svc" in ASCII). */
const MIGRATION_LOCK = 0x737663;

/** The highest version recorded in `svc_schema`; 0 for a new database. */
export async function schemaVersion(
  sql: Sql | Transaction,
): Promise<number> {
  const [{ exists }] = await sql`select to_regclass('svc_schema') is not null as exists`;
  if (!exists) return 0;
  const [{ version }] = await sql`select coalesce(max(version), 0)::int as version from svc_schema`;
  return version;
}

/** Applies the migrations the database lacks; see the module documentation. */
export async function migrate(
  sql: Sql,
  migrations: Migration[],
): Promise<{ from: number; to: number }> {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  return await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    // Created only when missing: a user without CREATE on the schema opens a current one.
    const [{ found }] = await tx`select to_regclass('svc_schema') is not null as found`;
    if (!found) {
      await tx`create table svc_schema (
        version int primary key,
        name text not null,
        applied_at timestamptz not null default now()
      )`;
    }
    const from = await schemaVersion(tx);
    if (from > known) {
      throw new SvcError(
        "conflict",
        `Cannot use the database: its schema is at version ${from}, newer than this svc knows ` +
          `(${known}). Run the newer svc, or point SVC_DATABASE_URL at another database`,
      );
    }
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= from) continue;
      await tx.unsafe(migration.up);
      await tx`insert into svc_schema (version, name) values (${migration.version}, ${migration.name})`;
    }
    return { from, to: known };
  }) as { from: number; to: number };
}
