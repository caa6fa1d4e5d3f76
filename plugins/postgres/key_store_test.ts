import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { cipherSuite } from "@svc/relayer/testing";
import { localCipherKeyStoreSuite } from "@svc/local-cipher/key_store_suite";
import { LocalCipher } from "@svc/local-cipher";
import { Database } from "./database.ts";
import { PgKeyStore } from "./key_store.ts";
import { testDatabase } from "./testing/test_server.ts";

const enc = (text: string) => new TextEncoder().encode(text);
const dec = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const OWNER = "0x" + "ab".repeat(32);
const forbidden = (error: unknown) => error instanceof SvcError && error.code === "forbidden";

/**
 * A fresh database and the relayers' secret; `open` connects a new pool (a relayer) and gives its
 * key store. Every pool is closed, and the database dropped, on dispose.
 */
async function sharedKeys(secret = crypto.getRandomValues(new Uint8Array(32))) {
  const db = await testDatabase();
  const databases: Database[] = [];
  return {
    secret,
    databases,
    async relayer(): Promise<{ database: Database; keys: PgKeyStore }> {
      const database = await Database.open({ url: db.url, pool: 2 });
      databases.push(database);
      return { database, keys: await PgKeyStore.open({ database, secret }) };
    },
    async open(): Promise<PgKeyStore> {
      return (await this.relayer()).keys;
    },
    async [Symbol.asyncDispose]() {
      for (const database of databases.splice(0)) await database.close();
      await db[Symbol.asyncDispose]();
    },
  };
}

/** Two relayers' ciphers over one database, with the same master key. */
async function twoRelayers() {
  const shared = await sharedKeys();
  const masterKey = crypto.getRandomValues(new Uint8Array(32));
  const [a, b] = await Promise.all([shared.relayer(), shared.relayer()]);
  const ciphers = await Promise.all(
    [a, b].map(({ keys }) => LocalCipher.open({ masterKey, keyStore: keys })),
  );
  return {
    a: ciphers[0],
    b: ciphers[1],
    database: a.database,
    async [Symbol.asyncDispose]() {
      for (const cipher of ciphers) await cipher.close();
      await shared[Symbol.asyncDispose]();
    },
  };
}

cipherSuite("LocalCipher on PgKeyStore", async () => {
  const shared = await sharedKeys();
  const cipher = await LocalCipher.open({
    masterKey: crypto.getRandomValues(new Uint8Array(32)),
    keyStore: await shared.open(),
  });
  return Object.assign(cipher, {
    async [Symbol.asyncDispose]() {
      await cipher.close();
      await shared[Symbol.asyncDispose]();
    },
  });
});

localCipherKeyStoreSuite("LocalCipher on PgKeyStore", () => sharedKeys());

Deno.test("PgKeyStore: a memory encrypted on one relayer decrypts on another; erased on either, on none", async () => {
  await using relayers = await twoRelayers();
  const { a, b } = relayers;
  const ids = [crypto.randomUUID(), crypto.randomUUID()];
  const sealed = await Promise.all(
    ids.map((memoryId) => a.encrypt(OWNER, enc(memoryId), { memoryId })),
  );
  assert.equal(dec(await b.decrypt(OWNER, sealed[0])), ids[0]);
  assert.equal(dec(await b.decrypt(OWNER, sealed[1])), ids[1]);
  await a.erase(OWNER, [ids[0]]);
  await assert.rejects(() => b.decrypt(OWNER, sealed[0]), forbidden, "erased on a, refused on b");
  await b.erase(OWNER, [ids[1]]);
  await assert.rejects(() => a.decrypt(OWNER, sealed[1]), forbidden, "erased on b, refused on a");
  await assert.rejects(() => b.decrypt(OWNER, sealed[1]), forbidden);
});

Deno.test("PgKeyStore: puts and erases from two relayers at once: every key put before an erase began is gone, the others decrypt", async () => {
  await using relayers = await twoRelayers();
  const { a, b } = relayers;
  const memories = Array.from({ length: 40 }, () => crypto.randomUUID());
  // Both relayers encrypt every memory (a job retried elsewhere), then erase the even ones from
  // both sides while encrypting more of the odd ones.
  const first = await Promise.all(
    memories.flatMap((memoryId) =>
      [a, b].map((cipher) => cipher.encrypt(OWNER, enc("x"), { memoryId }))
    ),
  );
  const even = memories.filter((_, i) => i % 2 === 0);
  const odd = memories.filter((_, i) => i % 2 === 1);
  const [, , more] = await Promise.all([
    a.erase(OWNER, even.slice(0, 10)),
    b.erase(OWNER, even),
    Promise.all(odd.map((memoryId, i) => [a, b][i % 2].encrypt(OWNER, enc("y"), { memoryId }))),
  ]);
  for (const [i, bytes] of first.entries()) {
    const memory = Math.floor(i / 2);
    for (const cipher of [a, b]) {
      if (memory % 2 === 0) await assert.rejects(() => cipher.decrypt(OWNER, bytes), forbidden);
      else assert.equal(dec(await cipher.decrypt(OWNER, bytes)), "x");
    }
  }
  for (const bytes of more) assert.equal(dec(await b.decrypt(OWNER, bytes)), "y");
  const [{ count }] = await relayers.database.sql`
    select count(*)::int as count from svc_cipher_keys_wrapped`;
  assert.equal(count, odd.length * 3);
});

Deno.test("PgKeyStore: puts made together are one INSERT; many more, a few", async () => {
  await using shared = await sharedKeys();
  const { database, keys } = await shared.relayer();
  // Counts the statements that insert keys, as the database runs them.
  await database.sql.unsafe(`
    create table insert_statements (n int);
    insert into insert_statements values (0);
    create function count_insert() returns trigger language plpgsql as
      'begin update insert_statements set n = n + 1; return null; end';
    create trigger counted after insert on svc_cipher_keys_wrapped
      for each statement execute function count_insert();
  `);
  const statements = async () => (await database.sql`select n from insert_statements`)[0].n;
  const place = (i: number) => ({
    owner: OWNER,
    memoryId: `m${i}`,
    keyTag: i.toString(16).padStart(16, "0"),
  });
  const wrapped = crypto.getRandomValues(new Uint8Array(60));
  await Promise.all(Array.from({ length: 64 }, (_, i) => keys.put(place(i), wrapped)));
  assert.equal(await statements(), 1);
  await Promise.all(Array.from({ length: 2500 }, (_, i) => keys.put(place(100 + i), wrapped)));
  const after = await statements();
  assert.ok(after >= 1 + 3 && after <= 1 + 5, `${after} statements`);
  for (const i of [0, 63, 100, 2599]) assert.deepEqual(await keys.get(place(i)), wrapped);
  await keys.erase(OWNER, Array.from({ length: 2600 }, (_, i) => `m${i}`));
  const [{ count }] = await database
    .sql`select count(*)::int as count from svc_cipher_keys_wrapped`;
  assert.equal(count, 0);
  await keys.close();
  await assert.rejects(
    () => keys.put(place(1), wrapped),
    (error) => error instanceof SvcError && error.code === "backend_unavailable",
  );
});

Deno.test("PgKeyStore: gets made together are one query, each answered with its own key", async () => {
  await using shared = await sharedKeys();
  const { database } = await shared.relayer();
  // Counts the statements the store sends (tagged-template calls of its client).
  let statements = 0;
  const sql = new Proxy(database.sql, {
    apply(target, self, args) {
      if (Array.isArray(args[0]) && "raw" in args[0]) statements++;
      return Reflect.apply(target, self, args);
    },
  });
  const keys = await PgKeyStore.open({
    database: { ...database, sql } as Database,
    secret: shared.secret,
  });
  const place = (i: number) => ({ owner: OWNER, memoryId: `m${i}`, keyTag: "0a".repeat(8) });
  const wrapped = (i: number) => new Uint8Array(60).fill(i);
  await Promise.all(Array.from({ length: 24 }, (_, i) => keys.put(place(i), wrapped(i))));
  statements = 0;
  // 24 stored keys, one of them asked twice, and one never stored.
  const asked = [...Array.from({ length: 24 }, (_, i) => i), 5, 24];
  const got = await Promise.all(asked.map((i) => keys.get(place(i))));
  assert.deepEqual(got, asked.map((i) => i < 24 ? wrapped(i) : null));
  assert.equal(statements, 1);
  // Another owner's memory of the same id and tag is not this one.
  assert.equal(await keys.get({ ...place(3), owner: "0x" + "cd".repeat(32) }), null);
  assert.equal(statements, 2);
  await keys.close();
});

Deno.test("PgKeyStore: the database holds wrapped keys under keyed hashes, no owner or memory id", async () => {
  await using relayers = await twoRelayers();
  const memoryId = crypto.randomUUID();
  await relayers.a.encrypt(OWNER, enc("I am vegetarian"), { memoryId });
  const rows = await relayers.database.sql`select * from svc_cipher_keys_wrapped`;
  assert.equal(rows.length, 1);
  assert.deepEqual(Object.keys(rows[0]).sort(), ["key_tag", "memory", "wrapped"]);
  const dump = JSON.stringify(
    rows[0],
    (_, value) => value instanceof Uint8Array ? new Uint8Array(value).toHex() + dec(value) : value,
  );
  for (
    const clear of [OWNER, OWNER.slice(2), memoryId, memoryId.replaceAll("-", ""), "vegetarian"]
  ) {
    assert.ok(!dump.includes(clear), clear);
  }
  assert.equal(rows[0].memory.byteLength, 32);
  assert.equal(rows[0].wrapped.byteLength, 12 + 32 + 16);
});

Deno.test("PgKeyStore: a database that is gone is a 503 on put, get and erase", async () => {
  const shared = await sharedKeys();
  const keys = await shared.open();
  await shared[Symbol.asyncDispose]();
  const place = { owner: OWNER, memoryId: "m", keyTag: "00".repeat(8) };
  for (
    const call of [
      () => keys.put(place, new Uint8Array(60)),
      () => keys.get(place),
      () => keys.erase(OWNER, ["m"]),
    ]
  ) {
    await assert.rejects(call, (error) => {
      assert.ok(error instanceof SvcError && error.code === "backend_unavailable", String(error));
      assert.doesNotMatch(error.message, /postgres:\/\//);
      return true;
    });
  }
});
