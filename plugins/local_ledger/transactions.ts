/**
 * Transactions of the local ledger, shaped like sponsored Sui transactions: the sender (the
 * account owner's wallet) names a transaction kind, the sponsor wraps it into transaction
 * bytes with an expiry and returns their digest, the owner signs the digest, and the signed
 * digest is executed at most once.
 *
 * Encodings: a kind is UTF-8 JSON (base64 on the wire); the transaction bytes are UTF-8 JSON;
 * the digest is hex(blake2b-256(bytes)); a signature is base64(0x00 ‖ Ed25519 signature of the
 * 32 digest bytes ‖ public key), Sui's serialized Ed25519 signature layout.
 */
import { blake2b } from "@noble/hashes/blake2";
import {
  type Operation,
  parseKeyLimits,
  rejected,
  type Sponsor,
  SvcError,
  UNSHOWN_IN_LABELS,
} from "@svc/relayer/kit";
import { ADDRESS, addressOf, type KeyPair } from "@svc/util/keys";
import { isSmallOrderKey, verifyEd25519 } from "@svc/util/ed25519";
import { jsonProblem, parseJson } from "@svc/util/json";

export type {
  CallOptions,
  KeyPair,
  Operation,
  Sponsor,
  SponsoredTransaction,
} from "@svc/relayer/kit";

/**
 * What a transaction does: create an account, add or remove a delegate key, or deactivate or
 * reactivate an account.
 */
export type TransactionKind =
  | { kind: "create_account" }
  | {
    kind: "add_delegate_key";
    account_id: string;
    public_key: string;
    label: string;
    /** The namespaces the key may use (1 to 32); absent or `null`: all. */
    namespaces?: string[];
    /** The operations the key may perform; absent or `null`: all. */
    operations?: Operation[];
    /** When the key stops working (ISO 8601 UTC, e.g. `2026-07-01T00:00:00.000Z`). */
    expires_at?: string;
  }
  | { kind: "remove_delegate_key"; account_id: string; public_key: string }
  | { kind: "deactivate_account"; account_id: string }
  | { kind: "reactivate_account"; account_id: string };

/** The transaction bytes' content: a kind wrapped by the sponsor, with an expiry. */
export interface TransactionData {
  /** The layout's version. */
  version: 1;
  /** The ledger's package id (`LOCAL_PACKAGE_ID`). */
  package_id: string;
  /** The sender's address: the account owner's wallet. */
  sender: string;
  /** What the transaction does. */
  kind: TransactionKind;
  /** Unix milliseconds after which the transaction cannot execute. */
  expires_at: number;
  /** 16 random bytes as hex: the same kind sponsored twice gives two digests. */
  nonce: string;
}

const KEY = /^[0-9a-f]{64}$/;

/** Parses and checks a kind from its bytes; every problem is a `malformed` rejection. */
export function decodeKind(bytes: Uint8Array): TransactionKind {
  let value: Record<string, unknown>;
  try {
    value = parseJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes)) as typeof value;
  } catch (error) {
    throw rejected("malformed", `The transaction kind must be UTF-8 JSON: ${jsonProblem(error)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw rejected("malformed", "The transaction kind must be a JSON object");
  }
  const need = (field: string, pattern: RegExp, what: string) => {
    if (typeof value[field] !== "string" || !pattern.test(value[field] as string)) {
      throw rejected("malformed", `The transaction kind needs ${field}: ${what}`);
    }
    return value[field] as string;
  };
  const accountId = () => need("account_id", ADDRESS, "0x and 64 hex characters");
  const publicKey = () => need("public_key", KEY, "64 lowercase hex characters");
  switch (value.kind) {
    case "create_account":
      return { kind: "create_account" };
    case "add_delegate_key": {
      if (typeof value.label !== "string") {
        throw rejected("malformed", "The transaction kind needs label: a string");
      }
      // A label is shown in terminals and pages: nothing that shows wrongly or not at all.
      if (UNSHOWN_IN_LABELS.test(value.label)) {
        throw rejected(
          "malformed",
          "A label must not contain control, text-direction or invisible characters",
        );
      }
      let limits;
      try {
        limits = parseKeyLimits(value);
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        throw rejected("malformed", `The transaction kind's scope is malformed: ${error.message}`);
      }
      const { scope, expiresAt } = limits;
      const key = publicKey();
      if (isSmallOrderKey(key)) {
        throw rejected(
          "malformed",
          "The public key is a point of small order, under which anyone can sign: no one's key",
        );
      }
      return {
        kind: "add_delegate_key",
        account_id: accountId(),
        public_key: key,
        label: value.label,
        ...scope,
        ...(expiresAt === undefined ? {} : { expires_at: new Date(expiresAt).toISOString() }),
      };
    }
    case "remove_delegate_key":
      return { kind: "remove_delegate_key", account_id: accountId(), public_key: publicKey() };
    case "deactivate_account":
    case "reactivate_account":
      return { kind: value.kind, account_id: accountId() };
    default:
      throw rejected("malformed", `Unknown transaction kind ${JSON.stringify(value.kind)}`);
  }
}

/** The bytes of a kind, as the sponsor takes them: its UTF-8 JSON. */
export function encodeKind(kind: TransactionKind): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(JSON.stringify(kind));
}

/** The digest of transaction bytes: hex(blake2b-256(bytes)). */
export function digestOf(bytes: Uint8Array): string {
  return blake2b(bytes, { dkLen: 32 }).toHex();
}

/** Signs a transaction digest with an owner key, in the serialized signature layout. */
export function signDigest(key: KeyPair, digest: string): string {
  const signature = key.sign(Uint8Array.fromHex(digest));
  return new Uint8Array([0, ...signature, ...Uint8Array.fromHex(key.publicKey)]).toBase64();
}

/** Verifies a serialized signature of `digest`; returns the signer's address. */
export async function verifyDigestSignature(digest: string, signature: string): Promise<string> {
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    bytes = Uint8Array.fromBase64(signature);
  } catch {
    throw rejected("bad_signature", "The signature is not base64");
  }
  if (bytes.length !== 97 || bytes[0] !== 0) {
    throw rejected("bad_signature", "The signature must be 0x00 ‖ 64-byte signature ‖ public key");
  }
  const publicKey = bytes.subarray(65);
  if (!await verifyEd25519(publicKey, bytes.subarray(1, 65), Uint8Array.fromHex(digest))) {
    throw rejected("bad_signature", "The signature does not match the transaction");
  }
  return addressOf(publicKey.toHex());
}

/** Sponsors a transaction kind, signs its digest with the owner key and executes it. */
export async function submitTransaction(
  sponsor: Sponsor,
  owner: KeyPair,
  kind: TransactionKind,
): Promise<{ digest: string; effects?: unknown }> {
  const { digest } = await sponsor.sponsor(encodeKind(kind), addressOf(owner.publicKey));
  return await sponsor.execute(digest, signDigest(owner, digest));
}
