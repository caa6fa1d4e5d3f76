import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { Database, describeUrl } from "./database.ts";
import { openPgLedger } from "./ledger.ts";
import { type Migration, schemaVersion } from "./migrations.ts";
import { MIGRATIONS } from "./schema/mod.ts";
import { testDatabase } from "./testing/test_server.ts";
import { startSilentServer } from "../../tests/fixtures/silent_server.ts";

const LATEST = Math.max(...MIGRATIONS.map((m) => m.version));

Deno.test("opening a new database migrates it to the latest schema, once", async () => {
  await using db = await testDatabase();
  // Three relayers starting together: the advisory lock lets one migrate.
  const opened = await Promise.all([1, 2, 3].map(() => Database.open({ url: db.url, pool: 2 })));
  try {
    const rows = await opened[0].sql`select version from svc_schema order by version`;
    assert.deepEqual(rows.map((row) => row.version), MIGRATIONS.map((m) => m.version));
    assert.equal(await schemaVersion(opened[1].sql), LATEST);
  } finally {
    for (const database of opened) await database.close();
  }
});

Deno.test("a failed migration leaves the schema as it was", async () => {
  await using db = await testDatabase();
  const first: Migration = { version: 1, name: "first", up: "create table t1 (a int)" };
  const second: Migration = { version: 2, name: "second", up: "create table t2 (a int)" };
  const broken: Migration = { version: 3, name: "broken", up: "create table nonsense (" };
  await (await Database.open({ url: db.url, migrations: [first] })).close();
  await assert.rejects(Database.open({ url: db.url, migrations: [first, second, broken] }));
  const database = await Database.open({ url: db.url, migrations: [first], pool: 2 });
  try {
    assert.equal(await schemaVersion(database.sql), 1);
    const [{ t2 }] = await database.sql`select to_regclass('t2') is not null as t2`;
    assert.equal(t2, false, "the second migration of the failed run was rolled back");
  } finally {
    await database.close();
  }
});

Deno.test("a schema newer than this version knows is refused", async () => {
  await using db = await testDatabase();
  await (await Database.open({ url: db.url })).close();
  const newer = await Database.open({ url: db.url, migrate: false, pool: 2 });
  await newer.sql`insert into svc_schema (version, name) values (${LATEST + 1}, 'future')`;
  await newer.close();
  await assert.rejects(Database.open({ url: db.url }), (error: SvcError) => {
    assert.equal(error.code, "conflict");
    assert.match(error.message, new RegExp(`version ${LATEST + 1}, newer than this svc knows`));
    return true;
  });
});

Deno.test("a user without CREATE opens a current schema; a privilege refused is said as such", async () => {
  await using db = await testDatabase();
  const admin = await Database.open({ url: db.url, pool: 1 });
  const role = `svc_dml_${Deno.pid}`;
  const as = (user: string) => {
    const url = new URL(db.url);
    url.username = user;
    return url.href;
  };
  try {
    await admin.sql.unsafe(`create role ${role} login`);
    await admin.sql.unsafe(`revoke create on schema public from public`);
    await admin.sql.unsafe(`grant usage on schema public to ${role}`);
    await admin.sql.unsafe(`grant select on svc_schema to ${role}`);
    // The schema is current: nothing to create, so no CREATE needed.
    const reader = await Database.open({ url: as(role), pool: 1 });
    try {
      // Its tables are not the user's to read: the privilege is named, not an outage.
      await assert.rejects(
        openPgLedger(reader, new Uint8Array(32)),
        (error: SvcError) => {
          assert.equal(error.code, "backend_unavailable");
          assert.match(
            error.message,
            /Cannot open the ledger: PostgreSQL refused it \(permission denied for table svc_ledger_version\); grant/,
          );
          return true;
        },
      );
    } finally {
      await reader.close();
    }
    // A schema to bring up to date needs CREATE: the error says what the user needs.
    const next: Migration = { version: LATEST + 1, name: "next", up: "create table t9 (a int)" };
    await assert.rejects(
      Database.open({ url: as(role), migrations: [...MIGRATIONS, next] }),
      /up to date: permission denied for schema public\. The user of SVC_DATABASE_URL must own the database, or hold CREATE on its schema \(see "Deployment guide" in docs\/operations\.md\)$/,
    );
  } finally {
    await admin.sql.unsafe(`drop owned by ${role}`);
    await admin.sql.unsafe(`drop role ${role}`);
    await admin.close();
  }
});

Deno.test("an unreachable database is a clear error that does not repeat the password", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  const url = `postgres://svc:hunter2secret@127.0.0.1:${port}/svc`;
  await assert.rejects(Database.open({ url }), (error: SvcError) => {
    assert.equal(error.code, "backend_unavailable");
    assert.match(
      error.message,
      new RegExp(`Cannot connect to PostgreSQL at 127.0.0.1:${port}/svc`),
    );
    assert.doesNotMatch(error.message, /hunter2secret/);
    return true;
  });
  // Without a host or port, where the client dials.
  assert.equal(describeUrl("postgres:///svc"), "localhost:5432/svc");
  assert.equal(describeUrl("postgres://db.example/svc"), "db.example:5432/svc");
  // A URL the client cannot read: its error would repeat it.
  await assert.rejects(
    Database.open({ url: "postgres://svc:hunter2secret@127.0.0.1:99999/svc" }),
    (error: SvcError) => {
      assert.equal(error.message, "Cannot connect to PostgreSQL: its URL cannot be read");
      return true;
    },
  );
});

Deno.test("a database host that never answers is given up on, saying so", async () => {
  await using silent = startSilentServer();
  const { port } = new URL(silent.url);
  const url = `postgres://svc:hunter2secret@127.0.0.1:${port}/svc`;
  await assert.rejects(Database.open({ url, connectTimeoutMs: 500 }), (error: SvcError) => {
    assert.equal(error.code, "backend_unavailable");
    assert.equal(
      error.message,
      `Cannot connect to PostgreSQL at 127.0.0.1:${port}/svc: no answer in 0.5 s (is the host ` +
        "reachable?)",
    );
    return true;
  });
  assert.ok(silent.accepted >= 1, "it was asked");
});

Deno.test("a notification reaches every listening pool", async () => {
  await using db = await testDatabase();
  const [a, b] = await Promise.all([1, 2].map(() => Database.open({ url: db.url, pool: 2 })));
  try {
    const heard: string[] = [];
    const got = Promise.withResolvers<void>();
    await b.listen("svc_test", (payload) => {
      heard.push(payload);
      got.resolve();
    });
    await a.sql`select pg_notify('svc_test', 'namespace changed')`;
    await got.promise;
    assert.deepEqual(heard, ["namespace changed"]);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("TLS asked of a server without it is said as such", async () => {
  await using db = await testDatabase();
  const url = `${db.url}${db.url.includes("?") ? "&" : "?"}sslmode=require`;
  await assert.rejects(Database.open({ url }), (error: SvcError) => {
    assert.equal(error.code, "backend_unavailable");
    assert.match(error.message, /the server does not take TLS connections/);
    assert.match(error.message, /sslmode/);
    return true;
  });
});

Deno.test("a relayer paused mid-transaction holds its locks 10 s at most: the database ends its transaction", async () => {
  await using db = await testDatabase();
  const paused = await Database.open({ url: db.url, pool: 1 });
  const other = await Database.open({ url: db.url, pool: 1 });
  const resume = Promise.withResolvers<void>();
  try {
    const locked = Promise.withResolvers<void>();
    // Idle in its transaction, as a relayer stopped between two statements is.
    const transaction = paused.sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(42)`;
      locked.resolve();
      await resume.promise;
      await tx`select 1`;
    }).then(() => "committed", () => "ended");
    await locked.promise;
    let whilePaused = "";
    const taken = other.sql`select pg_advisory_xact_lock(42)`.then(() => {
      whilePaused = "taken";
    });
    await Promise.race([taken, new Promise((resolve) => setTimeout(resolve, 60_000))]);
    resume.resolve();
    assert.equal(whilePaused, "taken");
    assert.equal(await transaction, "ended");
  } finally {
    resume.resolve();
    await paused.close();
    await other.close();
  }
});

/**
 * A TCP proxy to `port` that holds back what the client sends on the first connection from the
 * moment it sends `stallAt`, as a database that stopped answering then; the others pass through.
 * `hide` names what the server says at start that the client should not hear, as from a server
 * older than PostgreSQL 14 (the names are garbled, their lengths kept).
 */
function startStallingProxy(port: number, stallAt: string, hide: string[] = []) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const conns = new Set<Deno.Conn>();
  let stalled: Deno.Conn | undefined;
  const pipe = async (from: Deno.Conn, to: Deno.Conn, watch: boolean) => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      for (let n; (n = await from.read(buffer)) !== null;) {
        const chunk = buffer.subarray(0, n);
        if (!watch) garble(chunk, hide);
        if (watch && !stalled && new TextDecoder().decode(chunk).includes(stallAt)) stalled = from;
        if (stalled !== from) await to.write(chunk);
      }
    } catch { /* closed */ }
  };
  const accepting = (async () => {
    for await (const client of listener) {
      const server = await Deno.connect({ hostname: "127.0.0.1", port });
      conns.add(client).add(server);
      pipe(client, server, true);
      pipe(server, client, false);
    }
  })().catch(() => {});
  return {
    host: `127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    get stalled() {
      return stalled !== undefined;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await accepting;
    },
  };
}

/** Overwrites the first letter of each of `names` found in `bytes`. */
function garble(bytes: Uint8Array, names: string[]): void {
  const text = new TextDecoder("latin1").decode(bytes);
  for (const name of names) {
    for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) bytes[at] = 0x78;
  }
}

Deno.test("a pool ended while the client reads the array types leaves no uncaught error", async () => {
  await using db = await testDatabase();
  const url = new URL(db.url);
  // The client's first query on each new connection (porsager/postgres#1192).
  await using proxy = startStallingProxy(Number(url.port), "typcategory");
  url.host = proxy.host;
  await assert.rejects(
    Database.open({ url: url.href, connectTimeoutMs: 500 }),
    /Cannot connect to PostgreSQL at .*: no answer in 0.5 s/,
  );
  assert.ok(proxy.stalled);
  const database = await Database.open({ url: url.href, pool: 2 });
  try {
    const [{ a }] = await database.sql`select ${["1", "2"]}::int[] as a`;
    assert.deepEqual(a, [1, 2]);
  } finally {
    await database.close();
  }
});

Deno.test("a pool ended while the client asks an older server whether it takes writes leaves no uncaught error", async () => {
  await using db = await testDatabase();
  const url = new URL(db.url);
  // The client asks a server that does not say it at start (before PostgreSQL 14), unawaited.
  await using proxy = startStallingProxy(Number(url.port), "pg_is_in_recovery", [
    "in_hot_standby",
    "default_transaction_read_only",
  ]);
  url.host = proxy.host;
  url.searchParams.set("target_session_attrs", "read-write");
  await assert.rejects(
    Database.open({ url: url.href, connectTimeoutMs: 500 }),
    /Cannot connect to PostgreSQL at .*: no answer in 0.5 s/,
  );
  assert.ok(proxy.stalled);
});
