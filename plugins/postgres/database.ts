/**
 * The PostgreSQL database many relayers share: a pool of connections (the `postgres` client),
 * closed at once when the database cannot be reached or stops answering, and replaced by a fresh
 * one once it answers or after a lost connection; the schema brought up to date at open; and
 * notifications between relayers (`LISTEN`/`NOTIFY`). Every store of the plugin (jobs, replay
 * guard, ledger, blobs, index, access log) is built on one `Database`.
 */
import net from "node:net";
import postgres from "postgres";
import { inTurn } from "@svc/util/in_turn";
import { sleep } from "@svc/util/sleep";
import { backendError, type Logger, silentLogger, SvcError } from "@svc/relayer/kit";
import { migrate, type Migration } from "./migrations.ts";
import { MIGRATIONS } from "./schema/mod.ts";

export type {
  ERROR_STATUS,
  ErrorCode,
  ErrorDetails,
  LogFields,
  Logger,
  SvcError,
} from "@svc/relayer/kit";

/** A pool's SQL tag, as the `postgres` client gives it. */
export type Sql = postgres.Sql;
/** A transaction's SQL tag. */
export type Transaction = postgres.TransactionSql;

/** How to reach the database. */
export interface DatabaseOptions {
  /** `postgres://user:password@host:port/database`; never logged or repeated in an error. */
  url: string;
  /** Connections the pool opens at most (default 10; plus, once something listens, 2 more). */
  pool?: number;
  /** Bring the schema up to date at open (default true; `svc migrate` does it alone). */
  migrate?: boolean;
  /** The schema's migrations (default: the plugin's own). */
  migrations?: Migration[];
  /** How long opening waits for the database's first answer, ms (default 15 000). */
  connectTimeoutMs?: number;
  /** Where the database logs its messages (default: nowhere). */
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

/** A subscription of `Database.listen`, made again on each renewed pool. */
interface Subscription {
  channel: string;
  handler: NotificationHandler;
  relistened?: () => void;
  /** The pool it listens on (notifications from any other are old ones), and its stop there. */
  on?: Sql;
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

/**
 * Whether `reason` is the failure of a query the `postgres` client runs unawaited on a new
 * connection (its array types, porsager/postgres#1192; whether an older server takes writes,
 * under `target_session_attrs`), which would stop the process; the query that opened the
 * connection fails (or is tried again) on its own.
 */
function isClientQueryFailure(reason: unknown): boolean {
  const query = (reason as { query?: unknown } | null)?.query;
  if (typeof query !== "string") return false;
  return (query.includes("pg_catalog.pg_type") && query.includes("typcategory = 'A'")) ||
    (query.includes("show transaction_read_only") && query.includes("pg_is_in_recovery()"));
}

let containing = false;

/** Keeps the client's unawaited queries (see above) from stopping the process. */
function containClientQueryFailures(): void {
  if (containing) return;
  containing = true;
  globalThis.addEventListener("unhandledrejection", (event) => {
    if (isClientQueryFailure(event.reason)) event.preventDefault();
  });
}

/** Each pool's `kill` (see `connectPool`). */
const kills = new WeakMap<Sql, () => void>();

/**
 * A pool of the `postgres` client on sockets of its own making, so that `kill` can end it for
 * good: the client's `end` leaves a scheduled reconnection to open later, and a transaction on
 * a frozen server waiting for a socket that never closes.
 */
function connectPool<T extends Record<string, postgres.PostgresType>>(
  url: string,
  options: postgres.Options<T>,
): Sql {
  containClientQueryFailures();
  const sockets = new Set<net.Socket>();
  let killed = false;
  let next = 0;
  const socket = ({ host, port, path }: { host: string[]; port: number[]; path?: string }) => {
    if (killed) throw new Error("the pool was closed");
    const i = next++ % host.length;
    const made = path ? net.connect(path) : net.connect(port[i], host[i]);
    // The name TLS checks, and the address the client's errors name, as on its own sockets.
    Object.assign(made, { host: host[i], port: port[i] });
    sockets.add(made);
    made.once("close", () => sockets.delete(made));
    return made;
  };
  // `socket` is the client's option (its types leave it out); its listener's pool inherits it.
  const sql = postgres(url, { ...options, socket } as typeof options);
  kills.set(sql, () => {
    killed = true;
    sql.end({ timeout: 0 }).catch(() => {});
    for (const made of sockets) made.destroy();
  });
  return sql;
}

/** Ends `sql`'s pool at once and for good: its queries fail, and it opens no connection again. */
function kill(sql: Sql): void {
  kills.get(sql)!();
}

/** How often a listening pool checks that it reaches the database and hears it. */
const HEARTBEAT_MS = 2_000;
/** How long a check waits for the database's answer, and for its notification's echo. */
const ANSWER_MS = 5_000;
/** How long the database lets a transaction of svc's sit idle before ending it. */
const IDLE_IN_TRANSACTION_MS = 10_000;
/** How long a replaced pool's queries in flight have to finish before it is closed. */
const RETIRE_SECONDS = 10;

/** A pool of connections to the shared database; see the module documentation. */
export class Database {
  #sql: Sql;
  /** The heartbeat's own connection, so that it never waits behind the pool's queries. */
  #probe: Sql;
  readonly #connect: (max?: number) => Sql;
  readonly #logger: Logger;
  readonly #subscriptions = new Set<Subscription>();
  /** Runs the changes to the subscriptions, and the swap of pools, one at a time. */
  readonly #serial = inTurn();
  #renewing: Promise<void> | undefined;
  /** The pool a renewal is bringing up, until it replaces `#sql`. */
  #fresh: Sql | undefined;
  /** Replaced pools, closing. */
  readonly #retiring = new Set<Promise<void>>();
  /** Aborted by `close`: stops the heartbeat and a renewal's waits. */
  readonly #closing = new AbortController();
  /** The heartbeat (see `#beat`), started by the first `listen`. */
  #heartbeat: Promise<void> | undefined;
  #beating = false;
  /** Whether the last heartbeat is not heard back yet, and when it was sent. */
  #echoDue = false;
  #sentAt = 0;

  private constructor(connect: (max?: number) => Sql, sql: Sql, logger: Logger) {
    this.#connect = connect;
    this.#sql = sql;
    this.#probe = connect(1);
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
    const connect = (max = options.pool ?? 10) =>
      connectPool(options.url, {
        max,
        // A host that drops packets: each new connection gives up after this many seconds.
        connect_timeout: 10,
        onnotice: () => {},
        types: {
          // Times and numbers come back as PostgreSQL sends them; each store converts its own.
          bigint: postgres.BigInt,
          // Bytes travel as hex text: the runtime's own codec, several times the client's
          // (`Buffer`'s) speed, where a namespace's sealed blocks are read again; each value
          // comes back as a `Uint8Array` of its own.
          bytea: {
            to: 17,
            from: [17],
            serialize: (bytes: Uint8Array) => `\\x${bytes.toHex()}`,
            parse: (text: string) => Uint8Array.fromHex(text.slice(2)),
          },
        },
        connection: {
          application_name: "svc",
          // A relayer paused mid-transaction (a stopped process, a suspended machine) holds its
          // locks, and the other relayers' writes behind them, for this long at most.
          idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
        },
      });
    let sql: Sql;
    try {
      sql = connect();
    } catch {
      // The client's error repeats the URL, password included.
      throw new SvcError("bad_request", "Cannot connect to PostgreSQL: its URL cannot be read");
    }
    const where = describeUrl(options.url);
    // The client's own connect timeout does not end a wait on a host that never answers (a
    // firewall dropping packets, a frozen server): opening gives up after its own.
    const waitMs = options.connectTimeoutMs ?? 15_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer in ${waitMs / 1000} s (is the host reachable?)`)),
        waitMs,
      );
    });
    try {
      await Promise.race([sql`select 1`, silence]);
    } catch (error) {
      kill(sql);
      throw new SvcError(
        "backend_unavailable",
        `Cannot connect to PostgreSQL at ${where}: ${reason(error)}`,
      );
    } finally {
      clearTimeout(timer);
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
            '(see "Deployment guide" in docs/operations.md)',
        );
      }
    }
    return database;
  }

  /**
   * Calls `handler` with each notification on `channel` (from any relayer, this one included)
   * until the returned function (or `close`) stops it; resolves once listening. After a lost
   * connection the pool is renewed and `relistened` told: notifications meanwhile went unheard.
   */
  async listen(
    channel: string,
    handler: NotificationHandler,
    relistened?: () => void,
  ): Promise<() => Promise<void>> {
    await this.#startHeartbeat();
    const subscription: Subscription = { channel, handler, relistened };
    await this.#add(subscription);
    return () =>
      this.#serial(async () => {
        if (this.#subscriptions.delete(subscription)) {
          await subscription.unlisten?.().catch(() => {});
        }
      });
  }

  /** Listens for `subscription` on the pool of the moment, and on each renewed one. */
  #add(subscription: Subscription): Promise<void> {
    return this.#serial(async () => {
      await this.#subscribe(subscription, this.#sql);
      this.#subscriptions.add(subscription);
    });
  }

  /** Listens for `subscription` on pool `sql` (from then on, its notifications alone count). */
  async #subscribe(subscription: Subscription, sql: Sql): Promise<void> {
    let listens = 0;
    subscription.on = sql;
    const { unlisten } = await sql.listen(subscription.channel, (payload) => {
      if (subscription.on !== sql) return;
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
   * Listens to a channel of this pool's own, on which `#beat` notifies every `HEARTBEAT_MS` (the
   * client listens again by itself only if the database is back at once, and leaves the other
   * connections as they were). Tried again by the next `listen` if it fails.
   */
  #startHeartbeat(): Promise<void> {
    this.#heartbeat ??= (async () => {
      const channel = `svc_heartbeat_${crypto.randomUUID().replaceAll("-", "")}`;
      await this.#add({ channel, handler: () => this.#echoDue = false });
      const timer = setInterval(() => this.#beat(channel), HEARTBEAT_MS);
      this.#closing.signal.addEventListener("abort", () => clearInterval(timer));
    })().catch((error) => {
      this.#heartbeat = undefined;
      throw error;
    });
    return this.#heartbeat;
  }

  /**
   * Notifies the heartbeat channel on the probe's connection. A database that cannot be reached,
   * or does not answer within `ANSWER_MS` (a frozen server, a host dropping packets), is cut off
   * (see `#cut`); a notification not heard back within `ANSWER_MS` renews the pool (the listening
   * connection is gone for good).
   */
  async #beat(channel: string): Promise<void> {
    if (this.#closed || this.#beating) return;
    if (this.#echoDue && Date.now() - this.#sentAt >= ANSWER_MS) {
      this.#renew("the database was not heard from");
    }
    this.#beating = true;
    if (!this.#echoDue) {
      this.#echoDue = true;
      this.#sentAt = Date.now();
    }
    const probe = this.#probe;
    const cut = (why: string) => probe === this.#probe && this.#cut(why);
    const stopWaiting = afterRunning(ANSWER_MS, () => cut("the database did not answer"));
    try {
      await probe`select pg_notify(${channel}, '')`;
    } catch (error) {
      this.#echoDue = false;
      if (unreachable(error)) cut("the database cannot be reached");
    } finally {
      stopWaiting();
      this.#beating = false;
    }
  }

  /**
   * Closes the pool's connections at once, so that the queries waiting on them fail (503), as do
   * the next ones until a fresh pool replaces it (`#renew`), rather than wait for the client's
   * reconnection backoff (up to 20 s) or for as long as a frozen server is frozen.
   */
  #cut(why: string): void {
    if (this.#closed) return;
    if (!this.#renewing) {
      this.#logger.warn("database unavailable: requests that need it fail until it answers", {
        reason: why,
      });
    }
    kill(this.#sql);
    kill(this.#probe);
    this.#renew(why);
  }

  /** The client's crash on a closed connection, kept from stopping the process. */
  #onUncaught = (event: ErrorEvent) => {
    if (!isClosedWriteCrash(event.error)) return;
    event.preventDefault();
    this.#renew("the client wrote to a closed connection");
  };

  get #closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /**
   * Replaces the pool with a fresh one once the database answers: listens there, swaps, tells
   * each `relistened`, and closes the old one (its queries in flight have `RETIRE_SECONDS`). The
   * client can leave a connection unusable after its socket closed mid-write; a fresh pool cannot.
   */
  #renew(why: string): void {
    if (this.#closed) return;
    this.#renewing ??= this.#renewal(why).finally(() => this.#renewing = undefined);
  }

  async #renewal(why: string): Promise<void> {
    let fresh: Sql;
    for (let delay = 100;; delay = Math.min(delay * 2, 1_000)) {
      // A pool of its own for each try: a failed connection may be left unusable (see above).
      fresh = this.#fresh = this.#connect();
      if (await fresh`select 1`.then(() => true, () => false)) break;
      kill(fresh);
      if (this.#closed) return;
      await sleep(delay, this.#closing.signal);
      if (this.#closed) return;
    }
    let old: Sql | undefined;
    try {
      await this.#serial(async () => {
        if (this.#closed) return;
        for (const subscription of this.#subscriptions) await this.#subscribe(subscription, fresh);
        old = this.#sql;
        this.#sql = fresh;
      });
    } catch (error) {
      if (this.#closed) return;
      // Gone again before every channel listens: tried again in a moment.
      this.#logger.warn("cannot listen to the database again yet", { error });
      kill(fresh);
      sleep(1_000, this.#closing.signal).then(() => this.#renew(why));
      return;
    } finally {
      this.#fresh = undefined;
    }
    if (!old) return kill(fresh);
    kill(this.#probe);
    this.#probe = this.#connect(1);
    this.#echoDue = false;
    this.#logger.warn("database connections renewed", { reason: why });
    for (const { relistened } of this.#subscriptions) relistened?.();
    const retiring = old;
    const retired = retiring.end({ timeout: RETIRE_SECONDS }).catch(() => {})
      .finally(() => kill(retiring));
    this.#retiring.add(retired);
    retired.finally(() => this.#retiring.delete(retired));
  }

  /** Stops listening and closes every connection (waiting up to 5 s for queries in flight). */
  async close(): Promise<void> {
    this.#closing.abort();
    globalThis.removeEventListener("error", this.#onUncaught);
    if (this.#fresh) kill(this.#fresh);
    await this.#renewing;
    await this.#serial(async () => {
      for (const { unlisten } of this.#subscriptions) await unlisten?.().catch(() => {});
      this.#subscriptions.clear();
    });
    await Promise.all(this.#retiring);
    kill(this.#probe);
    await this.#sql.end({ timeout: 5 }).catch(() => {});
    kill(this.#sql);
  }
}

/**
 * A failure of `action` on the database, as `backendError` makes it (followed by `advice` to the
 * client, if any), except that a privilege PostgreSQL refused, or a write to a read-only
 * database, is said as such (the operator's to grant or point elsewhere, not an outage).
 */
export function pgError(action: string, error: unknown, advice?: string): SvcError {
  if (readOnly(error)) {
    return new SvcError(
      "backend_unavailable",
      `Cannot ${action}: the database is read-only (a standby, or default_transaction_read_only ` +
        "is on); SVC_DATABASE_URL must name the primary",
      { cause: error },
    );
  }
  if (!refusedPrivilege(error)) {
    const failure = backendError("postgres", action, error);
    if (!advice || failure.cause !== error) return failure;
    return new SvcError(failure.code, `${failure.message}; ${advice}`, { cause: error });
  }
  return new SvcError(
    "backend_unavailable",
    `Cannot ${action}: PostgreSQL refused it (${error.message}); grant the user of ` +
      "SVC_DATABASE_URL its privileges on svc's tables",
    { cause: error },
  );
}

/** Runs `task`; a failure of the database becomes {@link pgError}'s error naming `action`. */
export async function pgCall<T>(action: string, task: () => Promise<T>): Promise<T> {
  try {
    return await task();
  } catch (error) {
    throw pgError(action, error);
  }
}

/** Whether PostgreSQL refused `error`'s statement as a write to a read-only database. */
function readOnly(error: unknown): boolean {
  return error instanceof postgres.PostgresError && error.code === "25006";
}

/** Whether PostgreSQL refused `error`'s statement for a privilege the user lacks. */
function refusedPrivilege(error: unknown): error is Error {
  return error instanceof Error && (error as { code?: unknown }).code === "42501";
}

/**
 * Whether `error` says the database cannot be reached (no connection, or the server going away),
 * rather than refusing one statement.
 */
function unreachable(error: unknown): boolean {
  if (!(error instanceof postgres.PostgresError)) return true;
  // Connection exceptions, and the server shutting down or not taking connections yet.
  return /^(08|57P)/.test(error.code);
}

/**
 * Calls `then` once this process has run for `ms`, not counting time it spent stopped or blocked
 * (beyond half a second at a stretch): the answer awaited may sit unread. Returns its cancel.
 */
function afterRunning(ms: number, then: () => void): () => void {
  let ran = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    ran += Math.min(now - last, 500);
    last = now;
    if (ran < ms) return;
    clearInterval(timer);
    then();
  }, 250);
  return () => clearInterval(timer);
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
