/**
 * The signed-request format shared by every client and the relayer's verifier.
 *
 * Message: `{timestamp}.{METHOD}.{path}.{sha256_hex(body)}`, plus `.{nonce}` when a nonce is
 * sent. `path` is the path as sent, with `?query` when there is one.
 *
 * @example
 * ```ts
 * const headers = await signRequest({ privateKey, method: "POST", path: "/api/recall", body });
 * ```
 */
import { type KeyPair, keyPairFromSeed, sha256Hex } from "./keys.ts";

export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** The parts of a signed request that its signature covers. */
export interface SigningInput {
  /** Unix seconds. */
  timestamp: number;
  /** The HTTP method; upper-cased in the message. */
  method: string;
  /** The path as sent, with `?query` when there is one. */
  path: string;
  /** The SHA-256 of the raw body, as lowercase hex. */
  bodySha256: string;
  /** The nonce, when one is sent. */
  nonce?: string;
}

/** The exact string that is signed. */
export function signingMessage(input: SigningInput): string {
  const base = `${input.timestamp}.${input.method.toUpperCase()}.${input.path}.${input.bodySha256}`;
  return input.nonce === undefined ? base : `${base}.${input.nonce}`;
}

/** A request to sign, and the key to sign it with. */
export interface SignRequestInput {
  /** A delegate private key (hex seed) or a key pair already loaded from one. */
  key: string | KeyPair;
  /** The HTTP method. */
  method: string;
  /** The path as it will be sent, with `?query` when there is one. */
  path: string;
  /** The raw body, exactly as it will be sent (none by default). */
  body?: Uint8Array<ArrayBuffer> | string;
  /** Unix seconds; now when omitted. */
  timestamp?: number;
  /** `true` for a fresh random nonce, a string for a given one, omitted for none. */
  nonce?: string | true;
  /** The account to act in, sent as `x-account-id`. */
  accountId?: string;
}

/** The headers of a signed request. */
export async function signRequest(input: SignRequestInput): Promise<Record<string, string>> {
  const pair = typeof input.key === "string" ? await keyPairFromSeed(input.key) : input.key;
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  const nonce = input.nonce === true
    ? crypto.getRandomValues(new Uint8Array(16)).toHex()
    : input.nonce;
  const message = signingMessage({
    timestamp,
    method: input.method,
    path: input.path,
    bodySha256: await sha256Hex(input.body ?? ""),
    nonce,
  });
  const signature = await crypto.subtle.sign(
    "Ed25519",
    pair.signingKey,
    new TextEncoder().encode(message),
  );
  const headers: Record<string, string> = {
    "x-public-key": pair.publicKey,
    "x-signature": new Uint8Array(signature).toHex(),
    "x-timestamp": String(timestamp),
  };
  if (nonce !== undefined) headers["x-nonce"] = nonce;
  if (input.accountId) headers["x-account-id"] = input.accountId;
  return headers;
}
