/**
 * The on-chain interface of the `svc_account::account` Move module (`contracts/svc_account/`):
 * names, abort codes and the transaction calls a wallet builds. Shared by the account
 * directory, the sponsor and the tests' emulation of the module.
 */
import { bcs } from "@mysten/sui/bcs";
import type { Transaction } from "@mysten/sui/transactions";
import {
  isValidSuiObjectId,
  normalizeStructTag,
  normalizeSuiAddress,
  SUI_CLOCK_OBJECT_ID,
} from "@mysten/sui/utils";
import type { KeyScope, Operation, RejectionReason } from "@svc/relayer/kit";

export type { KeyScope, Operation, RejectionReason } from "@svc/relayer/kit";

/** A transaction of `@mysten/sui` (its `Transaction`), which the `…Call` functions add to. */
export type SuiTransaction = Transaction;

/** The Move module of the account functions. */
export const ACCOUNT_MODULE = "account";
/** Most delegate keys one account holds (the module's limit). */
export const MAX_DELEGATE_KEYS = 20;
/** Longest delegate key label in bytes (the module's limit). */
export const MAX_LABEL_BYTES = 64;
/** Most ids one `erase_memories` call takes (the module's limit). */
export const MAX_ERASE_IDS = 256;
/** Longest erased id in bytes: the identity after the owner's address (the module's limit). */
export const MAX_ERASED_ID_BYTES = 64;
/** Most namespaces a delegate key may be limited to (the module's limit). */
export const MAX_SCOPE_NAMESPACES = 32;
/** Longest namespace in bytes (the module's limit). */
export const MAX_NAMESPACE_BYTES = 256;
/** Each operation's bit in `DelegateKey.operations` (a mask of 0 allows every operation). */
export const OPERATION_BITS: Readonly<Record<Operation, number>> = {
  read: 1,
  write: 2,
  erase: 4,
  audit: 8,
};

/** The entry functions a sponsor may pay for (`seal_approve` is only ever dry-run). */
export const SPONSORED_FUNCTIONS = [
  "create_account",
  "add_delegate_key",
  "remove_delegate_key",
  "deactivate_account",
  "reactivate_account",
  "erase_memories",
] as const;

/** The module's abort codes, as declared in `svc_account.move`. */
export const ABORT = {
  ENotOwner: 1,
  EAccountExists: 2,
  EInactiveAccount: 3,
  EAlreadyActive: 4,
  ETooManyKeys: 5,
  EDuplicateKey: 6,
  EUnknownKey: 7,
  ELabelTooLong: 8,
  EBadPublicKey: 9,
  ENoAccess: 10,
  EErased: 11,
  ENotOwnerOrDelegate: 12,
  EBadErasedIds: 13,
  EBadScope: 14,
  EKeyNotAllowed: 15,
} as const;

/** Each abort code as the local ledger's rejection reason, with its message. */
export const ABORT_REASONS: Record<number, [RejectionReason, string]> = {
  [ABORT.ENotOwner]: ["not_owner", "Only the account's owner can change it"],
  [ABORT.EAccountExists]: ["account_exists", "The sender already has an account"],
  [ABORT.EInactiveAccount]: ["inactive_account", "The account is inactive"],
  [ABORT.EAlreadyActive]: ["already_active", "The account is already active"],
  [ABORT.ETooManyKeys]: [
    "too_many_keys",
    `An account holds at most ${MAX_DELEGATE_KEYS} keys`,
  ],
  [ABORT.EDuplicateKey]: ["duplicate_key", "This delegate key is already registered"],
  [ABORT.EUnknownKey]: ["unknown_key", "This delegate key is not on the account"],
  [ABORT.ELabelTooLong]: ["label_too_long", `A label is at most ${MAX_LABEL_BYTES} bytes`],
  [ABORT.EBadPublicKey]: ["malformed", "A delegate key is a 32-byte Ed25519 public key"],
  [ABORT.ENotOwnerOrDelegate]: [
    "not_owner",
    "Only the account's owner or one of its delegate keys can erase its memories",
  ],
  [ABORT.EBadErasedIds]: [
    "malformed",
    `An erase names 1 to ${MAX_ERASE_IDS} ids of 1 to ${MAX_ERASED_ID_BYTES} bytes`,
  ],
  [ABORT.EBadScope]: [
    "malformed",
    `A key's scope names 1 to ${MAX_SCOPE_NAMESPACES} namespaces of 1 to ` +
    `${MAX_NAMESPACE_BYTES} bytes and known operations`,
  ],
  [ABORT.EKeyNotAllowed]: [
    "not_owner",
    "This delegate key may not erase memories: it lacks the erase scope or has expired",
  ],
};

/** The on-chain mask of a scope's operations: 0 (every operation) when it names none. */
export function operationsMask(operations: readonly Operation[] | undefined): number {
  return (operations ?? []).reduce((mask, op) => mask | OPERATION_BITS[op], 0);
}

/** The operations of an on-chain mask; `undefined` (every operation) for 0. */
export function operationsOfMask(mask: number): Operation[] | undefined {
  if (mask === 0) return undefined;
  return (Object.keys(OPERATION_BITS) as Operation[]).filter((op) => mask & OPERATION_BITS[op]);
}

/** A delegate key's limits as `add_delegate_key` takes them. */
export interface KeyLimitsOnChain {
  /** Namespaces and operations; absent: no limit. */
  scope?: KeyScope;
  /** Unix milliseconds from which the key is refused; absent: never. */
  expiresAt?: number;
}

/** Where the module lives. */
export interface SvcAccountIds {
  /** The published package (env SVC_PACKAGE_ID). */
  packageId: string;
  /** The shared `AccountRegistry` (env SVC_REGISTRY_ID). */
  registryId: string;
}

/** True for a Sui object id or address written as `0x` and 1 to 64 hex digits. */
export function isObjectId(value: unknown): value is string {
  return typeof value === "string" && value.startsWith("0x") &&
    isValidSuiObjectId(normalizeSuiAddress(value));
}

/** The `SvcAccount` struct tag of a package. */
export function accountType(packageId: string): string {
  return normalizeStructTag(target({ packageId }, "SvcAccount"));
}

/** The `AccountRegistry` struct tag of a package. */
export function registryType(packageId: string): string {
  return normalizeStructTag(target({ packageId }, "AccountRegistry"));
}

/** A function or type of the account module. */
const target = (ids: Pick<SvcAccountIds, "packageId">, name: string) =>
  `${normalizeSuiAddress(ids.packageId)}::${ACCOUNT_MODULE}::${name}` as const;

/** Adds `create_account(registry, clock)` to a transaction. */
export function createAccountCall(tx: SuiTransaction, ids: SvcAccountIds): void {
  tx.moveCall({
    target: target(ids, "create_account"),
    arguments: [tx.object(ids.registryId), tx.object(SUI_CLOCK_OBJECT_ID)],
  });
}

/**
 * Adds `add_delegate_key(registry, account, public_key, label, namespaces, operations,
 * expires_at, clock)` to a transaction: empty namespaces, a 0 mask and a 0 expiry limit nothing.
 */
export function addDelegateKeyCall(
  tx: SuiTransaction,
  ids: SvcAccountIds,
  accountId: string,
  publicKeyHex: string,
  label: string,
  limits: KeyLimitsOnChain = {},
): void {
  tx.moveCall({
    target: target(ids, "add_delegate_key"),
    arguments: [
      tx.object(ids.registryId),
      tx.object(accountId),
      tx.pure.vector("u8", Uint8Array.fromHex(publicKeyHex)),
      tx.pure.string(label),
      tx.pure.vector("string", limits.scope?.namespaces ?? []),
      tx.pure.u8(operationsMask(limits.scope?.operations)),
      tx.pure.u64(limits.expiresAt ?? 0),
      tx.object(SUI_CLOCK_OBJECT_ID),
    ],
  });
}

/**
 * Adds `seal_approve(id, account, clock)` to a transaction (key servers dry-run it; it is never
 * executed): `id` is the full identity, the owner's address bytes first.
 */
export function sealApproveCall(
  tx: SuiTransaction,
  ids: Pick<SvcAccountIds, "packageId">,
  accountId: string,
  id: Uint8Array,
): void {
  tx.moveCall({
    target: target(ids, "seal_approve"),
    arguments: [tx.pure.vector("u8", id), tx.object(accountId), tx.object(SUI_CLOCK_OBJECT_ID)],
  });
}

/** Adds `remove_delegate_key(registry, account, public_key)` to a transaction. */
export function removeDelegateKeyCall(
  tx: SuiTransaction,
  ids: SvcAccountIds,
  accountId: string,
  publicKeyHex: string,
): void {
  tx.moveCall({
    target: target(ids, "remove_delegate_key"),
    arguments: [
      tx.object(ids.registryId),
      tx.object(accountId),
      tx.pure.vector("u8", Uint8Array.fromHex(publicKeyHex)),
    ],
  });
}

/**
 * Adds `erase_memories(account, ids, clock)` to a transaction: `ids` are the erased identities
 * without the owner's address (for svc, each memory id's 16 bytes).
 */
export function eraseMemoriesCall(
  tx: SuiTransaction,
  ids: SvcAccountIds,
  accountId: string,
  erased: Uint8Array[],
): void {
  tx.moveCall({
    target: target(ids, "erase_memories"),
    arguments: [
      tx.object(accountId),
      tx.pure(bcs.vector(bcs.byteVector()).serialize(erased)),
      tx.object(SUI_CLOCK_OBJECT_ID),
    ],
  });
}

/** Adds `deactivate_account(account)` or `reactivate_account(account)` to a transaction. */
export function setActiveCall(
  tx: SuiTransaction,
  ids: SvcAccountIds,
  accountId: string,
  active: boolean,
): void {
  tx.moveCall({
    target: target(ids, active ? "reactivate_account" : "deactivate_account"),
    arguments: [tx.object(accountId)],
  });
}
