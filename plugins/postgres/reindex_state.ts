/**
 * A reindex's progress in the database the relayers share (`svc_index_reindex`, migration 6):
 *
 * ```
 * "plan"              { from, to, model, dimensions, startedAt }
 * "cursor:<hash>"     { after, copied, skipped, done }: one per namespace
 * ```
 *
 * As in the relayer's Deno KV, a namespace is filed under a keyed hash of its owner and name
 * (HMAC-SHA-256 under a key derived from the secret with the same derivation), never by name.
 */
import { pgError } from "./database.ts";
import {
  type PartitionCursor,
  type PartitionNamer,
  partitionNamer,
  type ReindexPlan,
  type ReindexStateStore,
} from "@svc/relayer/kit";
import type { Database } from "./database.ts";

/** A reindex's progress in PostgreSQL; see the module documentation. */
export class PgReindexState implements ReindexStateStore {
  #database: Database;
  #name: PartitionNamer;

  private constructor(database: Database, name: PartitionNamer) {
    this.#database = database;
    this.#name = name;
  }

  /** The progress kept in `database`, its namespaces named under keys derived from `secret`. */
  static async open(database: Database, secret: Uint8Array<ArrayBuffer>): Promise<PgReindexState> {
    return new PgReindexState(database, await partitionNamer(secret));
  }

  async #key(owner: string, namespace: string): Promise<string> {
    return `cursor:${await this.#name(owner, namespace)}`;
  }

  async #call<T>(task: () => Promise<T>): Promise<T> {
    try {
      return await task();
    } catch (error) {
      throw pgError("keep the reindex's progress", error);
    }
  }

  async #get<T>(key: string): Promise<T | null> {
    const [row] = await this.#database.sql<{ value: T }[]>`
      select value from svc_index_reindex where key = ${key}`;
    return row?.value ?? null;
  }

  async #set(key: string, value: ReindexPlan | PartitionCursor): Promise<void> {
    await this.#database.sql`
      insert into svc_index_reindex (key, value) values (${key}, ${
      this.#database.sql.json({ ...value })
    })
      on conflict (key) do update set value = excluded.value`;
  }

  plan(): Promise<ReindexPlan | null> {
    return this.#call(() => this.#get<ReindexPlan>("plan"));
  }

  begin(plan: ReindexPlan): Promise<void> {
    return this.#call(async () => {
      await this.#database.sql.begin(async (tx) => {
        await tx`delete from svc_index_reindex`;
        await tx`insert into svc_index_reindex (key, value) values ('plan', ${
          tx.json({ ...plan })
        })`;
      });
    });
  }

  cursor(owner: string, namespace: string): Promise<PartitionCursor | null> {
    return this.#call(async () => this.#get<PartitionCursor>(await this.#key(owner, namespace)));
  }

  setCursor(owner: string, namespace: string, cursor: PartitionCursor): Promise<void> {
    return this.#call(async () => this.#set(await this.#key(owner, namespace), cursor));
  }

  clear(): Promise<void> {
    return this.#call(async () => {
      await this.#database.sql`delete from svc_index_reindex`;
    });
  }
}
