/**
 * The local ledger on PostgreSQL (`openPgLedger`): the ledger's own suites, the
 * `AccountDirectory` and `Sponsor` conformance suites, and what is particular to sharing one
 * database between relayers, each a `Database` pool of its own.
 */
import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import {
  KvLedgerStore,
  type LedgerAccount,
  LocalLedger,
  type TransactionEffects,
} from "@svc/local-ledger";
import { ledgerRulesSuite, type LedgerStorage } from "@svc/local-ledger/rules_suite";
import { ledgerResolveSuite } from "@svc/local-ledger/resolve_suite";
import { ledgerConformance } from "@svc/local-ledger/conformance";
import { encodeKind, submitTransaction } from "@svc/local-ledger/transactions";
import { Database } from "./database.ts";
import { openPgLedger } from "./ledger.ts";
import { testDatabase } from "./testing/test_server.ts";

const MASTER_KEY = new Uint8Array(32).fill(7);

/** A test database; each `open` is another relayer: a pool and a store of its own. */
async function sharedLedger(masterKey = MASTER_KEY) {
  const db = await testDatabase();
  const pools: Database[] = [];
  const connect = async () => {
    const database = await Database.open({ url: db.url, pool: 2 });
    pools.push(database);
    return database;
  };
  return {
    url: db.url,
    connect,
    async open() {
      return await openPgLedger(await connect(), masterKey);
    },
    async [Symbol.asyncDispose]() {
      for (const database of pools) await database.close();
      await db[Symbol.asyncDispose]();
    },
  } satisfies LedgerStorage & Record<string, unknown>;
}

ledgerRulesSuite("ledger (PostgreSQL)", sharedLedger);
ledgerResolveSuite("ledger resolve (PostgreSQL)", sharedLedger);

ledgerConformance("LocalLedger on PostgreSQL", async () => {
  const storage = await sharedLedger();
  return { store: await storage.open(), close: () => storage[Symbol.asyncDispose]() };
});

/** An account with one key, made through relayer `a`. */
async function accountWithKey(a: LocalLedger) {
  const owner = await generateKeyPair();
  const created = await submitTransaction(a, owner, { kind: "create_account" });
  const accountId = (created.effects as TransactionEffects).account_id;
  const key = await generateKeyPair();
  await submitTransaction(a, owner, {
    kind: "add_delegate_key",
    account_id: accountId,
    public_key: key.publicKey,
    label: "laptop in the kitchen",
    namespaces: ["therapy-notes"],
  });
  return { owner, accountId, key };
}

Deno.test("ledger on PostgreSQL: a key added on one relayer resolves on another; removed, it is refused there by the next resolve", async () => {
  await using storage = await sharedLedger();
  const a = await LocalLedger.open({ store: await storage.open() });
  const b = await LocalLedger.open({ store: await storage.open() });
  const { owner, accountId, key } = await accountWithKey(a);
  assert.equal((await b.resolve(key.publicKey, accountId))?.accountId, accountId);
  assert.deepEqual((await b.resolve(key.publicKey))?.scope, { namespaces: ["therapy-notes"] });
  await submitTransaction(a, owner, { kind: "deactivate_account", account_id: accountId });
  assert.equal((await b.resolve(key.publicKey))?.active, false);
  await submitTransaction(a, owner, { kind: "reactivate_account", account_id: accountId });
  assert.equal((await b.resolve(key.publicKey))?.active, true);
  await submitTransaction(a, owner, {
    kind: "remove_delegate_key",
    account_id: accountId,
    public_key: key.publicKey,
  });
  assert.equal(await b.resolve(key.publicKey), null);
  assert.equal(await b.resolve(key.publicKey, accountId), null);
});

Deno.test("ledger on PostgreSQL: nothing readable at rest", async () => {
  await using storage = await sharedLedger();
  const a = await LocalLedger.open({ store: await storage.open() });
  const { owner, accountId, key } = await accountWithKey(a);
  const pending = await a.sponsor(
    encodeKind({ kind: "deactivate_account", account_id: accountId }),
    addressOf(owner.publicKey),
  );
  const database = await storage.connect();
  const rows = await database.sql`select key, value from svc_state`;
  assert.equal(rows.length, 5 + 3, "check, version, account, owner, key; three transactions");
  const text = rows.map((r) =>
    new TextDecoder("latin1").decode(r.key) + r.key.toHex() +
    new TextDecoder("latin1").decode(r.value) + r.value.toHex()
  ).join("\n");
  const hex = (s: string) => new TextEncoder().encode(s).toHex();
  for (
    const secret of [
      accountId.slice(2),
      addressOf(owner.publicKey).slice(2),
      key.publicKey,
      "kitchen",
      "therapy",
    ]
  ) {
    assert.ok(!text.includes(secret), `${secret} is readable`);
    assert.ok(!text.includes(hex(secret)), `${secret} is readable as bytes`);
  }
  assert.ok(text.includes(pending.digest), "transactions are found by their digest");
});

Deno.test("ledger on PostgreSQL: a relayer with another master key is refused at open", async () => {
  await using storage = await sharedLedger();
  await storage.open();
  const other = await storage.connect();
  await assert.rejects(
    openPgLedger(other, new Uint8Array(32).fill(8)),
    (error: SvcError) => {
      assert.equal(error.code, "conflict");
      assert.match(error.message, /another master key/);
      return true;
    },
  );
});

Deno.test("ledger on PostgreSQL: a lost database is a 503 that names no address", async () => {
  const storage = await sharedLedger();
  const a = await LocalLedger.open({ store: await storage.open() });
  await storage[Symbol.asyncDispose]();
  await assert.rejects(a.resolve("1".repeat(64)), (error: SvcError) => {
    assert.equal(error.code, "backend_unavailable");
    assert.doesNotMatch(error.message, /127\.0\.0\.1|postgres:\/\//);
    return true;
  });
});

Deno.test("ledger on PostgreSQL: accounts copied from Deno KV resolve on every relayer, and copying again resumes", async () => {
  await using storage = await sharedLedger();
  const kv = await Deno.openKv(":memory:");
  try {
    const embedded = new LocalLedger(kv);
    const first = await accountWithKey(embedded);
    const second = await accountWithKey(embedded);
    const accounts: LedgerAccount[] = [];
    for await (const account of new KvLedgerStore(kv).accounts()) accounts.push(account);
    assert.equal(accounts.length, 2);

    const target = await storage.open();
    const b = await LocalLedger.open({ store: await storage.open() });
    assert.equal(await b.resolve(first.key.publicKey), null);
    await target.importAccounts(accounts.slice(0, 1));
    await target.importAccounts(accounts); // interrupted after the first, then run again
    for (const { key, accountId, owner } of [first, second]) {
      assert.equal((await b.resolve(key.publicKey))?.accountId, accountId);
      assert.deepEqual(
        await b.accountOf(addressOf(owner.publicKey)),
        await embedded.getAccount(accountId),
      );
    }
    // The copied ledger goes on: its owners' transactions apply on PostgreSQL.
    await submitTransaction(b, first.owner, {
      kind: "remove_delegate_key",
      account_id: first.accountId,
      public_key: first.key.publicKey,
    });
    assert.equal(await b.resolve(first.key.publicKey), null);

    // A key another account of the database holds is a conflict, and nothing is copied.
    const holder = accounts.find((account) => account.id === second.accountId)!;
    const stolen = { ...holder, id: "0x" + "e".repeat(64), owner: "0x" + "f".repeat(64) };
    await assert.rejects(target.importAccounts([stolen]), (error: SvcError) => {
      assert.equal(error.code, "conflict");
      return true;
    });
    assert.equal(await b.getAccount(stolen.id), null);
  } finally {
    kv.close();
  }
});
