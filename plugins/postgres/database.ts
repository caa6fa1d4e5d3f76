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

/** A subscription of `Database.listen`, kept to be made again on a renewed pool. */
interface Subscription {
  channel: string;
  handler: NotificationHandler;
  relistened?: () => void;
  /** Stops it on the pool it was made on. */
  unlisten?: () => Promise<void>;
}

/**
 * Whether `error` is the `postgres` client writing to a connection it had closed: thrown from a
 * timer, it would stop the process (porsager/postgres#1066).
 */
function isClosedWriteCrash(error: unknown): boolean {
  return error instanceof TypeError && /\bnextWrite\b/.test(error.stack ?? "") &&
    /postgres[@/].*connection\.js/.test(error.stack ?? "");
}

/** How often a listening pool checks that it reaches the database and hears it. */
const HEARTBEAT_MS = 5_000;

/** A pool of connections to the shared database; see the module documentation. */
export class Database {
  #sql: Sql;
  readonly #connect: () => Sql;
  readonly #logger: Logger;
  readonly #subscriptions = new Set<Subscription>();
  #renewing: Promise<void> | undefined;
  #closed = false;
  /** The heartbeat, started by the first `listen` (see `#beat`). */
  #heartbeat: Promise<void> | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Whether the last heartbeat came back; whether one could not be sent. */
  #heard = true;
  #lost = false;

  private constructor(connect: () => Sql, sql: Sql, logger: Logger) {
    this.#connect = connect;
    this.#sql = sql;
    this.#logger = logger;
    globalThis.addEventListener("error", this.#onUncaught);
  }

  /**
   * The pool's SQL tag. Read it for each use rather than keeping it: a pool whose connections
   * were lost is replaced by a fresh one (see `#renew`).
   */
  get sql(): Sql {
    return this.#sql;
  }

  /**
   * Connects, and brings the schema up to date under an advisory lock (unless `migrate` is
   * `false`); refuses a database whose schema is newer than this version knows.
   */
  static async open(options: DatabaseOptions): Promise<Database> {
    const logger = options.logger ?? silentLogger;
    const connect = () =>
      postgres(options.url, {
        max: options.pool ?? 10,
        onnotice: () => {},
        // Times and numbers come back as PostgreSQL sends them; each store converts its own.
        types: { bigint: postgres.BigInt },
        connection: { application_name: "svc" },
      });
    let sql: Sql;
    try {
      sql = connect();
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
    const database = new Database(connect, sql, logger);
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
   * until the returned function (or the database's `close`) stops it. Resolves once listening.
   * After a lost connection the pool is renewed and `relistened` told: what was notified
   * meanwhile went unheard.
   */
  async listen(
    channel: string,
    handler: NotificationHandler,
    relistened?: () => void,
  ): Promise<() => Promise<void>> {
    await (this.#heartbeat ??= this.#startHeartbeat());
    const subscription: Subscription = { channel, handler, relistened };
    await this.#subscribe(subscription, this.#sql);
    this.#subscriptions.add(subscription);
    return async () => {
      if (this.#subscriptions.delete(subscription)) await subscription.unlisten?.().catch(() => {});
    };
  }

  async #subscribe(subscription: Subscription, sql: Sql): Promise<void> {
    let listens = 0;
    const { unlisten } = await sql.listen(subscription.channel, (payload) => {
      try {
        subscription.handler(payload);
      } catch (error) {
        this.#logger.error("a database notification's handler failed", {
          channel: subscription.channel,
          error,
        });
      }
    }, () => {
      // Listening again after a lost connection: the database went away, and each of the
      // pool's connections may have been left unusable (porsager/postgres#1066).
      if (++listens > 1 && sql === this.#sql) this.#renew("the connection was lost");
    });
    subscription.unlisten = unlisten;
  }

  /**
   * Listens to a channel of this pool's own, on which `#beat` notifies every `HEARTBEAT_MS`:
   * the client listens again by itself after a lost connection only if the database is back at
   * that moment, and leaves the pool's other connections as they were.
   */
  async #startHeartbeat(): Promise<void> {
    const channel = `svc_heartbeat_${crypto.randomUUID().replaceAll("-", "")}`;
    const subscription: Subscription = { channel, handler: () => this.#heard = true };
    await this.#subscribe(subscription, this.#sql);
    this.#subscriptions.add(subscription);
    this.#timer = setInterval(() => this.#beat(channel), HEARTBEAT_MS);
  }

  /**
   * Renews the pool when the database answers again after a heartbeat could not be sent, or
   * when the last one was not heard (the listening connection was lost for good).
   */
  async #beat(channel: string): Promise<void> {
    if (this.#renewing || this.#closed) return;
    if (!this.#heard) return this.#renew("the database was not heard from");
    this.#heard = false;
    const sql = this.#sql;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const sent = await Promise.race([
      sql`select pg_notify(${channel}, '')`.then(() => true, () => false),
      new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), HEARTBEAT_MS)),
    ]);
    clearTimeout(timer);
    if (sql !== this.#sql) return;
    if (!sent) {
      this.#lost = true;
      this.#heard = true; // nothing sent, nothing to hear
    } else if (this.#lost) this.#renew("the connection was lost");
  }

  /** The client's crash on a closed connection, kept from stopping the process. */
  #onUncaught = (event: ErrorEvent) => {
    if (!isClosedWriteCrash(event.error)) return;
    event.preventDefault();
    this.#renew("the client wrote to a closed connection");
  };

  /**
   * Replaces the pool with a fresh one once the database answers, listens there again (then
   * tells each `relistened`), and closes the old one (letting its queries finish for 5 s). The
   * `postgres` client can leave a connection unusable after its socket closed mid-write (it
   * then waits for `CONNECT_TIMEOUT` each time it is used, or repeats an old error): a fresh
   * pool has none of that.
   */
  #renew(why: string): void {
    if (this.#closed) return;
    this.#renewing ??= (async () => {
      const fresh = this.#connect();
      for (let delay = 100;; delay = Math.min(delay * 2, 5_000)) {
        if (this.#closed) return void await fresh.end({ timeout: 0 });
        const answered = await fresh`select 1`.then(() => true, () => false);
        if (answered) break;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
      const old = this.#sql;
      this.#sql = fresh;
      this.#heard = true;
      this.#lost = false;
      this.#logger.warn("database connections renewed", { reason: why });
      try {
        for (const subscription of this.#subscriptions) {
          await subscription.unlisten?.().catch(() => {});
          await this.#subscribe(subscription, fresh);
        }
        for (const { relistened } of this.#subscriptions) relistened?.();
      } catch (error) {
        // Gone again before every channel listens: renewed again in a moment.
        this.#logger.warn("cannot listen to the database again yet", { error });
        setTimeout(() => this.#renew(why), 1_000);
      }
      await old.end({ timeout: 5 }).catch(() => {});
    })().finally(() => this.#renewing = undefined);
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
    this.#closed = true;
    clearInterval(this.#timer);
    globalThis.removeEventListener("error", this.#onUncaught);
    await this.#renewing;
    for (const { unlisten } of this.#subscriptions) await unlisten?.().catch(() => {});
    this.#subscriptions.clear();
    await this.#sql.end({ timeout: 5 });
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
