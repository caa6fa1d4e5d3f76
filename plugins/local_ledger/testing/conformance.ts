/**
 * The `AccountDirectory` and `Sponsor` conformance suites, run on a `LocalLedger` over any
 * storage: the core's conformance tests run them on Deno KV, the postgres plugin on PostgreSQL.
 */
import { addressOf, generateKeyPair, type KeyPair } from "@svc/util/keys";
import { accountDirectorySuite, sponsorSuite } from "@svc/relayer/testing";
import { LocalLedger } from "../mod.ts";
import type { LedgerStore, TransactionEffects } from "../store.ts";
import { encodeKind, signDigest, submitTransaction } from "../transactions.ts";

/** A fresh store for one test, and how to close it after. */
export interface LedgerUnderTest {
  /** The store, empty. */
  store: LedgerStore;
  /** Closes the store (and what it was opened on). */
  close(): void | Promise<void>;
}

/** Registers both suites, named after `name`, for the fresh stores `open` makes. */
export function ledgerConformance(name: string, open: () => Promise<LedgerUnderTest>): void {
  accountDirectorySuite(name, async () => {
    const { store, close } = await open();
    const ledger = new LocalLedger(store);
    const owners = new Map<string, KeyPair>();
    return {
      directory: ledger,
      add: async (publicKey: string) => {
        const owner = await generateKeyPair();
        const created = await submitTransaction(ledger, owner, { kind: "create_account" });
        const accountId = (created.effects as TransactionEffects).account_id;
        owners.set(accountId, owner);
        await submitTransaction(ledger, owner, {
          kind: "add_delegate_key",
          account_id: accountId,
          public_key: publicKey,
          label: "test",
        });
        return { accountId, owner: addressOf(owner.publicKey) };
      },
      remove: async (accountId: string, publicKey: string) => {
        await submitTransaction(ledger, owners.get(accountId)!, {
          kind: "remove_delegate_key",
          account_id: accountId,
          public_key: publicKey,
        });
      },
      close,
    };
  });

  sponsorSuite(name, async ({ now, ttlMs }) => {
    const { store, close } = await open();
    return {
      sponsor: new LocalLedger(store, { now, ttlMs }),
      newSender: async () => {
        const key = await generateKeyPair();
        return {
          address: addressOf(key.publicKey),
          kind: encodeKind({ kind: "create_account" }),
          sign: ({ digest }) => Promise.resolve(signDigest(key, digest)),
        };
      },
      unknownDigest: "a".repeat(64),
      [Symbol.asyncDispose]: async () => await close(),
    };
  });
}
