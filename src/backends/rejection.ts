/**
 * Why a sponsor refuses a transaction. Every sponsor (the local ledger, Sui's gas station)
 * reports its refusals with these reasons, so clients handle them alike.
 */
import { type ErrorCode, SvcError } from "../errors.ts";

/** Why a sponsor refused a transaction; sent as `details.reason` of the error. */
export type RejectionReason =
  | "malformed"
  | "expired"
  | "replayed"
  | "bad_signature"
  | "not_owner"
  | "no_account"
  | "account_exists"
  | "inactive_account"
  | "already_active"
  | "too_many_keys"
  | "duplicate_key"
  | "unknown_key"
  | "label_too_long";

const REJECTION_CODES: Partial<Record<RejectionReason, ErrorCode>> = {
  bad_signature: "unauthorized",
  replayed: "replayed_request",
  account_exists: "conflict",
  duplicate_key: "conflict",
};

/**
 * A refused transaction, always with a reason: 401 for a bad signature, 409 for a replay or
 * a conflict with the ledger's state, 400 otherwise.
 */
export function rejected(reason: RejectionReason, message: string): SvcError {
  return new SvcError(REJECTION_CODES[reason] ?? "bad_request", message, { details: { reason } });
}
