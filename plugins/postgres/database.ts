/**
 * The PostgreSQL database many relayers share: a pool of connections (the `postgres` client),
 * the schema brought up to date at open, and notifications between relayers (`LISTEN`/`NOTIFY`).
 * Every store of the plugin (jobs, replay guard, ledger, blobs, index, access log) is built on
 * one `Database`.
 */
import postgres from "postgres";
import { backendError, type Logger, silentLogger, SvcError } from "../../src/kit.ts";
import { migrate, type Migration } from "./migrations.ts";
import { MIGRATIONS } from "./schema/mod.ts";

/** A pool's SQL tag, as the `postgres` client gives it. */
export type Sql = postgres.Sql;
/** A transaction's SQL tag. */
export type Transaction = postgres.TransactionSql;

/** How to reach the database. */
export interface DatabaseOptions {
  /** `postgres://user:password@host:port/database`; never logged or repeated in an error. */
  url: string;
  /** Connections the pool opens at most (default 10; one more listens for notifications). */
  pool?: number;
  /** Bring the schema up to date at open (default true; `svc migrate` does it alone). */
  migrate?: boolean;
  /** The schema's migrations (default: the plugin's own). */
  migrations?: Migration[];
  logger?: Logger;
}

/** Called with a notification's payload. */
export type NotificationHandler = (payload: string) => void;

/** The host and database of a URL, for messages: never its user or password. */
export function describeUrl(url: string): string {
  try {
    const { hostname, port, pathname } = new URL(url);
    // An @ past the host is a password's, cut short by an unescaped / in it.
    if (pathname.includes("@")) return "the configured database";
    // What the client dials (PGHOST and PGPORT aside): localhost and 5432 unless given.
    return `${hostname || "localhost"}:${port || 5432}${pathname}`;
  } catch {
    return "the configured database";
  }
}

/** A pool of connections to the shared database; see the module documentation. */
export class Database {
  /** The pool's SQL tag. */
  readonly sql: Sql;
  readonly #logger: Logger;
  readonly #unlisten = new Set<() => Promise<void>>();

  private constructor(sql: Sql, logger: Logger) {
    this.sql = sql;
    this.#logger = logger;
  }

  /**
   * Connects, and brings the schema up to date under an advisory lock (unless `migrate` is
   * `false`); refuses a database whose schema is newer than this version knows.
   */
  static async open(options: DatabaseOptions): Promise<Database> {
    const logger = options.logger ?? silentLogger;
    let sql: Sql;
    try {
      sql = postgres(options.url, {
        max: options.pool ?? 10,
        onnotice: () => {},
        // Times and numbers come back as PostgreSQL sends them; each store converts its own.
        types: { bigint: postgres.BigInt },
        connection: { application_name: "svc" },
      });
    } catch {
      // The client's error repeats the URL, password included.
      throw new SvcError("bad_request", "Cannot connect to PostgreSQL: its URL cannot be read");
    }
    const where = describeUrl(options.url);
    try {
      await sql`select 1`;
    } catch (error) {
      await sql.end({ timeout: 1 });
      throw new SvcError(
        "backend_unavailable",
        `Cannot connect to PostgreSQL at ${where}: ${reason(error)}`,
      );
    }
    const database = new Database(sql, logger);
    if (options.migrate ?? true) {
      try {
        const { from, to } = await migrate(sql, options.migrations ?? MIGRATIONS);
        if (from !== to) logger.info("database schema migrated", { from, to, database: where });
      } catch (error) {
        await database.close();
        if (!refusedPrivilege(error)) throw error;
        throw new SvcError(
          "backend_unavailable",
          `Cannot bring the schema of PostgreSQL at ${where} up to date: ${error.message}. ` +
            "The user of SVC_DATABASE_URL must own the database, or hold CREATE on its schema " +
            '(see "Deployment guide" in the README)',
        );
      }
    }
    return database;
  }

  /**
   * Calls `handler` with each notification on `channel` (from any relayer, this one included)
   * until the returned function (or the database's `close`) stops it. Resolves once listening;
   * the client listens again by itself after a lost connection, which is logged and told to
   * `relistened`: what was notified meanwhile went unheard.
   */
  async listen(
    channel: string,
    handler: NotificationHandler,
    relistened?: () => void,
  ): Promise<() => Promise<void>> {
    let listens = 0;
    const { unlisten } = await this.sql.listen(channel, (payload) => {
      try {
        handler(payload);
      } catch (error) {
        this.#logger.error("a database notification's handler failed", { channel, error });
      }
    }, () => {
      if (++listens === 1) return;
      this.#logger.warn("listening to the database again after a lost connection", { channel });
      relistened?.();
    });
    this.#unlisten.add(unlisten);
    return async () => {
      if (this.#unlisten.delete(unlisten)) await unlisten().catch(() => {});
    };
  }

  /** Notifies every relayer listening on `channel` (at once, outside a transaction). */
  async notify(channel: string, payload: string): Promise<void> {
    try {
      await this.sql`select pg_notify(${channel}, ${payload})`;
    } catch (error) {
      throw backendError("postgres", "notify the other relayers", error);
    }
  }

  /** Stops listening and closes every connection (waiting up to 5 s for queries in flight). */
  async close(): Promise<void> {
    for (const unlisten of this.#unlisten) await unlisten().catch(() => {});
    this.#unlisten.clear();
    await this.sql.end({ timeout: 5 });
  }
}

/**
 * A failure of `action` on the database, as `backendError` makes it, except that a privilege
 * PostgreSQL refused is said as such (it is the operator's to grant, not an outage).
 */
export function pgError(action: string, error: unknown): SvcError {
  if (!refusedPrivilege(error)) return backendError("postgres", action, error);
  return new SvcError(
    "backend_unavailable",
    `Cannot ${action}: PostgreSQL refused it (${error.message}); grant the user of ` +
      "SVC_DATABASE_URL its privileges on svc's tables",
    { cause: error },
  );
}

/** Whether PostgreSQL refused `error`'s statement for a privilege the user lacks. */
function refusedPrivilege(error: unknown): error is Error {
  return error instanceof Error && (error as { code?: unknown }).code === "42501";
}

/** A connection error's reason, without the URL it may repeat. */
function reason(error: unknown): string {
  const code = (error as { code?: string })?.code;
  if (code === "ECONNREFUSED") return "the connection was refused (is the server running?)";
  if (code === "28P01" || code === "28000") return "the user or password was refused";
  if (code === "3D000") return "the database does not exist";
  if (error instanceof Error && /before secure TLS connection/.test(error.message)) {
    return "the server does not take TLS connections, which sslmode (in SVC_DATABASE_URL or " +
      "PGSSLMODE) asks for: turn on ssl in the server's settings, or connect with " +
      "sslmode=disable on a network you trust";
  }
  return error instanceof Error ? error.message.replaceAll(/postgres(ql)?:\/\/\S+/g, "") : "";
}
