/**
 * The ledger of the `account` and `key` commands with `SVC_CHAIN=sui`: accounts are `SvcAccount`
 * objects read from the full node at `SVC_SUI_RPC_URL`, changed by transactions that the owner
 * key signs and the relayer's `/sponsor` routes pay for (docs/network-mode.md, "Accounts").
 */
import { bcs } from "@mysten/sui/bcs";
import { Transaction, TransactionDataBuilder } from "@mysten/sui/transactions";
import { normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { SettingsReader, SvcError } from "@svc/relayer/kit";
import { addressOf } from "@svc/util/keys";
import { refusal } from "@svc/relayer/client";
import { readObjectId, readPackageId, readSuiRpcUrl } from "@svc/sui/settings";
import {
  accountType,
  addDelegateKeyCall,
  createAccountCall,
  removeDelegateKeyCall,
  setActiveCall,
  type SvcAccountIds,
} from "@svc/sui/svc_account";
import { parseAccount, SuiAccountDirectory } from "@svc/sui/account_directory";
import { suiClient, withRpc } from "@svc/sui/rpc_client";
import { suiKeypair } from "@svc/sui/keys";
import type { TransactionKind } from "@svc/local-ledger/transactions";
import type { Ledger } from "./svc_ledger.ts";
import { UsageError } from "./client_flags.ts";

const NODE = "the Sui node at SVC_SUI_RPC_URL";
/** How long a sponsor route may take: it waits on the chain. */
const SPONSOR_TIMEOUT_MS = 60_000;

/** The ledger on Sui of `env`'s settings, whose transactions the relayer at `relayer` pays. */
export function suiLedger(env: Record<string, string | undefined>, relayer: string): Ledger {
  const read = new SettingsReader(env);
  const rpcUrl = readSuiRpcUrl(read);
  const packageId = readPackageId(read);
  const registryId = readObjectId(read, "SVC_REGISTRY_ID");
  if (read.problems.length > 0) throw new UsageError(read.problems.join("; "));
  const client = suiClient(NODE, { rpcUrl });
  /** The ids a transaction calls, checked to name the package and its registry. */
  async function callIds(): Promise<SvcAccountIds> {
    if (!registryId) {
      throw new UsageError(
        "SVC_REGISTRY_ID is required by the account and key commands that change an account " +
          "with SVC_CHAIN=sui",
      );
    }
    await (await SuiAccountDirectory.open({ rpcUrl, packageId, registryId })).checkIds();
    return { packageId, registryId };
  }

  /** Posts `body` to the relayer's sponsor route `path`; its JSON answer, with `fields`. */
  async function sponsor(path: string, body: unknown, fields: string[]) {
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(path, relayer), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(SPONSOR_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (cause) {
      if ((cause as Error).name === "TimeoutError") {
        throw new SvcError(
          "backend_unavailable",
          `The relayer at ${relayer} did not answer ${path} within ${SPONSOR_TIMEOUT_MS / 1000} s`,
          { cause },
        );
      }
      throw new SvcError("backend_unavailable", `Cannot reach the relayer at ${relayer}`, {
        cause,
        details: { reason: "unreachable" },
      });
    }
    if (!response.ok) throw refusal(response, text);
    let answer: Record<string, unknown> = {};
    try {
      answer = JSON.parse(text) ?? {};
    } catch { /* named below */ }
    if (!fields.every((field) => typeof answer[field] === "string")) {
      throw new SvcError(
        "backend_unavailable",
        `The relayer at ${relayer} answered ${path} without ${fields.join(" and ")}`,
      );
    }
    return answer;
  }

  return {
    async getAccount(accountId) {
      const { data } = await withRpc(NODE, "read the account", {}, (signal) =>
        client.getObject({
          id: accountId,
          options: { showType: true, showContent: true },
          signal,
        }));
      if (!data?.type) return null;
      const isAccount = data.type.includes("::") &&
        normalizeStructTag(data.type) === accountType(packageId);
      if (!isAccount || data.content?.dataType !== "moveObject") {
        // (A wrong SVC_PACKAGE_ID makes every account one of another package.)
        throw new SvcError(
          "not_found",
          `${accountId} is a ${data.type}, not an account of SVC_PACKAGE_ID ${packageId}`,
        );
      }
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
      addCall(tx, await callIds(), kind);
      const built = await withRpc(
        NODE,
        "build the transaction",
        {},
        () => tx.build({ client, onlyTransactionKind: true }),
      );
      const answer = await sponsor("/sponsor", {
        transactionKind: built.toBase64(),
        sender,
      }, ["bytes", "digest"]);
      const digest = answer.digest as string;
      const sponsored = Uint8Array.fromBase64(answer.bytes as string);
      checkSponsored(sponsored, digest, built, sender);
      const { signature } = await signer.signTransaction(sponsored);
      const executed = await sponsor("/sponsor/execute", { digest, signature }, ["digest"]);
      return (executed.effects as { account_id?: string } | undefined)?.account_id;
    },
  };
}

/**
 * Refuses to sign what the relayer's sponsor returned unless it is the transaction asked for:
 * `kind` from `sender`, its gas paid by another, `digest` its hash. The relayer may be another's
 * machine: the owner key signs nothing else (a transfer, a key of theirs added).
 */
export function checkSponsored(
  bytes: Uint8Array,
  digest: string,
  kind: Uint8Array,
  sender: string,
) {
  let data;
  try {
    data = bcs.TransactionData.parse(bytes).V1;
  } catch { /* not a transaction: refused below */ }
  const same = (a: Uint8Array, b: Uint8Array) =>
    a.length === b.length && a.every((byte, i) => byte === b[i]);
  if (
    !data || normalizeSuiAddress(data.sender) !== sender ||
    normalizeSuiAddress(data.gasData.owner ?? data.sender) === sender ||
    !same(bcs.TransactionKind.serialize(data.kind).toBytes(), kind) ||
    TransactionDataBuilder.getDigestFromBytes(bytes) !== digest
  ) {
    throw new SvcError(
      "backend_unavailable",
      "The relayer's sponsor returned another transaction than the one asked for: nothing was " +
        "signed",
    );
  }
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
