import assert from "node:assert/strict";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { SvcError } from "@svc/relayer/kit";
import { startFakeSui } from "../../tests/fixtures/sui_network.ts";
import { installSvcAccount } from "../../tests/fixtures/svc_account_emulation.ts";
import {
  accountType,
  addDelegateKeyCall,
  createAccountCall,
  removeDelegateKeyCall,
  sealApproveCall,
  setActiveCall,
  SuiAccountDirectory,
  SuiSponsor,
  type SvcAccountIds,
} from "./mod.ts";

async function setup(options: { coins?: number; now?: () => number } = {}) {
  const sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  const gasKey = Ed25519Keypair.generate();
  for (let i = 0; i < (options.coins ?? 3); i++) {
    sui.network.mintGas(gasKey.toSuiAddress(), 1_000_000_000n);
  }
  const sponsor = await SuiSponsor.open({
    rpcUrl: sui.url,
    packageId: ids.packageId,
    sponsorPrivateKey: gasKey.getSecretKey(),
    now: options.now,
  });
  const client = new SuiJsonRpcClient({ url: sui.url, network: "localnet" });
  const kind = async (sender: string, build: (tx: Transaction, ids: SvcAccountIds) => void) => {
    const tx = new Transaction();
    tx.setSender(sender);
    build(tx, ids);
    return await tx.build({ client, onlyTransactionKind: true });
  };
  return { sui, ids, sponsor, gasKey, kind, [Symbol.asyncDispose]: () => sui.close() };
}

async function transact(
  sponsor: SuiSponsor,
  signer: Ed25519Keypair,
  kindBytes: Uint8Array<ArrayBuffer>,
) {
  const { bytes, digest } = await sponsor.sponsor(kindBytes, signer.toSuiAddress());
  const { signature } = await signer.signTransaction(bytes);
  return await sponsor.execute(digest, signature);
}

const rejects = (code: string, reason?: string) => (error: unknown) => {
  assert.ok(error instanceof SvcError, String(error));
  assert.equal(error.code, code, error.message);
  if (reason) assert.equal(error.details.reason, reason, error.message);
  return true;
};

const KEY = "ab".repeat(32);

Deno.test("SuiSponsor: an owner without gas creates an account and adds a key", async () => {
  await using t = await setup();
  const owner = Ed25519Keypair.generate();
  const me = owner.toSuiAddress();
  const created = await transact(t.sponsor, owner, await t.kind(me, createAccountCall));
  const accountId = created.effects.account_id!;
  assert.equal(created.effects.kind, "create_account");
  assert.equal(created.effects.sender, me);
  const account = t.sui.network.getObject(accountId)!;
  assert.equal(account.type, accountType(t.ids.packageId));
  assert.equal(account.fields.owner, me);
  assert.equal(t.sui.network.ownedObjects(me).length, 0, "the owner paid nothing");

  const added = await transact(
    t.sponsor,
    owner,
    await t.kind(me, (tx, ids) =>
      addDelegateKeyCall(tx, ids, accountId, KEY, "laptop", {
        scope: { operations: ["read"] },
      })),
  );
  assert.equal(added.effects.public_key, KEY);
  assert.equal(added.effects.account_id, accountId);
  const directory = await SuiAccountDirectory.open({ rpcUrl: t.sui.url, ...t.ids });
  assert.deepEqual(await directory.resolve(KEY), {
    accountId,
    owner: me,
    active: true,
    label: "laptop",
    scope: { operations: ["read"] },
  });

  // The rules hold through the sponsor, as reasons the ledger also uses.
  await assert.rejects(
    async () => transact(t.sponsor, owner, await t.kind(me, createAccountCall)),
    rejects("conflict", "account_exists"),
  );
  await assert.rejects(
    async () =>
      transact(
        t.sponsor,
        owner,
        await t.kind(me, (tx, ids) => addDelegateKeyCall(tx, ids, accountId, KEY, "x")),
      ),
    rejects("conflict", "duplicate_key"),
  );
  const stranger = Ed25519Keypair.generate();
  await assert.rejects(
    async () =>
      transact(
        t.sponsor,
        stranger,
        await t.kind(
          stranger.toSuiAddress(),
          (tx, ids) => setActiveCall(tx, ids, accountId, false),
        ),
      ),
    rejects("bad_request", "not_owner"),
  );
  await assert.rejects(
    async () =>
      transact(
        t.sponsor,
        owner,
        await t.kind(
          me,
          (tx, ids) => addDelegateKeyCall(tx, ids, accountId, "cd".repeat(32), "é".repeat(33)),
        ),
      ),
    rejects("bad_request", "label_too_long"),
  );
  await transact(
    t.sponsor,
    owner,
    await t.kind(me, (tx, ids) => setActiveCall(tx, ids, accountId, false)),
  );
  assert.equal((await directory.resolve(KEY))?.active, false);
  await transact(
    t.sponsor,
    owner,
    await t.kind(me, (tx, ids) => removeDelegateKeyCall(tx, ids, accountId, KEY)),
  );
  assert.equal(await directory.resolve(KEY), null);
});

Deno.test("SuiSponsor: refuses anything but the account functions", async () => {
  await using t = await setup();
  const owner = Ed25519Keypair.generate();
  const me = owner.toSuiAddress();
  const transfer = await t.kind(me, (tx) => {
    const [coin] = tx.splitCoins(tx.gas, [1000]);
    tx.transferObjects([coin], me);
  });
  await assert.rejects(
    () => t.sponsor.sponsor(transfer, me),
    rejects("forbidden", "not_sponsored"),
  );
  t.sui.network.defineMoveFunction("0xbad::account::create_account", { parameters: [], run() {} });
  const other = await t.kind(me, (tx) => tx.moveCall({ target: "0xbad::account::create_account" }));
  await assert.rejects(() => t.sponsor.sponsor(other, me), rejects("forbidden", "not_sponsored"));
  const seal = await t.kind(
    me,
    (tx, ids) => sealApproveCall(tx, ids, ids.registryId, new Uint8Array([1])),
  );
  await assert.rejects(() => t.sponsor.sponsor(seal, me), rejects("forbidden", "not_sponsored"));
  await assert.rejects(
    () => t.sponsor.sponsor(new Uint8Array([9, 9, 9]), me),
    rejects("bad_request", "malformed"),
  );
  const create = await t.kind(me, createAccountCall);
  await assert.rejects(
    () => t.sponsor.sponsor(create, "0x12"),
    rejects("bad_request", "malformed"),
  );
  await assert.rejects(
    SuiSponsor.open({ rpcUrl: t.sui.url, packageId: t.ids.packageId, sponsorPrivateKey: "nope" }),
    rejects("bad_request"),
  );
});

Deno.test("SuiSponsor: signatures, digests, replays and expiry", async () => {
  let now = 1_000_000;
  await using t = await setup({ now: () => now });
  const owner = Ed25519Keypair.generate();
  const me = owner.toSuiAddress();
  const { bytes, digest } = await t.sponsor.sponsor(await t.kind(me, createAccountCall), me);
  const other = await Ed25519Keypair.generate().signTransaction(bytes);
  await assert.rejects(
    () => t.sponsor.execute(digest, other.signature),
    rejects("unauthorized", "bad_signature"),
  );
  await assert.rejects(
    () => t.sponsor.execute("not a digest", "x"),
    rejects("bad_request", "malformed"),
  );
  await assert.rejects(
    () => t.sponsor.execute("11111111111111111111111111111111", "x"),
    rejects("bad_request", "expired"),
  );
  const { signature } = await owner.signTransaction(bytes);
  const done = await t.sponsor.execute(digest, signature);
  assert.equal(done.digest, digest);
  await assert.rejects(
    () => t.sponsor.execute(digest, signature),
    rejects("replayed_request", "replayed"),
  );

  const later = await t.sponsor.sponsor(
    await t.kind(me, (tx, ids) => setActiveCall(tx, ids, done.effects.account_id!, false)),
    me,
  );
  now += 5 * 60_000 + 1;
  const signed = await owner.signTransaction(later.bytes);
  await assert.rejects(
    () => t.sponsor.execute(later.digest, signed.signature),
    rejects("bad_request", "expired"),
  );
});

Deno.test("SuiSponsor: coins, state changes between sponsoring and executing, RPC down", async () => {
  await using t = await setup({ coins: 2 });
  const a = Ed25519Keypair.generate(), b = Ed25519Keypair.generate();
  const accountA = (await transact(t.sponsor, a, await t.kind(a.toSuiAddress(), createAccountCall)))
    .effects.account_id!;
  const accountB = (await transact(t.sponsor, b, await t.kind(b.toSuiAddress(), createAccountCall)))
    .effects.account_id!;
  const addA = await t.sponsor.sponsor(
    await t.kind(a.toSuiAddress(), (tx, ids) => addDelegateKeyCall(tx, ids, accountA, KEY, "a")),
    a.toSuiAddress(),
  );
  const addB = await t.sponsor.sponsor(
    await t.kind(b.toSuiAddress(), (tx, ids) => addDelegateKeyCall(tx, ids, accountB, KEY, "b")),
    b.toSuiAddress(),
  );
  await assert.rejects(
    async () =>
      t.sponsor.sponsor(await t.kind(a.toSuiAddress(), createAccountCall), a.toSuiAddress()),
    rejects("backend_unavailable"),
    "both coins are reserved",
  );
  await t.sponsor.execute(addA.digest, (await a.signTransaction(addA.bytes)).signature);
  await assert.rejects(
    async () => t.sponsor.execute(addB.digest, (await b.signTransaction(addB.bytes)).signature),
    rejects("conflict", "duplicate_key"),
    "the key was registered meanwhile: the chain refuses it",
  );

  const sig = async (s: { bytes: Uint8Array }) => (await a.signTransaction(s.bytes)).signature;
  const pending = await t.sponsor.sponsor(
    await t.kind(a.toSuiAddress(), (tx, ids) => setActiveCall(tx, ids, accountA, false)),
    a.toSuiAddress(),
  );
  const signature = await sig(pending);
  const create = await t.kind(a.toSuiAddress(), createAccountCall);
  t.sui.network.outage = 503;
  await assert.rejects(
    () => t.sponsor.execute(pending.digest, "x".repeat(10)),
    rejects("unauthorized"),
  );
  await assert.rejects(
    () => t.sponsor.execute(pending.digest, signature),
    rejects("backend_unavailable"),
  );
  await assert.rejects(
    () => t.sponsor.sponsor(create, a.toSuiAddress()),
    rejects("backend_unavailable"),
  );
  t.sui.network.outage = null;
  const executed = await t.sponsor.execute(pending.digest, signature);
  assert.equal(executed.effects.kind, "deactivate_account");
});

/** The gas coin a sponsored transaction pays with. */
const gasCoinOf = (bytes: Uint8Array) =>
  Transaction.from(bytes).getData().gasData.payment![0].objectId;

Deno.test("SuiSponsor: concurrent calls never share a gas coin; a failed call frees its coin", async () => {
  await using t = await setup({ coins: 2 });
  const owners = Array.from({ length: 5 }, () => Ed25519Keypair.generate());
  const kinds = await Promise.all(owners.map((o) => t.kind(o.toSuiAddress(), createAccountCall)));
  const results = await Promise.allSettled(
    owners.map((o, i) => t.sponsor.sponsor(kinds[i], o.toSuiAddress())),
  );
  const ok = results.flatMap((r) => r.status === "fulfilled" ? [r.value] : []);
  assert.equal(ok.length, 2, "one transaction per coin");
  assert.notEqual(gasCoinOf(ok[0].bytes), gasCoinOf(ok[1].bytes));
  for (const r of results) {
    if (r.status === "rejected") rejects("backend_unavailable")(r.reason);
  }

  await using one = await setup({ coins: 1 });
  const owner = Ed25519Keypair.generate();
  const me = owner.toSuiAddress();
  const create = await one.kind(me, createAccountCall);
  const accountId = (await transact(one.sponsor, owner, create)).effects.account_id!;
  // The dry run fails (the account exists) after the only coin was picked.
  await assert.rejects(() => one.sponsor.sponsor(create, me), rejects("conflict"));
  const added = await transact(
    one.sponsor,
    owner,
    await one.kind(me, (tx, ids) => addDelegateKeyCall(tx, ids, accountId, KEY, "x")),
  );
  assert.equal(added.effects.kind, "add_delegate_key", "the coin is usable after the failure");
});

Deno.test("SuiSponsor: maxPending counts the calls still building their transaction", async () => {
  await using t = await setup({ coins: 3 });
  const sponsor = await SuiSponsor.open({
    rpcUrl: t.sui.url,
    packageId: t.ids.packageId,
    sponsorPrivateKey: t.gasKey.getSecretKey(),
    maxPending: 1,
  });
  const owners = Array.from({ length: 3 }, () => Ed25519Keypair.generate());
  const kinds = await Promise.all(owners.map((o) => t.kind(o.toSuiAddress(), createAccountCall)));
  const results = await Promise.allSettled(
    owners.map((o, i) => sponsor.sponsor(kinds[i], o.toSuiAddress())),
  );
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  for (const r of results) {
    if (r.status === "rejected") rejects("rate_limited")(r.reason);
  }
});
