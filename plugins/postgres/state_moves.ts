/**
 * Moves what earlier versions kept in tables of their own into `svc_state`, where the core's
 * stores read it: a reindex's progress (`svc_index_reindex`), the access log
 * (`svc_access_log_records`), erased memories and the expiry schedule (`svc_lifecycle_erased`,
 * `svc_lifecycle_expiry`). Each chunk moves in one transaction (written there, deleted here), so
 * a move cut short loses nothing and the next start goes on; relayers starting together take
 * turns; an entry `svc_state` has already is newer and stays. Relayers of the earlier version
 * must be stopped first: what they write after the move is moved only at the next start. The
 * keys are those of `ReindexState`, `StateAccessLogStore` and `StateLifecycleRecords`.
 */
import { type StateKey, stateKeys } from "@svc/relayer/kit";
import { type Database, pgError, type Transaction } from "./database.ts";
import { type StateRow, upsertState } from "./state_store.ts";

/** Rows a transaction moves. */
const CHUNK = 500;
/** The advisory lock of a move ("svcm" in ASCII). */
const MOVE_LOCK = 0x7376636d;

/** One table's move: its rows as state rows, then the rows deleted. */
interface Move<R> {
  read(tx: Transaction): Promise<R[]>;
  rows(row: R): { key: StateKey; value: unknown }[];
  drop(tx: Transaction, rows: R[]): Promise<unknown>;
}

const reindex: Move<{ key: string; value: unknown }> = {
  read: (tx) => tx`select key, value from svc_index_reindex order by key limit ${CHUNK}`,
  rows: ({ key, value }) => [{
    key: key === "plan" ? ["reindex", "plan"] : ["reindex", "cursor", key.slice("cursor:".length)],
    value,
  }],
  drop: (tx, rows) => tx`delete from svc_index_reindex where key = any(${rows.map((r) => r.key)})`,
};

const accessLog: Move<{ log: string; id: string; sealed: Uint8Array }> = {
  read: (tx) =>
    tx`select log, id, sealed from svc_access_log_records order by log, id limit ${CHUNK}`,
  rows: ({ log, id, sealed }) => [
    { key: ["access_log_logs", log], value: true },
    { key: ["access_log", log, id], value: sealed },
  ],
  drop: (tx, rows) =>
    tx`delete from svc_access_log_records where (log, id) in (
      select * from unnest(${rows.map((r) => r.log)}::text[], ${rows.map((r) => r.id)}::text[]))`,
};

const erased: Move<{ owner: Uint8Array; memory_id: string; erased_at: bigint }> = {
  read: (tx) =>
    tx`select owner, memory_id, erased_at from svc_lifecycle_erased
       order by owner, memory_id limit ${CHUNK}`,
  rows: (row) => [{
    key: ["erased", row.owner.toHex(), row.memory_id],
    value: Number(row.erased_at),
  }],
  drop: (tx, rows) =>
    tx`delete from svc_lifecycle_erased where (owner, memory_id) in (
      select decode(o, 'hex'), m from unnest(
        ${rows.map((r) => r.owner.toHex())}::text[], ${rows.map((r) => r.memory_id)}::text[]
      ) as t(o, m))`,
};

const expiry: Move<{ expires_at: bigint; memory_id: string; sealed: Uint8Array }> = {
  read: (tx) =>
    tx`select expires_at, memory_id, sealed from svc_lifecycle_expiry
       order by expires_at, memory_id limit ${CHUNK}`,
  rows: (row) => [{
    key: ["expiry", Number(row.expires_at), row.memory_id],
    value: { sealed: row.sealed },
  }],
  drop: (tx, rows) =>
    tx`delete from svc_lifecycle_expiry where (expires_at, memory_id) in (
      select * from unnest(
        ${rows.map((r) => String(r.expires_at))}::int8[], ${rows.map((r) => r.memory_id)}::text[]
      ))`,
};

/** Moves one table's rows, a chunk a transaction; resolves to how many rows. */
async function moveAll<R>(database: Database, move: Move<R>): Promise<number> {
  let moved = 0;
  for (;;) {
    const count = await database.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MOVE_LOCK})`;
      const rows = await move.read(tx);
      const byKey = new Map<string, StateRow>();
      for (const { key, value } of rows.flatMap((row) => move.rows(row))) {
        const hex = stateKeys.encodeKey(key).toHex();
        byKey.set(hex, { hex, value, expiresAt: null });
      }
      // What is in svc_state already was written since: it stays.
      await upsertState(tx, [...byKey.values()], true);
      if (rows.length) await move.drop(tx, rows);
      return rows.length;
    });
    moved += count;
    if (count < CHUNK) return moved;
  }
}

/** Moves every table's rows into `svc_state`; resolves to how many rows moved. */
export async function moveIntoState(database: Database): Promise<number> {
  try {
    let moved = 0;
    for (const move of [reindex, accessLog, erased, expiry] as Move<never>[]) {
      moved += await moveAll(database, move);
    }
    return moved;
  } catch (error) {
    throw pgError("move the relayer's state into svc_state", error);
  }
}
