/**
 * The Sui account directory passes the AccountDirectory suite against the fake Sui node, with
 * accounts and keys changed by real signed transactions of the emulated `svc_account` module;
 * the Sui sponsor passes the Sponsor suite there, paying from the gas station's own coins.
 */
import { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { createAccountCall, SuiAccountDirectory, SuiSponsor } from "../../plugins/sui/mod.ts";
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
