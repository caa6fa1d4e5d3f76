/**
 * Moves what earlier versions kept in tables of their own into `svc_state`, where the core's
 * stores read it: a reindex's progress (`svc_index_reindex`), the access log
 * (`svc_access_log_records`), erased memories and the expiry schedule (`svc_lifecycle_erased`,
 * `svc_lifecycle_expiry`), the local ledger (`svc_ledger_*`, under `["ledger"]`). Each chunk
 * moves in one transaction (written there, deleted here), so a move cut short loses nothing and
 * the next start goes on; relayers starting together take turns; an entry `svc_state` has already
 * is newer and stays. Relayers of the earlier version must be stopped first: what they write
 * after the move is moved only at the next start. The keys are those of `ReindexState`,
 * `StateAccessLogStore`, `StateLifecycleRecords` and `StateLedgerStore`, whose hashes and seals
 * are the tables' own.
 */
import { type StateKey, stateKeys } from "@svc/relayer/kit";
import { LEDGER_PREFIX, type StateRow, upsertState } from "@svc/postgres";
import { type Database, pgError, type Transaction } from "@svc/postgres/database";

/** Rows a transaction moves. */
const CHUNK = 500;
/** The advisory lock of a move ("svcm" in ASCII). */
const MOVE_LOCK = 0x7376636d;

/** One table's move: its rows as state rows, then the rows deleted. */
interface Move<R> {
  read(tx: Transaction): Promise<R[]>;
  rows(row: R): { key: StateKey; value: unknown; expiresAt?: number }[];
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

const ledgerKeys: Move<{ key_hash: Uint8Array; account_hash: Uint8Array }> = {
  read: (tx) => tx`select key_hash, account_hash from svc_ledger_keys limit ${CHUNK}`,
  rows: (row) => [{
    key: [...LEDGER_PREFIX, "delegate_key", row.key_hash.toHex()],
    value: row.account_hash.toHex(),
  }],
  drop: (tx, rows) =>
    tx`delete from svc_ledger_keys where key_hash in (
      select decode(h, 'hex') from unnest(${rows.map((r) => r.key_hash.toHex())}::text[]) as h)`,
};

const ledgerAccounts: Move<
  { account_hash: Uint8Array; owner_hash: Uint8Array; sealed: Uint8Array }
> = {
  read: (tx) => tx`select account_hash, owner_hash, sealed from svc_ledger_accounts limit ${CHUNK}`,
  rows: (row) => [
    {
      key: [...LEDGER_PREFIX, "account", row.account_hash.toHex()],
      value: new Uint8Array(row.sealed),
    },
    {
      key: [...LEDGER_PREFIX, "account_owner", row.owner_hash.toHex()],
      value: row.account_hash.toHex(),
    },
  ],
  drop: (tx, rows) =>
    tx`delete from svc_ledger_accounts where account_hash in (
      select decode(h, 'hex') from unnest(${
      rows.map((r) => r.account_hash.toHex())
    }::text[]) as h)`,
};

const ledgerTransactions: Move<
  { digest: string; executed: boolean; sealed: Uint8Array; expires_at: Date }
> = {
  read: (tx) =>
    tx`select digest, executed, sealed, expires_at from svc_ledger_transactions limit ${CHUNK}`,
  rows: (row) => [{
    key: [...LEDGER_PREFIX, row.executed ? "tx_done" : "tx_pending", row.digest],
    value: new Uint8Array(row.sealed),
    expiresAt: row.expires_at.getTime(),
  }],
  drop: (tx, rows) =>
    tx`delete from svc_ledger_transactions where digest = any(${rows.map((r) => r.digest)})`,
};

const ledgerVersion: Move<{ version: string; key_check: Uint8Array }> = {
  read: (tx) =>
    tx`select version::text, key_check from svc_ledger_version where key_check is not null`,
  rows: (row) => [
    { key: [...LEDGER_PREFIX, "key_check"], value: row.key_check.toHex() },
    { key: [...LEDGER_PREFIX, "ledger_version"], value: Number(row.version) },
  ],
  drop: (tx) => tx`delete from svc_ledger_version`,
};

/** Moves one table's rows, a chunk a transaction; resolves to how many rows. */
async function moveAll<R>(database: Database, move: Move<R>): Promise<number> {
  let moved = 0;
  for (;;) {
    const count = await database.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MOVE_LOCK})`;
      const rows = await move.read(tx);
      const byKey = new Map<string, StateRow>();
      for (const { key, value, expiresAt } of rows.flatMap((row) => move.rows(row))) {
        const hex = stateKeys.encodeKey(key).toHex();
        byKey.set(hex, { hex, value, expiresAt: expiresAt ?? null });
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
    const moves = [reindex, accessLog, erased, expiry, ledgerKeys, ledgerAccounts];
    for (const move of [...moves, ledgerTransactions, ledgerVersion] as Move<never>[]) {
      moved += await moveAll(database, move);
    }
    return moved;
  } catch (error) {
    throw pgError("move the relayer's state into svc_state", error);
  }
}
