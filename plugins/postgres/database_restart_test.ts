/**
 * A database restarted under load, down, or frozen, and the `postgres` client's crash on a closed
 * connection: the queries waiting on it fail, the pool is renewed, listening resumes, and the
 * process goes on. In a file of its own, since it stops the test server every other test of the
 * process shares.
 */
import assert from "node:assert/strict";
import postgres from "postgres";
import { Database } from "./database.ts";
import {
  freezeTestServer,
  restartTestServer,
  stopTestServer,
  testDatabase,
} from "./testing/test_server.ts";
import type { Logger } from "@svc/relayer/kit";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds, or a minute has passed (the assertion after it then fails). */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done() && waited < 60_000; waited += 20) await pause(20);
}

/** A logger keeping what is logged at warn, by message. */
function warnings(): Logger & { said: string[] } {
  const said: string[] = [];
  const nothing = () => {};
  return {
    said,
    debug: nothing,
    info: nothing,
    warn: (message: string) => said.push(message),
    error: (message: string) => said.push(message),
  } as unknown as Logger & { said: string[] };
}

Deno.test("a database restarted under load: the pool is renewed once, listening resumes, every query then succeeds", async () => {
  await using db = await testDatabase();
  const logger = warnings();
  const database = await Database.open({ url: db.url, pool: 6, logger });
  try {
    await database.sql`create table load (id serial primary key, v text)`;
    let relistened = 0;
    const heard: string[] = [];
    for (const channel of ["svc_a", "svc_b", "svc_c"]) {
      await database.listen(channel, (payload) => heard.push(payload), () => relistened++);
    }
    const before = database.sql;
    // Writes of every size in flight while the server goes down and comes back.
    let running = true;
    const load = Array.from({ length: 12 }, async (_, n) => {
      while (running) {
        await database.sql`insert into load (v) values (${"x".repeat((n * 97) % 2000)})`
          .catch(() => pause(20));
      }
    });
    await pause(300);
    await restartTestServer();
    await until(() => relistened === 3);
    running = false;
    await Promise.all(load);

    // Every connection of the pool answers: none left waiting on a lost socket.
    const answers = await Promise.all(
      Array.from({ length: 24 }, () => database.sql`select count(*)::int as n from load`),
    );
    assert.ok(answers.every(([{ n }]) => n > 0));
    assert.notEqual(database.sql, before, "a fresh pool");
    assert.equal(relistened, 3, "each listener told once");
    assert.deepEqual(
      logger.said.filter((message) => message === "database connections renewed"),
      ["database connections renewed"],
    );
    // Notifications reach the listeners again.
    await database.sql`select pg_notify('svc_b', 'after')`;
    await until(() => heard.includes("after"));
    assert.deepEqual(heard, ["after"]);
  } finally {
    await database.close();
  }
});

Deno.test("a listening connection lost while the database refuses connections: the pool is renewed once it takes them again", async () => {
  await using db = await testDatabase();
  const logger = warnings();
  const database = await Database.open({ url: db.url, pool: 2, logger });
  const admin = await Database.open({ url: db.url.replace(/\/[^/]+$/, "/postgres"), pool: 1 });
  try {
    const heard: string[] = [];
    let relistened = 0;
    await database.listen("svc_jobs", (payload) => heard.push(payload), () => relistened++);
    // The client's own attempt to listen again meets a database that refuses it.
    await admin.sql.unsafe(`alter database ${db.name} allow_connections false`);
    await admin.sql`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = ${db.name} and query like 'listen%'`;
    await pause(1_000);
    await admin.sql.unsafe(`alter database ${db.name} allow_connections true`);
    await until(() => relistened > 0);
    assert.equal(relistened, 1);
    await database.sql`select pg_notify('svc_jobs', 'a job')`;
    await until(() => heard.length > 0);
    assert.deepEqual(heard, ["a job"]);
  } finally {
    await database.close();
    await admin.close();
  }
});

Deno.test("the client's write to a closed connection does not stop the process: the pool is renewed", async () => {
  await using db = await testDatabase();
  const logger = warnings();
  const database = await Database.open({ url: db.url, pool: 2, logger });
  try {
    const before = database.sql;
    throwClosedWrite();
    await until(() => database.sql !== before);
    const [{ one }] = await database.sql`select 1 as one`;
    assert.equal(one, 1);
    assert.ok(logger.said.includes("database connections renewed"), logger.said.join("; "));
  } finally {
    await database.close();
  }
});

/** What porsager/postgres#1066 throws from a timer, thrown the same way. */
function throwClosedWrite() {
  const crash = new TypeError("Cannot read properties of null (reading 'write')");
  crash.stack = `${crash.name}: ${crash.message}\n    at Immediate.nextWrite ` +
    "(file:///srv/node_modules/.deno/postgres@3.4.9/node_modules/postgres/src/connection.js:255:22)";
  setTimeout(() => {
    throw crash;
  });
}

Deno.test("a channel listened to while the pool is renewed is heard on the new pool", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2, logger: warnings() });
  try {
    await database.listen("svc_first", () => {});
    const before = database.sql;
    throwClosedWrite();
    await pause(0);
    const heard: string[] = [];
    await database.listen("svc_late", (payload) => heard.push(payload));
    await until(() => database.sql !== before);
    await database.sql`select pg_notify('svc_late', 'after')`;
    await until(() => heard.length > 0);
    assert.deepEqual(heard, ["after"]);
  } finally {
    await database.close();
  }
});

Deno.test("a heartbeat waiting behind busy connections renews nothing", async () => {
  await using db = await testDatabase();
  const logger = warnings();
  const database = await Database.open({ url: db.url, pool: 1, logger });
  try {
    await database.listen("svc_jobs", () => {});
    const before = database.sql;
    // The pool's one connection is busy for over two heartbeats.
    await database.sql`select pg_sleep(12)`;
    // Then a heartbeat has its answer and its echo.
    await pause(6_000);
    assert.equal(database.sql, before);
    assert.deepEqual(logger.said, []);
  } finally {
    await database.close();
  }
});

/** Runs `count` queries; each settles as "answered" or "failed", and `settled()` counts them. */
function queries(database: Database, count: number) {
  let settled = 0;
  const outcomes = Array.from(
    { length: count },
    () => database.sql`select 1`.then(() => "answered", () => "failed").finally(() => settled++),
  );
  return { all: Promise.all(outcomes), settled: () => settled };
}

/** The connections open to `url`'s database from svc's pools (their `application_name`). */
async function svcConnections(url: string): Promise<number> {
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [{ n }] = await admin`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and application_name = 'svc'`;
    return n;
  } finally {
    await admin.end();
  }
}

/** Once the database is back: a fresh pool serves, and the outage was logged at its start and end. */
async function servesAgain(
  database: Database,
  before: Database["sql"],
  logger: { said: string[] },
) {
  await until(() => database.sql !== before);
  assert.deepEqual(await queries(database, 4).all, Array(4).fill("answered"));
  assert.deepEqual(logger.said, [
    "database unavailable: requests that need it fail until it answers",
    "database connections renewed",
  ]);
}

Deno.test("a database that is down: the queries waiting on it fail while it is down, a fresh pool serves once it is back, and the old one reconnects nothing", async () => {
  await using db = await testDatabase();
  const logger = warnings();
  const database = await Database.open({ url: db.url, pool: 2, logger });
  try {
    await database.listen("svc_jobs", () => {});
    const before = database.sql;
    const start = await stopTestServer();
    // More queries than connections: the client would try to connect for each in turn, waiting
    // longer after every refusal (up to 20 s).
    const waiting = queries(database, 20);
    try {
      await until(() => waiting.settled() === 20);
    } finally {
      await start();
    }
    assert.deepEqual(await waiting.all, Array(20).fill("failed"));
    await servesAgain(database, before, logger);
    // The reconnections the client had scheduled in the old pool (up to a few seconds) are due.
    await pause(5_000);
    await database.close();
    assert.equal(await svcConnections(db.url), 0);
  } finally {
    await database.close();
  }
});

Deno.test("a database that answers nothing (a frozen server): the queries and transactions waiting on it fail while it is frozen, and a fresh pool serves once it answers", async () => {
  await using db = await testDatabase();
  const logger = warnings();
  const database = await Database.open({ url: db.url, pool: 4, logger });
  try {
    await database.listen("svc_jobs", () => {});
    // Every connection of the pool open: its queries then wait on the frozen server's sockets.
    await Promise.all(Array.from({ length: 4 }, () => database.sql`select pg_sleep(0.2)`));
    const before = database.sql;
    // A transaction under way, its next statement sent to the frozen server.
    const frozen = Promise.withResolvers<void>();
    const begun = Promise.withResolvers<void>();
    let transaction = "waiting";
    database.sql.begin(async (tx) => {
      begun.resolve();
      await frozen.promise;
      await tx`select ${1}::int`;
    }).then(() => transaction = "answered", () => transaction = "failed");
    await begun.promise;
    const thaw = await freezeTestServer();
    frozen.resolve();
    const waiting = queries(database, 8);
    let whileFrozen = { queries: 0, transaction: "" };
    try {
      await until(() => waiting.settled() === 8 && transaction !== "waiting");
    } finally {
      whileFrozen = { queries: waiting.settled(), transaction };
      await thaw();
    }
    assert.deepEqual(whileFrozen, { queries: 8, transaction: "failed" });
    assert.deepEqual(await waiting.all, Array(8).fill("failed"));
    await servesAgain(database, before, logger);
    await database.close();
    assert.equal(await svcConnections(db.url), 0);
  } finally {
    await database.close();
  }
});

Deno.test("a frozen database is cut off while a heartbeat's echo is late too", async () => {
  await using db = await testDatabase();
  const logger = warnings();
  const database = await Database.open({ url: db.url, pool: 2, logger });
  try {
    await database.listen("svc_jobs", () => {});
    await Promise.all(Array.from({ length: 2 }, () => database.sql`select pg_sleep(0.2)`));
    // The listening connection's backend frozen alone: a heartbeat goes unheard.
    const [{ pid }] = await database.sql`
      select pid from pg_stat_activity
      where datname = current_database() and application_name = 'svc' and query like 'listen %'`;
    Deno.kill(pid, "SIGSTOP");
    await pause(2_500);
    const thaw = await freezeTestServer();
    const waiting = queries(database, 4);
    let whileFrozen = 0;
    try {
      await until(() => waiting.settled() === 4);
    } finally {
      whileFrozen = waiting.settled();
      await thaw();
    }
    assert.equal(whileFrozen, 4);
    assert.deepEqual(await waiting.all, Array(4).fill("failed"));
  } finally {
    await database.close();
  }
});

Deno.test("a heartbeat the database refuses as a statement (not an outage) cuts nothing", async () => {
  await using db = await testDatabase();
  const admin = await Database.open({ url: db.url, pool: 1 });
  const role = `svc_quiet_${Deno.pid}`;
  const url = new URL(db.url);
  url.username = role;
  const logger = warnings();
  try {
    await admin.sql.unsafe(`create role ${role} login`);
    await admin.sql.unsafe(`revoke execute on function pg_notify(text, text) from public`);
    const database = await Database.open({ url: url.href, pool: 2, migrate: false, logger });
    try {
      await database.listen("svc_jobs", () => {});
      const before = database.sql;
      // Three heartbeats refused.
      await pause(7_000);
      assert.equal(database.sql, before);
      assert.deepEqual(await queries(database, 4).all, Array(4).fill("answered"));
      assert.deepEqual(logger.said, []);
    } finally {
      await database.close();
    }
  } finally {
    await admin.sql.unsafe(`grant execute on function pg_notify(text, text) to public`);
    await admin.sql.unsafe(`drop role ${role}`);
    await admin.close();
  }
});
