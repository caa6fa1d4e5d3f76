/**
 * Resolution on the local ledger: answered from memory while the ledger's version is unchanged,
 * yet a change committed through any other handle (the CLI's, the sidecar's) is seen by the
 * very next call.
 */
import assert from "node:assert/strict";
import { generateKeyPair, type KeyPair } from "../../src/kit.ts";
import { LocalLedger, type TransactionEffects } from "./mod.ts";
import { submitTransaction, type TransactionKind } from "./transactions.ts";

/** A ledger file with an account and one key, and a wallet changing it through its own handle. */
async function ledgerFile() {
  const dir = await Deno.makeTempDir({ prefix: "svc-ledger-resolve-" });
  const handles: Deno.Kv[] = [];
  const open = async () => {
    const kv = await Deno.openKv(`${dir}/ledger.kv`);
    handles.push(kv);
    return kv;
  };
  const wallet = new LocalLedger(await open());
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
  return {
    open,
    accountId,
    key,
    transact,
    addKey,
    async [Symbol.asyncDispose]() {
      for (const kv of handles) kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * `kv`, counting the reads of the ledger's version; while `hold` is set, their answers wait for
 * it (the reads themselves are made at once).
 */
function watched(kv: Deno.Kv) {
  const state = { versionReads: 0, hold: undefined as Promise<void> | undefined };
  const get = async (key: Deno.KvKey) => {
    const isVersion = key.length === 1 && key[0] === "ledger_version";
    if (isVersion) state.versionReads++;
    const hold = isVersion ? state.hold : undefined;
    const entry = await kv.get(key);
    await hold;
    return entry;
  };
  const proxy = new Proxy(kv, {
    get(target, name) {
      if (name === "get") return get;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, state };
}

Deno.test("ledger resolve: a key removed through another handle is refused by the next call, however warm", async () => {
  await using file = await ledgerFile();
  const relayer = new LocalLedger(await file.open());
  for (let i = 0; i < 20; i++) {
    assert.equal(
      (await relayer.resolve(file.key.publicKey, file.accountId))?.accountId,
      file.accountId,
    );
  }
  await file.transact({
    kind: "remove_delegate_key",
    account_id: file.accountId,
    public_key: file.key.publicKey,
  });
  assert.equal(await relayer.resolve(file.key.publicKey, file.accountId), null);
  assert.equal(await relayer.resolve(file.key.publicKey), null);
});

Deno.test("ledger resolve: deactivation, reactivation and a new key are seen by the next call", async () => {
  await using file = await ledgerFile();
  const relayer = new LocalLedger(await file.open());
  const newcomer = await generateKeyPair();
  assert.equal((await relayer.resolve(file.key.publicKey))?.active, true);
  assert.equal(await relayer.resolve(newcomer.publicKey), null, "unknown, for now");
  await file.transact({ kind: "deactivate_account", account_id: file.accountId });
  assert.equal((await relayer.resolve(file.key.publicKey))?.active, false);
  await file.transact({ kind: "reactivate_account", account_id: file.accountId });
  assert.equal((await relayer.resolve(file.key.publicKey))?.active, true);
  await file.addKey(newcomer);
  assert.equal((await relayer.resolve(newcomer.publicKey))?.accountId, file.accountId);
});

Deno.test("ledger resolve: while the ledger is unchanged, one read a call, shared by concurrent calls", async () => {
  await using file = await ledgerFile();
  const { kv, state } = watched(await file.open());
  const relayer = new LocalLedger(kv);
  await relayer.resolve(file.key.publicKey);
  state.versionReads = 0;
  for (let i = 0; i < 10; i++) await relayer.resolve(file.key.publicKey);
  assert.equal(state.versionReads, 10, "one read of the version per call, and nothing else");
  state.versionReads = 0;
  const resolved = await Promise.all(
    Array.from({ length: 50 }, () => relayer.resolve(file.key.publicKey)),
  );
  assert.ok(resolved.every((r) => r?.accountId === file.accountId));
  assert.ok(state.versionReads <= 2, `${state.versionReads} reads for 50 concurrent calls`);
});

Deno.test("ledger resolve: a call made after a change never shares a read started before it", async () => {
  await using file = await ledgerFile();
  const { kv, state } = watched(await file.open());
  const relayer = new LocalLedger(kv);
  assert.ok(await relayer.resolve(file.key.publicKey), "warm");
  // A read of the version is made before the key is removed; its answer is held until after.
  let release!: () => void;
  state.hold = new Promise((resolve) => release = resolve);
  const before = relayer.resolve(file.key.publicKey);
  await new Promise((resolve) => setTimeout(resolve, 20));
  state.hold = undefined;
  await file.transact({
    kind: "remove_delegate_key",
    account_id: file.accountId,
    public_key: file.key.publicKey,
  });
  const after = relayer.resolve(file.key.publicKey);
  release();
  assert.ok(await before, "made before the removal: may be accepted");
  assert.equal(await after, null, "made after the removal: refused");
});

Deno.test("ledger resolve: answers are copies, which a caller may change", async () => {
  await using file = await ledgerFile();
  const relayer = new LocalLedger(await file.open());
  const first = (await relayer.resolve(file.key.publicKey))!;
  first.active = false;
  first.owner = "someone else";
  const second = (await relayer.resolve(file.key.publicKey))!;
  assert.equal(second.active, true);
  assert.notEqual(second.owner, "someone else");
});
