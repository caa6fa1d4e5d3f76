/**
 * The local ledger on PostgreSQL: the ledger's own suites, the `AccountDirectory` and `Sponsor`
 * conformance suites, and what is particular to sharing one database between relayers, each a
 * `Database` pool of its own.
 */
import assert from "node:assert/strict";
import { SvcError } from "@svc/relayer/kit";
import { addressOf, generateKeyPair, type KeyPair } from "@svc/util/keys";
import { accountDirectorySuite, sponsorSuite } from "@svc/relayer/testing";
import {
  KvLedgerStore,
  type LedgerAccount,
  type LedgerStore,
  LocalLedger,
  type TransactionEffects,
} from "@svc/local-ledger";
import { ledgerRulesSuite, type LedgerStorage } from "@svc/local-ledger/rules_suite";
import { ledgerResolveSuite } from "@svc/local-ledger/resolve_suite";
import { encodeKind, signDigest, submitTransaction } from "@svc/local-ledger/transactions";
import { Database } from "./database.ts";
import { LEDGER_CHANNEL, PgLedgerStore } from "./ledger_store.ts";
import { testDatabase } from "./test_server.ts";

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
      return await PgLedgerStore.open({ database: await connect(), masterKey });
    },
    async [Symbol.asyncDispose]() {
      for (const database of pools) await database.close();
      await db[Symbol.asyncDispose]();
    },
  } satisfies LedgerStorage & Record<string, unknown>;
}

ledgerRulesSuite("ledger (PostgreSQL)", sharedLedger);
ledgerResolveSuite("ledger resolve (PostgreSQL)", sharedLedger);

accountDirectorySuite("LocalLedger on PostgreSQL", async () => {
  const storage = await sharedLedger();
  const ledger = await LocalLedger.open({ store: await storage.open() });
  const owners = new Map<string, KeyPair>();
  return {
    directory: ledger,
    add: async (publicKey: string) => {
      const owner = await generateKeyPair();
      const created = await submitTransaction(ledger, owner, { kind: "create_account" });
      const accountId = (created.effects as TransactionEffects).account_id;
      owners.set(accountId, owner);
      await submitTransaction(ledger, owner, {
        kind: "add_delegate_key",
        account_id: accountId,
        public_key: publicKey,
        label: "test",
      });
      return { accountId, owner: addressOf(owner.publicKey) };
    },
    remove: async (accountId: string, publicKey: string) => {
      await submitTransaction(ledger, owners.get(accountId)!, {
        kind: "remove_delegate_key",
        account_id: accountId,
        public_key: publicKey,
      });
    },
    close: () => storage[Symbol.asyncDispose](),
  };
});

sponsorSuite("LocalLedger on PostgreSQL", async ({ now, ttlMs }) => {
  const storage = await sharedLedger();
  return {
    sponsor: await LocalLedger.open({ store: await storage.open(), now, ttlMs }),
    newSender: async () => {
      const key = await generateKeyPair();
      return {
        address: addressOf(key.publicKey),
        kind: encodeKind({ kind: "create_account" }),
        sign: ({ digest }) => Promise.resolve(signDigest(key, digest)),
      };
    },
    unknownDigest: "a".repeat(64),
    [Symbol.asyncDispose]: () => storage[Symbol.asyncDispose](),
  };
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

Deno.test("ledger on PostgreSQL: every applied transaction notifies the relayers with the new version", async () => {
  await using storage = await sharedLedger();
  const a = await LocalLedger.open({ store: await storage.open() });
  const listener = await storage.connect();
  const heard: string[] = [];
  let notified = Promise.withResolvers<void>();
  await listener.listen(LEDGER_CHANNEL, (payload) => {
    heard.push(payload);
    notified.resolve();
  });
  const owner = await generateKeyPair();
  await submitTransaction(a, owner, { kind: "create_account" });
  await notified.promise;
  notified = Promise.withResolvers<void>();
  // A refused transaction changes nothing, and notifies nobody.
  await assert.rejects(submitTransaction(a, owner, { kind: "create_account" }), SvcError);
  const [{ version }] = await listener.sql`select version::text as version from svc_ledger_version`;
  assert.deepEqual(heard, [version]);
  assert.equal(version, "1");
});

Deno.test("ledger on PostgreSQL: a notification frees what an idle relayer keeps, though the version is unchanged", async () => {
  await using storage = await sharedLedger();
  const a = await LocalLedger.open({ store: await storage.open() });
  const { key } = await accountWithKey(a);
  const store = await storage.open();
  let lookUps = 0;
  const heard = Promise.withResolvers<void>();
  store.onChange(() => heard.resolve());
  // The lookups of the ledger's resolutions, counted (nothing else is called).
  const counted = {
    version: () => store.version(),
    accountOfKey: (publicKey: string) => (lookUps++, store.accountOfKey(publicKey)),
    onChange: (listener: () => void) => store.onChange(listener),
  } as unknown as LedgerStore;
  const b = new LocalLedger(counted);
  for (let i = 0; i < 3; i++) assert.ok(await b.resolve(key.publicKey));
  assert.equal(lookUps, 1, "kept while the version is unchanged");
  await (await storage.connect()).notify(LEDGER_CHANNEL, "0");
  await heard.promise;
  assert.ok(await b.resolve(key.publicKey));
  assert.equal(lookUps, 2, "looked up again after the notification");
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
  const rows = await database.sql`
    select row_to_json(t)::text as row from (
      select * from svc_ledger_accounts union all
      select key_hash, account_hash, null from svc_ledger_keys
    ) t
    union all select row_to_json(t)::text from svc_ledger_transactions t`;
  assert.equal(rows.length, 1 + 1 + 3, "an account, a key, three transactions");
  const text = rows.map((r) => r.row).join("\n");
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
    PgLedgerStore.open({ database: other, masterKey: new Uint8Array(32).fill(8) }),
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

Deno.test("ledger on PostgreSQL: transactions past their time are pruned as new ones are sponsored", async () => {
  await using storage = await sharedLedger();
  const a = await LocalLedger.open({ store: await storage.open() });
  const owner = await generateKeyPair();
  const sender = addressOf(owner.publicKey);
  const old = await a.sponsor(encodeKind({ kind: "create_account" }), sender);
  const kept = await a.sponsor(encodeKind({ kind: "create_account" }), sender);
  const database = await storage.connect();
  await database.sql`
    update svc_ledger_transactions set expires_at = now() - interval '1 second'
    where digest = ${old.digest}`;
  await a.sponsor(encodeKind({ kind: "create_account" }), sender);
  const rows = await database.sql`select digest from svc_ledger_transactions`;
  const digests = rows.map((row) => row.digest);
  assert.ok(!digests.includes(old.digest), "pruned");
  assert.ok(digests.includes(kept.digest), "kept");
  assert.equal(digests.length, 2);
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
