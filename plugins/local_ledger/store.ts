/**
 * Where the local ledger keeps its state: a small storage interface under `LocalLedger`, so the
 * ledger's rules (who may change an account, at most 20 keys, each transaction at most once) are
 * written once, over any storage; `StateLedgerStore` keeps it in a `StateStore` (Deno KV on one
 * machine, PostgreSQL for many relayers).
 *
 * A store keeps accounts (found by id, by owner, by delegate key), transactions awaiting their
 * signature and the digests of executed ones, and a version that changes in the commit of every
 * applied transaction. `apply` runs the ledger's rules on a consistent view of the accounts and
 * commits their writes together with the executed digest, at most once per digest, whichever
 * process or relayer applies it.
 */
import { type Operation, SvcError } from "@svc/relayer/kit";
import { sleep } from "@svc/util/sleep";
import type { TransactionKind } from "./transactions.ts";

/** A delegate key of an account, with its limits. */
export interface DelegateKey {
  /** The Ed25519 public key, as 64 lowercase hex characters. */
  public_key: string;
  /** The key's address, derived from the public key. */
  address: string;
  /** The name the owner gave the key (at most 64 bytes). */
  label: string;
  /** When the key was added (ISO 8601, UTC). */
  created_at: string;
  /** The namespaces the key may use; absent: all (keys added before scopes have none). */
  namespaces?: string[];
  /** The operations the key may perform; absent: all. */
  operations?: Operation[];
  /** When the key stops working (ISO 8601, UTC); absent: never. */
  expires_at?: string;
}

/** An account of the ledger, as the dashboard and the CLI show it. */
export interface LedgerAccount {
  /** The account id: 0x and 64 lowercase hex characters. */
  id: string;
  /** The owner's address: only transactions the owner signs change the account. */
  owner: string;
  /** The account's delegate keys, oldest first (at most 20). */
  delegate_keys: DelegateKey[];
  /** False once the owner deactivates the account, until it is reactivated. */
  active: boolean;
  /** When the account was created (ISO 8601, UTC). */
  created_at: string;
}

/** What an executed transaction did. */
export interface TransactionEffects {
  /** Always "success": a transaction that fails throws instead. */
  status: "success";
  /** The transaction's kind. */
  kind: TransactionKind["kind"];
  /** The account the transaction created or changed. */
  account_id: string;
  /** The sender's address: the account's owner. */
  sender: string;
  /** The delegate key added or removed. */
  public_key?: string;
  /** When the transaction executed (ISO 8601, UTC). */
  executed_at: string;
}

/** A transaction the store knows: executed, or sponsored and awaiting its signature. */
export type StoredTransaction = { executed: true } | {
  executed: false;
  /** The sponsored transaction bytes. */
  bytes: Uint8Array;
};

/**
 * The view of the ledger one transaction's rules read and write. Reads see the state the
 * change commits against (a change that would commit over a newer state is not committed);
 * writes take effect at the commit, all together or not at all.
 */
export interface LedgerChange {
  /** The account `id`, or `null`. */
  account(id: string): Promise<LedgerAccount | null>;
  /** The id of the account `owner` owns, or `null`. */
  accountIdOfOwner(owner: string): Promise<string | null>;
  /** Whether `publicKey` is a delegate key of any account. */
  isKeyRegistered(publicKey: string): Promise<boolean>;
  /** Writes the account (new or changed), found then by its id and its owner. */
  putAccount(account: LedgerAccount): void;
  /** Registers `publicKey` as a delegate key of the account `accountId`. */
  putKey(publicKey: string, accountId: string): void;
  /** Forgets the delegate key `publicKey`. */
  deleteKey(publicKey: string): void;
}

/** How many times a change another handle's commit beat is tried, at most. */
const CHANGE_ATTEMPTS = 8;

/**
 * Runs `change` until another handle's commit no longer beats it (it resolves to `null` then), up
 * to `CHANGE_ATTEMPTS` times, each try after a random pause that grows with the tries, so that
 * handles beating each other's commits fall out of step; then a 503 saying `busy`. Stops with
 * `signal`'s reason once it aborts, even between tries.
 */
export async function untilApplied<T>(
  change: () => Promise<T | null>,
  busy: string,
  signal?: AbortSignal,
): Promise<T> {
  for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
    if (attempt > 0) await sleep(Math.random() * 10 * 2 ** attempt, signal);
    signal?.throwIfAborted();
    const applied = await change();
    if (applied !== null) return applied;
  }
  throw new SvcError("backend_unavailable", busy);
}

/** The storage of a `LocalLedger`; see the module documentation. */
export interface LedgerStore {
  /** The ledger's version: it changes in the commit of every applied transaction. */
  version(): Promise<string | null>;
  /** The account `id`, or `null`. */
  account(id: string): Promise<LedgerAccount | null>;
  /** The account `owner` owns, or `null`. */
  accountOfOwner(owner: string): Promise<LedgerAccount | null>;
  /** The account holding the delegate key `publicKey`, or `null`. */
  accountOfKey(publicKey: string): Promise<LedgerAccount | null>;
  /** Keeps sponsored transaction bytes under their digest for `keepMs`. */
  putPending(digest: string, bytes: Uint8Array, keepMs: number): Promise<void>;
  /** The transaction `digest`: executed, awaiting its signature, or unknown (`null`). */
  transaction(digest: string): Promise<StoredTransaction | null>;
  /**
   * Runs `change` and commits its writes, the executed digest (kept for `keepMs`, with the
   * effects `change` returns) and a new version, in one commit. `null`, with nothing written,
   * when the digest was executed meanwhile or the view changed before the commit (the caller
   * looks again). What `change` throws is thrown, with nothing written.
   */
  apply(
    digest: string,
    change: (view: LedgerChange) => Promise<TransactionEffects>,
    keepMs: number,
  ): Promise<TransactionEffects | null>;
}
