/**
 * The ledger of the `account` and `key` commands with `SVC_CHAIN=sui`: accounts are `SvcAccount`
 * objects read from the full node at `SVC_SUI_RPC_URL`, changed by transactions that the owner
 * key signs and the relayer's `/sponsor` routes pay for (README: Network mode, "Accounts").
 */
import { Transaction } from "@mysten/sui/transactions";
import { normalizeStructTag } from "@mysten/sui/utils";
import { SettingsReader } from "../src/settings_reader.ts";
import { addressOf } from "../src/auth/keys.ts";
import { SvcError } from "../src/errors.ts";
import { refusal } from "../src/client/signed_sender.ts";
import { readObjectId, readPackageId, readSuiRpcUrl } from "../plugins/sui/settings.ts";
import {
  accountType,
  addDelegateKeyCall,
  createAccountCall,
  removeDelegateKeyCall,
  setActiveCall,
  type SvcAccountIds,
} from "../plugins/sui/svc_account.ts";
import { parseAccount } from "../plugins/sui/account_directory.ts";
import { suiClient, withRpc } from "../plugins/sui/rpc_client.ts";
import { suiKeypair } from "../plugins/sui/keys.ts";
import type { DelegateKey, LedgerAccount } from "../plugins/local_ledger/store.ts";
import type { TransactionKind } from "../plugins/local_ledger/transactions.ts";
import { UsageError } from "./client_flags.ts";

/** An account as the commands show it; Sui keeps no dates of accounts and keys. */
export type ListedAccount =
  & Omit<LedgerAccount, "created_at" | "delegate_keys">
  & { delegate_keys: ListedKey[] };
export type ListedKey = Omit<DelegateKey, "created_at"> & { created_at?: string };

/** What the commands do on a ledger: read an account, and submit a signed transaction. */
export interface Ledger {
  getAccount(accountId: string): Promise<ListedAccount | null>;
  /** Signs `kind` with `ownerKey` (a private key) and executes it; a created account's id. */
  submit(ownerKey: string, kind: TransactionKind): Promise<string | undefined>;
}

const NODE = "the Sui node at SVC_SUI_RPC_URL";

/** The ledger on Sui of `env`'s settings, whose transactions the relayer at `relayer` pays. */
export function suiLedger(env: Record<string, string | undefined>, relayer: string): Ledger {
  const read = new SettingsReader(env);
  const rpcUrl = readSuiRpcUrl(read);
  const ids: SvcAccountIds = {
    packageId: readPackageId(read),
    registryId: readObjectId(read, "SVC_REGISTRY_ID") ??
      read.missing("SVC_REGISTRY_ID", "by the account and key commands with SVC_CHAIN=sui"),
  };
  if (read.problems.length > 0) throw new UsageError(read.problems.join("; "));
  const client = suiClient(NODE, { rpcUrl });

  /** Posts `body` to the relayer's sponsor route `path`; its JSON answer. */
  async function sponsor(path: string, body: unknown) {
    let response: Response;
    try {
      response = await fetch(relayer + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch (cause) {
      throw new SvcError("backend_unavailable", `Cannot reach the relayer at ${relayer}`, {
        cause,
      });
    }
    const text = await response.text();
    if (!response.ok) throw refusal(response, text);
    return JSON.parse(text);
  }

  return {
    async getAccount(accountId) {
      const { data } = await withRpc(NODE, "read the account", {}, (signal) =>
        client.getObject({
          id: accountId,
          options: { showType: true, showContent: true },
          signal,
        }));
      if (!data?.type || normalizeStructTag(data.type) !== accountType(ids.packageId)) return null;
      if (data.content?.dataType !== "moveObject") return null;
      const { owner, active, keys } = parseAccount(data.content.fields);
      return {
        id: accountId,
        owner,
        active,
        delegate_keys: keys.map(({ publicKey, label, scope, expiresAt }) => ({
          public_key: publicKey,
          address: addressOf(publicKey),
          label,
          ...scope,
          ...(expiresAt === undefined ? {} : { expires_at: new Date(expiresAt).toISOString() }),
        })),
      };
    },

    async submit(ownerKey, kind) {
      const signer = suiKeypair(ownerKey);
      const sender = signer.toSuiAddress();
      const tx = new Transaction();
      tx.setSender(sender);
      addCall(tx, ids, kind);
      const built = await withRpc(
        NODE,
        "build the transaction",
        {},
        () => tx.build({ client, onlyTransactionKind: true }),
      );
      const sponsored = await sponsor("/sponsor", { transactionKind: built.toBase64(), sender });
      const { signature } = await signer.signTransaction(Uint8Array.fromBase64(sponsored.bytes));
      const { effects } = await sponsor("/sponsor/execute", {
        digest: sponsored.digest,
        signature,
      });
      return effects?.account_id;
    },
  };
}

/** The `svc_account` call of a ledger transaction. */
function addCall(tx: Transaction, ids: SvcAccountIds, kind: TransactionKind): void {
  switch (kind.kind) {
    case "create_account":
      return createAccountCall(tx, ids);
    case "add_delegate_key": {
      const { namespaces, operations, expires_at } = kind;
      return addDelegateKeyCall(tx, ids, kind.account_id, kind.public_key, kind.label, {
        scope: { namespaces, operations },
        expiresAt: expires_at === undefined ? undefined : Date.parse(expires_at),
      });
    }
    case "remove_delegate_key":
      return removeDelegateKeyCall(tx, ids, kind.account_id, kind.public_key);
    case "deactivate_account":
    case "reactivate_account":
      return setActiveCall(tx, ids, kind.account_id, kind.kind === "reactivate_account");
  }
}
