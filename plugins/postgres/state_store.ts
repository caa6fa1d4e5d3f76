/**
 * The relayer's `StateStore` in the database the relayers share (`svc_state`, migration 11).
 * Keys are stored as their ordered encoding, so a list is a range of the primary key; values
 * are V8-serialised. A write is one transaction: it locks the keys it checks and writes
 * (advisory locks, in key order), compares the checked versions, then writes, so of two batches
 * checking one key the second sees the first's write. Expired rows are left out of reads and deleted now and then.
 *
 * @example
 * ```ts
 * const state = new PgStateStore(database);
 * await state.set(["reindex", "plan"], plan);
 * ```
 * @module
 */
import { deserialize, serialize } from "node:v8";
import {
  gatheredBatch,
  type StateBatch,
  type StateCheck,
  type StateEntry,
  type StateKey,
  stateKeys,
  type StateListOptions,
  type StateSelector,
  type StateSetOptions,
  type StateStore,
  type StateWrite,
} from "@svc/relayer/kit";
import { type Database, pgError, type Transaction } from "./database.ts";

/** Rows a list reads at a time. */
const PAGE = 500;
/** Writes between two sweeps of expired rows. */
const SWEEP_EVERY = 1_000;
/** The first key of the advisory locks a batch takes ("svcs" in ASCII). */
const LOCK_SPACE = 0x73766373;

interface Row {
  key: Uint8Array;
  value: Uint8Array;
  version: bigint;
}

function entryOf<T>(row: Row): StateEntry<T> {
  return {
    key: stateKeys.decodeKey(row.key),
    value: deserialize(row.value) as T,
    version: String(row.version).padStart(20, "0"),
  };
}

/** A `StateStore` in PostgreSQL; see the module documentation. */
export class PgStateStore implements StateStore {
  readonly #database: Database;
  readonly #now: () => number;
  #writes = 0;

  /** The state in `database`; `now` tells which rows have expired (default `Date.now`). */
  constructor(database: Database, now: () => number = Date.now) {
    this.#database = database;
    this.#now = now;
  }

  async #call<T>(action: string, task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      if (error instanceof TypeError) throw error;
      throw pgError(action, error);
    }
  }

  async get<T>(key: StateKey): Promise<StateEntry<T> | null> {
    return (await this.getMany<T>([key]))[0];
  }

  getMany<T>(keys: readonly StateKey[]): Promise<(StateEntry<T> | null)[]> {
    const hexes = keys.map((key) => stateKeys.encodeKey(key).toHex());
    return this.#call("read the relayer's state", async () => {
      const rows = await this.#database.sql<Row[]>`
        select key, value, version from svc_state
        where key = any(array(select decode(k, 'hex') from unnest(${hexes}::text[]) as k))
          and (expires_at is null or expires_at > ${this.#now()})`;
      const found = new Map(rows.map((row) => [row.key.toHex(), row]));
      return hexes.map((hex) => found.has(hex) ? entryOf<T>(found.get(hex)!) : null);
    });
  }

  async set(key: StateKey, value: unknown, options?: StateSetOptions): Promise<void> {
    await this.#write([{ key, set: { value, options } }]);
  }

  async delete(key: StateKey): Promise<void> {
    await this.#write([{ key }]);
  }

  async *list<T>(
    selector: StateSelector,
    options: StateListOptions = {},
  ): AsyncIterable<StateEntry<T>> {
    let [from, to] = stateKeys.selectorRange(selector);
    let left = options.limit ?? Infinity;
    while (left > 0) {
      const page = Math.min(left, PAGE);
      const rows = await this.#call("read the relayer's state", () =>
        this.#database.sql<Row[]>`
          select key, value, version from svc_state
          where key >= ${from} and key < ${to}
            and (expires_at is null or expires_at > ${this.#now()})
          order by key ${options.reverse ? this.#database.sql`desc` : this.#database.sql`asc`}
          limit ${page}`);
      for (const row of rows) yield entryOf<T>(row);
      left -= rows.length;
      if (rows.length < page) return;
      const last = rows.at(-1)!.key;
      if (options.reverse) to = last;
      else from = Uint8Array.of(...last, 0);
    }
  }

  batch(): StateBatch {
    return gatheredBatch((checks, writes) => this.#write(writes, checks));
  }

  /** Checks, then writes, in one transaction; `false`, having written nothing, if a check fails. */
  async #write(writes: StateWrite[], checks: StateCheck[] = []): Promise<boolean> {
    const last = new Map(writes.map((write) => [stateKeys.encodeKey(write.key).toHex(), write]));
    const now = this.#now();
    const sets = [...last].filter(([, write]) => write.set);
    const deletes = [...last].filter(([, write]) => !write.set).map(([hex]) => hex);
    const written = await this.#call("keep the relayer's state", async () => {
      return await this.#database.sql.begin(async (tx) => {
        // Every key written or checked is locked: a check holds until the commit.
        await lockKeys(tx, [
          ...last.keys(),
          ...checks.map(({ key }) => stateKeys.encodeKey(key).toHex()),
        ]);
        if (!await versionsMatch(tx, checks, now)) return false;
        if (deletes.length) {
          await tx`delete from svc_state where key = any(array(
            select decode(k, 'hex') from unnest(${deletes}::text[]) as k))`;
        }
        await upsertState(
          tx,
          sets.map(([hex, { set }]) => ({
            hex,
            value: set!.value,
            expiresAt: set!.options?.expireIn === undefined ? null : now + set!.options.expireIn,
          })),
        );
        return true;
      }) as boolean;
    });
    if (written) await this.#sweep(last.size, now);
    return written;
  }

  /**
   * Deletes up to a page of expired rows once every `SWEEP_EVERY` writes. The outer condition is
   * checked again on a row another transaction rewrote meanwhile, so a row taken again is kept.
   * Best effort: a sweep that fails is the next one's to do, and the write stands.
   */
  async #sweep(written: number, now: number): Promise<void> {
    this.#writes += written;
    if (this.#writes < SWEEP_EVERY) return;
    this.#writes = 0;
    await this.#database.sql`delete from svc_state where expires_at <= ${now} and key in (
      select key from svc_state where expires_at <= ${now} limit ${PAGE})`.catch(() => {});
  }
}

/** A row to write (see {@link upsertState}). */
export interface StateRow {
  /** Its key's encoding (`stateKeys.encodeKey`), as hex. */
  hex: string;
  /** Its value, serialised as it is written. */
  value: unknown;
  /** When it may go (Unix ms); `null`: never. */
  expiresAt: number | null;
}

/**
 * Writes `rows` (one per key) in one statement, each with a new version; with `keep`, a key
 * already there keeps its row. It takes none of `PgStateStore`'s locks and checks no version:
 * only for a writer that holds the database alone, such as an upgrade with relayers stopped.
 */
export async function upsertState(tx: Transaction, rows: StateRow[], keep = false): Promise<void> {
  if (rows.length === 0) return;
  const keys = rows.map(({ hex }) => hex);
  const values = rows.map(({ value }) => serialize(value).toString("hex"));
  const expiries = rows.map(({ expiresAt }) => expiresAt === null ? null : String(expiresAt));
  await tx`
    insert into svc_state (key, value, version, expires_at)
    select decode(k, 'hex'), decode(v, 'hex'), nextval('svc_state_versions'), e
    from unnest(${keys}::text[], ${values}::text[], ${expiries}::int8[]) as t(k, v, e)
    on conflict (key) do ${
    keep ? tx`nothing` : tx`update set value = excluded.value, version = excluded.version,
        expires_at = excluded.expires_at`
  }`;
}

/**
 * Takes the transaction's advisory locks of the keys `hexes`: one per distinct hash, in hash
 * order, so two transactions never wait for each other's.
 */
async function lockKeys(tx: Transaction, hexes: string[]): Promise<void> {
  await tx`select pg_advisory_xact_lock(${LOCK_SPACE}, h) from (
    select distinct hashtext(k) as h from unnest(${hexes}::text[]) as k order by h) as locks`;
}

/** Whether the checked keys (locked) are at the versions checked. */
async function versionsMatch(tx: Transaction, checks: StateCheck[], now: number): Promise<boolean> {
  if (checks.length === 0) return true;
  const hexes = [...new Set(checks.map(({ key }) => stateKeys.encodeKey(key).toHex()))];
  const rows = await tx<{ hex: string; version: bigint }[]>`
    select encode(key, 'hex') as hex, version from svc_state
    where key = any(array(select decode(k, 'hex') from unnest(${hexes}::text[]) as k))
      and (expires_at is null or expires_at > ${now})`;
  const versions = new Map(
    rows.map(({ hex, version }) => [hex, String(version).padStart(20, "0")]),
  );
  return checks.every(({ key, version }) =>
    (versions.get(stateKeys.encodeKey(key).toHex()) ?? null) === version
  );
}
