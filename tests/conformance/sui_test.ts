/**
 * The Sui account directory passes the AccountDirectory suite against the fake Sui node, with
 * accounts and keys changed by real signed transactions of the emulated `svc_account` module;
 * the Sui sponsor passes the Sponsor suite there, paying from the gas station's own coins, and
 * pays for `erase_memories` as the module allows it.
 */
import assert from "node:assert/strict";
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import {
  createAccountCall,
  eraseMemoriesCall,
  SuiAccountDirectory,
  SuiSponsor,
} from "../../plugins/sui/mod.ts";
import { SvcError } from "../../src/errors.ts";
import { startFakeSui } from "../fixtures/sui_network.ts";
import { installSvcAccount, SvcAccountWallet } from "../fixtures/svc_account_emulation.ts";
import { accountDirectorySuite, sponsorSuite } from "../../src/testing/mod.ts";

accountDirectorySuite("SuiAccountDirectory", async () => {
  const sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  const wallet = new SvcAccountWallet(sui, ids);
  const owners = new Map<string, Ed25519Keypair>();
  return {
    directory: await SuiAccountDirectory.open({ rpcUrl: sui.url, ...ids }),
    add: async (publicKey: string) => {
      const owner = Ed25519Keypair.generate();
      const accountId = await wallet.createAccount(owner);
      owners.set(accountId, owner);
      await wallet.addDelegateKey(owner, accountId, publicKey);
      return { accountId, owner: owner.toSuiAddress() };
    },
    remove: async (accountId: string, publicKey: string) => {
      await wallet.removeDelegateKey(owners.get(accountId)!, accountId, publicKey);
    },
    close: () => sui.close(),
  };
});

sponsorSuite("SuiSponsor", async ({ now, ttlMs }) => {
  const sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  const gasKey = Ed25519Keypair.generate();
  // One coin per transaction awaiting its signature at once (the suite holds at most two).
  for (let i = 0; i < 3; i++) sui.network.mintGas(gasKey.toSuiAddress(), 1_000_000_000n);
  const client = new SuiJsonRpcClient({ url: sui.url, network: "localnet" });
  return {
    sponsor: await SuiSponsor.open({
      rpcUrl: sui.url,
      packageId: ids.packageId,
      sponsorPrivateKey: gasKey.getSecretKey(),
      now,
      ttlMs,
    }),
    newSender: async () => {
      const owner = Ed25519Keypair.generate();
      const tx = new Transaction();
      tx.setSender(owner.toSuiAddress());
      createAccountCall(tx, ids);
      return {
        address: owner.toSuiAddress(),
        kind: await tx.build({ client, onlyTransactionKind: true }),
        sign: async ({ bytes }) => (await owner.signTransaction(bytes)).signature,
      };
    },
    unknownDigest: "11111111111111111111111111111111",
    [Symbol.asyncDispose]: () => sui.close(),
  };
});

Deno.test("SuiSponsor: pays for erase_memories by the owner or a delegate; refuses the others", async () => {
  await using sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  const wallet = new SvcAccountWallet(sui, ids);
  const gasKey = Ed25519Keypair.generate();
  for (let i = 0; i < 2; i++) sui.network.mintGas(gasKey.toSuiAddress(), 1_000_000_000n);
  const sponsor = await SuiSponsor.open({
    rpcUrl: sui.url,
    packageId: ids.packageId,
    sponsorPrivateKey: gasKey.getSecretKey(),
  });
  const owner = Ed25519Keypair.generate(), delegate = Ed25519Keypair.generate();
  const accountId = await wallet.createAccount(owner);
  await wallet.addDelegateKey(owner, accountId, delegate.getPublicKey().toRawBytes().toHex());
  const erase = async (sender: Ed25519Keypair, id: number) => {
    const tx = new Transaction();
    eraseMemoriesCall(tx, ids, accountId, [new Uint8Array(16).fill(id)]);
    const kind = await tx.build({ client: wallet.client, onlyTransactionKind: true });
    const { bytes, digest } = await sponsor.sponsor(kind, sender.toSuiAddress());
    const { signature } = await sender.signTransaction(bytes);
    return (await sponsor.execute(digest, signature)).effects;
  };
  const refusal = async (sender: Ed25519Keypair, id: number) => {
    const error = await erase(sender, id).catch((e) => e);
    assert.ok(error instanceof SvcError, String(error));
    return error.details.reason;
  };
  const erasedCount = () =>
    (sui.network.getObject(accountId)!.fields.erased as { fields: { size: string } }).fields.size;

  const effects = await erase(delegate, 1);
  assert.equal(effects.kind, "erase_memories");
  assert.equal(effects.account_id, accountId);
  assert.equal(effects.sender, delegate.toSuiAddress());
  await erase(owner, 2);
  assert.equal(erasedCount(), "2");
  assert.equal(await refusal(Ed25519Keypair.generate(), 3), "not_owner");
  await wallet.setActive(owner, accountId, false);
  assert.equal(await refusal(delegate, 3), "inactive_account");
  await erase(owner, 3);
  assert.equal(erasedCount(), "3");
  // Neither the delegate nor the owner paid: the sponsor's coins did.
  assert.equal(sui.network.ownedObjects(delegate.toSuiAddress()).length, 0);
});
