/**
 * A real PostgreSQL for tests: Debian's `postgresql` binaries (`initdb`, `pg_ctl`), started once
 * per test process in a temporary directory on a free loopback port, as an unprivileged user (the
 * `postgres` system user when the tests run as root), and stopped when the process ends. Each
 * test takes a database of its own (`testDatabase()`), dropped when it is disposed.
 *
 * `SVC_PG_BIN` names the directory of the binaries when they are not in
 * `/usr/lib/postgresql/<version>/bin` or on the `PATH`.
 */
import postgres from "postgres";
import { Database } from "../database.ts";

/** A database of the test server, dropped on dispose. */
export interface TestDatabase extends AsyncDisposable {
  /** `postgres://…` of the database. */
  url: string;
  /** The database's name. */
  name: string;
}

interface Server {
  /** `postgres://…` of the server, without a database. */
  base: string;
  /** Its directory: the data directory `data` and the log `server.log`. */
  dir: string;
  port: number;
}

let server: Promise<Server> | undefined;
let databases = 0;

function binDir(): string {
  const configured = Deno.env.get("SVC_PG_BIN");
  if (configured) return configured;
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name).filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return `/usr/lib/postgresql/${versions[0]}/bin`;
  } catch { /* not Debian's layout: the PATH then */ }
  return "";
}

/** Runs a PostgreSQL binary, as the `postgres` user when this process is root. */
function run(bin: string, args: string[], sync = false) {
  const path = binDir() ? `${binDir()}/${bin}` : bin;
  const asRoot = Deno.uid() === 0;
  const command = new Deno.Command(asRoot ? "runuser" : path, {
    args: asRoot ? ["-u", "postgres", "--", path, ...args] : args,
    stdout: "piped",
    stderr: "piped",
  });
  const check = ({ success, stderr, stdout }: Deno.CommandOutput) => {
    if (!success) {
      const text = new TextDecoder().decode(stderr) || new TextDecoder().decode(stdout);
      throw new Error(`${bin} ${args[0]} failed: ${text}`);
    }
  };
  if (sync) return check(command.outputSync());
  return command.output().then(check);
}

/** A loopback port that was free a moment ago. */
function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** `pg_ctl`'s arguments to start the server of `dir` on `port`, waiting until it is up. */
function startArgs(dir: string, port: number): string[] {
  const settings = "-c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300";
  return [
    "start",
    "-w",
    "-D",
    `${dir}/data`,
    "-l",
    `${dir}/server.log`,
    "-o",
    `-p ${port} -k ${dir} ${settings}`,
  ];
}

/**
 * Starts the server of `dir` on a free port, and returns it: on another one if the port was taken
 * between its choice and the server's start. A failure says what the server logged.
 */
async function startOnFreePort(dir: string): Promise<number> {
  const log = `${dir}/server.log`;
  for (let attempt = 1;; attempt++) {
    const logged = (await Deno.stat(log).catch(() => null))?.size ?? 0;
    const port = freePort();
    try {
      await run("pg_ctl", startArgs(dir, port));
      return port;
    } catch (error) {
      const said = (await Deno.readFile(log).catch(() => new Uint8Array())).subarray(logged);
      const text = new TextDecoder().decode(said);
      if (attempt < 3 && /could not bind/.test(text)) continue;
      throw new Error(`${(error as Error).message}\nThe server logged:\n${text.slice(-2_000)}`);
    }
  }
}

async function start(): Promise<Server> {
  const dir = await Deno.makeTempDir({ prefix: "svc-pg-" });
  if (Deno.uid() === 0) {
    const id = new Deno.Command("id", { args: ["-u", "postgres"], stdout: "piped" }).outputSync();
    if (!id.success) throw new Error("The tests run as root but there is no `postgres` user");
    const uid = Number(new TextDecoder().decode(id.stdout));
    await Deno.chown(dir, uid, null);
  }
  await run("initdb", ["-D", `${dir}/data`, "-U", "svc", "-A", "trust", "-E", "UTF8", "--no-sync"]);
  const port = await startOnFreePort(dir);
  globalThis.addEventListener("unload", () => {
    try {
      run("pg_ctl", ["stop", "-m", "immediate", "-D", `${dir}/data`], true);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
  return { base: `postgres://svc@127.0.0.1:${port}`, dir, port };
}

/** Runs one statement on the server's `postgres` database, on a connection of its own. */
async function administer(base: string, statement: string): Promise<void> {
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(statement);
  } finally {
    await admin.end();
  }
}

/** A new, empty database on the test server (started on first use). */
export async function testDatabase(): Promise<TestDatabase> {
  server ??= start();
  const { base } = await server;
  const name = `svc_test_${Deno.pid}_${++databases}`;
  await administer(base, `CREATE DATABASE ${name}`);
  return {
    url: `${base}/${name}`,
    name,
    async [Symbol.asyncDispose]() {
      await administer(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function started(): Promise<Server> {
  if (!server) throw new Error("The test server is not started");
  return await server;
}

/**
 * Stops the test server as an operator would (`pg_ctl stop -m fast`: every connection is
 * ended). Returns its start, which waits until it takes connections.
 */
export async function stopTestServer(): Promise<() => Promise<void>> {
  const { dir, port } = await started();
  await run("pg_ctl", ["stop", "-w", "-m", "fast", "-D", `${dir}/data`]);
  return async () => {
    await run("pg_ctl", startArgs(dir, port));
  };
}

/** Stops the test server, and starts it again `downMs` later. */
export async function restartTestServer(downMs = 0): Promise<void> {
  const start = await stopTestServer();
  await new Promise((resolve) => setTimeout(resolve, downMs));
  await start();
}

/**
 * Freezes the test server and its backends (`SIGSTOP`, as a hung host or a paused machine): its
 * connections stay open and it answers nothing. Returns its thaw.
 */
export async function freezeTestServer(): Promise<() => Promise<void>> {
  const { dir } = await started();
  const postmaster = (await Deno.readTextFile(`${dir}/data/postmaster.pid`)).split("\n")[0];
  // The postmaster first, so that it forks no backend the second signal misses.
  const signal = (name: string) =>
    new Deno.Command("sh", {
      args: ["-c", `kill -${name} ${postmaster}; pkill -${name} -P ${postmaster}; true`],
    }).output();
  await signal("STOP");
  return async () => void await signal("CONT");
}

/** `count` relayers' pools (3 connections each) on one new database, closed with it on dispose. */
export async function relayerPools(
  count: number,
): Promise<{ pools: Database[] } & AsyncDisposable> {
  const db = await testDatabase();
  const pools: Database[] = [];
  for (let i = 0; i < count; i++) pools.push(await Database.open({ url: db.url, pool: 3 }));
  return {
    pools,
    async [Symbol.asyncDispose]() {
      for (const pool of pools) await pool.close();
      await db[Symbol.asyncDispose]();
    },
  };
}

/**
 * A pool (one connection) on a new database with svc's schema that refuses writes, as a standby
 * does (`default_transaction_read_only`); closed with the database on dispose.
 */
export async function readOnlyDatabase(): Promise<{ database: Database } & AsyncDisposable> {
  const db = await testDatabase();
  const admin = await Database.open({ url: db.url, pool: 1 });
  await admin.sql.unsafe(`alter database ${db.name} set default_transaction_read_only = on`);
  await admin.close();
  const database = await Database.open({ url: db.url, pool: 1, migrate: false });
  return {
    database,
    async [Symbol.asyncDispose]() {
      await database.close();
      await db[Symbol.asyncDispose]();
    },
  };
}
