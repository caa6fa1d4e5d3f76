/**
 * Resolution on the local ledger, for any storage: answered from memory while the ledger's
 * version is unchanged, yet a change committed through any other handle (the CLI's, the
 * sidecar's, another relayer's) is seen by the very next call. `mod_test.ts` runs it on Deno
 * KV, the postgres plugin on PostgreSQL.
 */
import assert from "node:assert/strict";
import { generateKeyPair, type KeyPair } from "@svc/util/keys";
import { LocalLedger, type TransactionEffects } from "../mod.ts";
import type { LedgerStorage } from "./rules_suite.ts";
import type { LedgerStore } from "../store.ts";
import { submitTransaction, type TransactionKind } from "../transactions.ts";

/** A ledger with an account and one key, and a wallet changing it through its own handle. */
async function withAccount(storage: LedgerStorage) {
  const wallet = new LocalLedger(await storage.open());
  const owner = await generateKeyPair();
  const created = await submitTransaction(wallet, owner, { kind: "create_account" });
  const accountId = (created.effects as TransactionEffects).account_id;
  const key = await generateKeyPair();
  const transact = (kind: TransactionKind) => submitTransaction(wallet, owner, kind);
  const addKey = (key: KeyPair) =>
    transact({
      kind: "add_delegate_key",
      account_id: accountId,
      public_key: key.publicKey,
      label: "agent",
    });
  await addKey(key);
  return { accountId, key, transact, addKey };
}

/**
 * `store`, counting the reads of the ledger's version; while `hold` is set, their answers wait
 * for it (the reads themselves are made at once).
 */
function watched(store: LedgerStore) {
  const state = { versionReads: 0, hold: undefined as Promise<void> | undefined };
  const proxy: LedgerStore = {
    version: async () => {
      state.versionReads++;
      const hold = state.hold;
      const version = await store.version();
      await hold;
      return version;
    },
    account: (id) => store.account(id),
    accountOfOwner: (owner) => store.accountOfOwner(owner),
    accountOfKey: (publicKey) => store.accountOfKey(publicKey),
    putPending: (digest, bytes, keepMs) => store.putPending(digest, bytes, keepMs),
    transaction: (digest) => store.transaction(digest),
    apply: (digest, change, keepMs) => store.apply(digest, change, keepMs),
  };
  return { store: proxy, state };
}

/** Registers the resolution tests for the fresh ledgers `create` makes. */
export function ledgerResolveSuite(name: string, create: () => Promise<LedgerStorage>) {
  Deno.test(`${name}: a key removed through another handle is refused by the next call, however warm`, async () => {
    await using storage = await create();
    const ledger = await withAccount(storage);
    const relayer = new LocalLedger(await storage.open());
    for (let i = 0; i < 20; i++) {
      assert.equal(
        (await relayer.resolve(ledger.key.publicKey, ledger.accountId))?.accountId,
        ledger.accountId,
      );
    }
    await ledger.transact({
      kind: "remove_delegate_key",
      account_id: ledger.accountId,
      public_key: ledger.key.publicKey,
    });
    assert.equal(await relayer.resolve(ledger.key.publicKey, ledger.accountId), null);
    assert.equal(await relayer.resolve(ledger.key.publicKey), null);
  });

  Deno.test(`${name}: deactivation, reactivation and a new key are seen by the next call`, async () => {
    await using storage = await create();
    const ledger = await withAccount(storage);
    const relayer = new LocalLedger(await storage.open());
    const newcomer = await generateKeyPair();
    assert.equal((await relayer.resolve(ledger.key.publicKey))?.active, true);
    assert.equal(await relayer.resolve(newcomer.publicKey), null, "unknown, for now");
    await ledger.transact({ kind: "deactivate_account", account_id: ledger.accountId });
    assert.equal((await relayer.resolve(ledger.key.publicKey))?.active, false);
    await ledger.transact({ kind: "reactivate_account", account_id: ledger.accountId });
    assert.equal((await relayer.resolve(ledger.key.publicKey))?.active, true);
    await ledger.addKey(newcomer);
    assert.equal((await relayer.resolve(newcomer.publicKey))?.accountId, ledger.accountId);
  });

  Deno.test(`${name}: while the ledger is unchanged, one read a call, shared by concurrent calls`, async () => {
    await using storage = await create();
    const ledger = await withAccount(storage);
    const { store, state } = watched(await storage.open());
    const relayer = new LocalLedger(store);
    await relayer.resolve(ledger.key.publicKey);
    state.versionReads = 0;
    for (let i = 0; i < 10; i++) await relayer.resolve(ledger.key.publicKey);
    assert.equal(state.versionReads, 10, "one read of the version per call, and nothing else");
    state.versionReads = 0;
    const resolved = await Promise.all(
      Array.from({ length: 50 }, () => relayer.resolve(ledger.key.publicKey)),
    );
    assert.ok(resolved.every((r) => r?.accountId === ledger.accountId));
    assert.ok(state.versionReads <= 2, `${state.versionReads} reads for 50 concurrent calls`);
  });

  Deno.test(`${name}: a call made after a change never shares a read started before it`, async () => {
    await using storage = await create();
    const ledger = await withAccount(storage);
    const { store, state } = watched(await storage.open());
    const relayer = new LocalLedger(store);
    assert.ok(await relayer.resolve(ledger.key.publicKey), "warm");
    // A read of the version is made before the key is removed; its answer is held until after.
    let release!: () => void;
    state.hold = new Promise((resolve) => release = resolve);
    const before = relayer.resolve(ledger.key.publicKey);
    await new Promise((resolve) => setTimeout(resolve, 20));
    state.hold = undefined;
    await ledger.transact({
      kind: "remove_delegate_key",
      account_id: ledger.accountId,
      public_key: ledger.key.publicKey,
    });
    const after = relayer.resolve(ledger.key.publicKey);
    release();
    assert.ok(await before, "made before the removal: may be accepted");
    assert.equal(await after, null, "made after the removal: refused");
  });

  Deno.test(`${name}: answers are copies, which a caller may change`, async () => {
    await using storage = await create();
    const ledger = await withAccount(storage);
    const relayer = new LocalLedger(await storage.open());
    const first = (await relayer.resolve(ledger.key.publicKey))!;
    first.active = false;
    first.owner = "someone else";
    const second = (await relayer.resolve(ledger.key.publicKey))!;
    assert.equal(second.active, true);
    assert.notEqual(second.owner, "someone else");
  });
}
