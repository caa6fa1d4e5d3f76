/**
 * Relayers sharing one local ledger, each with its own KV handle on the ledger file (as the
 * relayer and its sidecar, or two relayers, are separate processes), and a signed recall.
 */
import { generateKeyPair, type KeyPair } from "@svc/util/keys";
import { signRequest } from "../src/auth/signing.ts";
import { LocalLedger, type TransactionEffects } from "../plugins/local_ledger/mod.ts";
import { submitTransaction, type TransactionKind } from "../plugins/local_ledger/transactions.ts";
import type { RelayerOptions } from "../src/relayer.ts";
import { startTestRelayer, type TestRelayer } from "./fixtures.ts";

export interface SharedLedger extends AsyncDisposable {
  /** A relayer over its own handle on the ledger file. */
  relayer(options?: Partial<RelayerOptions>): Promise<TestRelayer>;
  /** The account's one delegate key. */
  key: KeyPair;
  accountId: string;
  /** Runs a transaction of the account's owner through a handle of its own. */
  transact(kind: TransactionKind): Promise<void>;
}

export async function sharedLedger(): Promise<SharedLedger> {
  const dir = await Deno.makeTempDir({ prefix: "svc-ledger-" });
  const handles: Deno.Kv[] = [];
  const relayers: TestRelayer[] = [];
  const open = async () => {
    const kv = await Deno.openKv(`${dir}/ledger.kv`);
    handles.push(kv);
    return await LocalLedger.open({ kv });
  };
  const wallet = await open();
  const owner = await generateKeyPair();
  const created = await submitTransaction(wallet, owner, { kind: "create_account" });
  const accountId = (created.effects as TransactionEffects).account_id;
  const key = await generateKeyPair();
  await submitTransaction(wallet, owner, {
    kind: "add_delegate_key",
    account_id: accountId,
    public_key: key.publicKey,
    label: "agent",
  });
  return {
    key,
    accountId,
    async transact(kind) {
      await submitTransaction(await open(), owner, kind);
    },
    async relayer(options = {}) {
      const relayer = await startTestRelayer({ directory: await open(), ...options });
      relayers.push(relayer);
      return relayer;
    },
    async [Symbol.asyncDispose]() {
      for (const relayer of relayers) await relayer[Symbol.asyncDispose]();
      for (const kv of handles) kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/**
 * A signed `POST /api/recall` by `key` (the account's key by default): version 2 for
 * `audience`, else version 1 with a nonce.
 */
export async function recallRequest(
  shared: SharedLedger,
  audience?: string,
  key: KeyPair = shared.key,
): Promise<RequestInit> {
  const body = JSON.stringify({ query: "anything" });
  const headers = await signRequest({
    key,
    method: "POST",
    path: "/api/recall",
    body,
    nonce: true,
    audience,
    accountId: shared.accountId,
  });
  return { body, headers: { ...headers, "content-type": "application/json" } };
}

/** `accepted`, or the status and the error's reason (else its code). */
export async function reasonOf(response: Response): Promise<string> {
  const body = await response.json();
  return response.ok ? "accepted" : `${response.status} ${body.reason ?? body.code}`;
}
