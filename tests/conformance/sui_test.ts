/**
 * The Sui account directory passes the AccountDirectory suite against the fake Sui node, with
 * accounts and keys changed by real signed transactions of the emulated `svc_account` module.
 */
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { SuiAccountDirectory } from "../../plugins/sui/mod.ts";
import { startFakeSui } from "../fixtures/sui_network.ts";
import { installSvcAccount, SvcAccountWallet } from "../fixtures/svc_account_emulation.ts";
import { accountDirectorySuite } from "./suites.ts";

accountDirectorySuite("SuiAccountDirectory", async () => {
  const sui = await startFakeSui();
  const ids = installSvcAccount(sui.network);
  const wallet = new SvcAccountWallet(sui, ids);
  const owners = new Map<string, Ed25519Keypair>();
  return {
    directory: SuiAccountDirectory.open({ rpcUrl: sui.url, ...ids }),
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
    // The suite's close is synchronous; the server's shutdown completes on its own.
    close: () => void sui.close(),
  };
});
