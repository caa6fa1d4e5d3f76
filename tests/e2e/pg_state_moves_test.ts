/**
 * The upgrade of a shared database (`@svc/upgrades`, `svc_state`): what an earlier version kept
 * in tables of its own is read from `svc_state` once moved, and moved once.
 */
import assert from "node:assert/strict";
import { stateTags } from "@svc/relayer/kit";
import { MemoryStateStore, StateAccessLogStore, StateLifecycleRecords } from "@svc/relayer/testing";
import { addressOf, generateKeyPair } from "@svc/util/keys";
import { LocalLedger, StateLedgerStore, type TransactionEffects } from "@svc/local-ledger";
import { encodeKind, signDigest, submitTransaction } from "@svc/local-ledger/transactions";
import { Database } from "../../plugins/postgres/database.ts";
import { openPgLedger } from "../../plugins/postgres/ledger.ts";
import { PgStateStore } from "../../plugins/postgres/state_store.ts";
import { testDatabase } from "../../plugins/postgres/testing/test_server.ts";
import { upgrade } from "../../app/upgrades/mod.ts";
import { moveIntoState } from "../../app/upgrades/state_moves.ts";

const SECRET = new Uint8Array(32).fill(5);
const OWNER = "0x" + "d4".repeat(32);

Deno.test("moveIntoState: what the tables of an earlier version held is read from svc_state", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    const state = new PgStateStore(database);
    const records = new StateLifecycleRecords(state, SECRET);
    // Written as the earlier stores wrote them.
    const plan = { from: "index", to: "index-2", model: "m", dimensions: 4, startedAt: 5 };
    const sql = database.sql;
    await sql`insert into svc_index_reindex (key, value) values ('plan', ${sql.json(plan)})`;
    const tag = Uint8Array.fromHex(
      await stateTags.tagOf(await stateTags.tagKey(SECRET, "erased owners"), OWNER),
    );
    await sql`insert into svc_lifecycle_erased values (${tag}, 'm1', 7)`;
    const expiry = { memoryId: "m2", owner: OWNER, namespace: "notes", expiresAt: 9 };
    const scratch = new MemoryStateStore();
    await new StateLifecycleRecords(scratch, SECRET).schedule([expiry]);
    const [{ value: { sealed } }] = await Array.fromAsync(
      scratch.list<{ sealed: Uint8Array }>({ prefix: ["expiry"] }),
    );
    await sql`insert into svc_lifecycle_expiry (expires_at, memory_id, sealed)
      values (9, 'm2', ${sealed})`;
    const logs = Array.from({ length: 700 }, (_, i) => `id-${String(i).padStart(4, "0")}`);
    await sql`insert into svc_access_log_records (log, id, sealed)
      select 'tag', id, '\\x01' from unnest(${logs}::text[]) as id`;

    // A cursor written since, in svc_state, is newer than the table's.
    await sql`insert into svc_index_reindex (key, value)
      values ('cursor:ns', ${sql.json({ after: "old" })})`;
    await state.set(["reindex", "cursor", "ns"], { after: "new" });
    assert.equal(await moveIntoState(database), 704);
    assert.deepEqual((await state.get(["reindex", "cursor", "ns"]))?.value, { after: "new" });
    const again = await upgrade({ dataDir: "unused", secret: SECRET, database });
    assert.deepEqual(again, [{ name: "svc_state", moved: 0 }], "moved once");
    assert.deepEqual((await state.get(["reindex", "plan"]))?.value, plan);
    assert.deepEqual(await records.erased(OWNER, ["m1", "m9"]), new Set(["m1"]));
    assert.deepEqual(await records.due(10, 10), [expiry]);
    const scanned = await new StateAccessLogStore(state).scan("tag", {}, 1_000);
    assert.equal(scanned.length, 700);
    const [{ count }] = await sql`select (
      (select count(*) from svc_index_reindex) + (select count(*) from svc_lifecycle_erased) +
      (select count(*) from svc_lifecycle_expiry) + (select count(*) from svc_access_log_records)
    )::int as count`;
    assert.equal(count, 0, "the old tables are empty");
  } finally {
    await database.close();
  }
});

const MASTER_KEY = new Uint8Array(32).fill(7);

Deno.test("moveIntoState: what the ledger's tables of an earlier version held moves into svc_state", async () => {
  await using db = await testDatabase();
  const database = await Database.open({ url: db.url, pool: 2 });
  try {
    // Written as the earlier tables kept it: the same hashes and seals, in rows of their own.
    const scratch = new MemoryStateStore();
    const earlier = new LocalLedger(await StateLedgerStore.sealed(scratch, { secret: MASTER_KEY }));
    const owner = await generateKeyPair();
    const created = await submitTransaction(earlier, owner, { kind: "create_account" });
    const accountId = (created.effects as TransactionEffects).account_id;
    const key = await generateKeyPair();
    await submitTransaction(earlier, owner, {
      kind: "add_delegate_key",
      account_id: accountId,
      public_key: key.publicKey,
      label: "laptop in the kitchen",
      namespaces: ["therapy-notes"],
    });
    const pending = await earlier.sponsor(
      encodeKind({ kind: "deactivate_account", account_id: accountId }),
      addressOf(owner.publicKey),
    );
    const entries = await Array.fromAsync(scratch.list<unknown>({ start: [""], end: [0] }));
    const value = (kind: string) => entries.find((entry) => entry.key[0] === kind)!;
    const bytes = (hex: unknown) => Uint8Array.fromHex(hex as string);
    const account = value("account");
    const sql = database.sql;
    await sql`update svc_ledger_version set version = 2, key_check = ${
      bytes(value("key_check").value)
    }`;
    await sql`insert into svc_ledger_accounts values (
      ${bytes(account.key[1])}, ${bytes(value("account_owner").key[1])}, ${account
      .value as Uint8Array})`;
    await sql`insert into svc_ledger_keys values (
      ${bytes(value("delegate_key").key[1])}, ${bytes(account.key[1])})`;
    await sql`insert into svc_ledger_transactions values (
      ${pending.digest}, false, ${value("tx_pending")
      .value as Uint8Array}, now() + interval '1 hour')`;

    // Before the move, the earlier table's check refuses another master key.
    const other = new Uint8Array(32).fill(8);
    await assert.rejects(openPgLedger(database, other), /another master key/);
    assert.equal(await moveIntoState(database), 1 + 1 + 1 + 1);
    const ledger = await LocalLedger.open({ store: await openPgLedger(database, MASTER_KEY) });
    assert.equal((await ledger.resolve(key.publicKey))?.label, "laptop in the kitchen");
    assert.equal((await ledger.accountOf(addressOf(owner.publicKey)))?.id, accountId);
    await ledger.execute(pending.digest, signDigest(owner, pending.digest));
    assert.equal((await ledger.resolve(key.publicKey))?.active, false);
    await assert.rejects(openPgLedger(database, other), /another master key/);
    const [{ count }] = await sql`select (
      (select count(*) from svc_ledger_accounts) + (select count(*) from svc_ledger_keys) +
      (select count(*) from svc_ledger_transactions) + (select count(*) from svc_ledger_version)
    )::int as count`;
    assert.equal(count, 0, "the old tables are empty");
  } finally {
    await database.close();
  }
});
