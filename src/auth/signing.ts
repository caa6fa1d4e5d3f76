/**
 * The signed-request format shared by every client and the relayer's verifier.
 *
 * Version 1 (the specification's): `{timestamp}.{METHOD}.{path}.{sha256_hex(body)}`, plus
 * `.{nonce}` when a nonce is sent.
 *
 * Version 2 (announced by `x-signature-version: 2`, with `x-audience` and `x-nonce`):
 * `svc-v2.{audience}.{timestamp}.{METHOD}.{path}.{sha256_hex(body)}.{nonce}`, where the audience
 * is the origin of the relayer the request is meant for (`https://svc.example`,
 * `http://127.0.0.1:8000`): another relayer sharing the same accounts refuses it.
 *
 * `path` is the path as sent, with `?query` when there is one.
 *
 * @example
 * ```ts
 * const headers = await signRequest({
 *   key: privateKey,
 *   method: "POST",
 *   path: "/api/recall",
 *   body,
 *   audience: "http://127.0.0.1:8000",
 * });
 * ```
 */
import { SvcError } from "../errors.ts";
import { type KeyPair, keyPairFromSeed, sha256Hex } from "@svc/util/keys";

export const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;

/** The header announcing the signature version (`2`; absent or `1` is version 1). */
export const SIGNATURE_VERSION_HEADER = "x-signature-version";
/** The header carrying the audience of a version 2 signature. */
export const AUDIENCE_HEADER = "x-audience";
/** The prefix of every version 2 message; a version 1 message starts with a digit. */
const V2_PREFIX = "svc-v2";
const MAX_AUDIENCE_LENGTH = 300;

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
  /** The nonce, when one is sent; required with an audience. */
  nonce?: string;
  /** The origin of the relayer the request is for: makes the message version 2. */
  audience?: string;
  /**
   * `x-account-id` as sent, signed after the nonce in version 1 (the form of the reference
   * system's later SDKs); not with an audience.
   */
  accountId?: string;
}

/** The exact string that is signed: version 2 when `input.audience` is given, else version 1. */
export function signingMessage(input: SigningInput): string {
  const request =
    `${input.timestamp}.${input.method.toUpperCase()}.${input.path}.${input.bodySha256}`;
  if (input.audience !== undefined) {
    if (input.nonce === undefined) {
      throw new TypeError("Cannot build a version 2 message: it needs a nonce");
    }
    return `${V2_PREFIX}.${input.audience}.${request}.${input.nonce}`;
  }
  if (input.nonce === undefined) return request;
  return input.accountId === undefined
    ? `${request}.${input.nonce}`
    : `${request}.${input.nonce}.${input.accountId}`;
}

/**
 * The audience of a relayer reached at `url`: its origin (`scheme://host[:port]`, lower-case,
 * without a default port or a path).
 */
export function audienceOf(url: string | URL): string {
  return new URL(url).origin;
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
  /**
   * `true` for a fresh random nonce, a string for a given one, omitted for none (version 1) or
   * a fresh one (version 2).
   */
  nonce?: string | true;
  /**
   * The relayer's URL or origin: signs version 2 for it (with a nonce). Omitted: version 1.
   */
  audience?: string;
  /** The account to act in, sent as `x-account-id`. */
  accountId?: string;
}

/** The headers of a signed request. */
export async function signRequest(input: SignRequestInput): Promise<Record<string, string>> {
  const pair = typeof input.key === "string" ? await keyPairFromSeed(input.key) : input.key;
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  const audience = input.audience === undefined ? undefined : audienceOf(input.audience);
  const nonce = input.nonce === true || (input.nonce === undefined && audience !== undefined)
    ? crypto.getRandomValues(new Uint8Array(16)).toHex()
    : input.nonce;
  const message = signingMessage({
    timestamp,
    method: input.method,
    path: input.path,
    bodySha256: await sha256Hex(input.body ?? ""),
    nonce,
    audience,
  });
  const signature = pair.sign(new TextEncoder().encode(message));
  const headers: Record<string, string> = {
    "x-public-key": pair.publicKey,
    "x-signature": signature.toHex(),
    "x-timestamp": String(timestamp),
  };
  if (nonce !== undefined) headers["x-nonce"] = nonce;
  if (audience !== undefined) {
    headers[SIGNATURE_VERSION_HEADER] = "2";
    headers[AUDIENCE_HEADER] = audience;
  }
  if (input.accountId) headers["x-account-id"] = input.accountId;
  return headers;
}

/** Which signatures a relayer accepts, as far as their version and audience go. */
export interface AudiencePolicy {
  /**
   * The relayer's own origins, each as `URL.origin` gives it: a version 2 signature must name
   * one of them as its audience (else 401 `wrong_audience`). Without it the audience is not
   * checked.
   */
  audiences?: { has(origin: string): boolean };
  /** Refuse version 1 signatures (401 `audience_required`). */
  requireAudience?: boolean;
}

function unauthorized(reason: string, message: string): SvcError {
  return new SvcError("unauthorized", message, { details: { reason } });
}

/**
 * The audience of a signed request, checked against `policy`: `undefined` for version 1. Throws
 * a 401 `SvcError` whose `reason` is `bad_signature` (an unknown version or a malformed
 * audience), `missing_headers` (version 2 without `x-audience` or `x-nonce`),
 * `audience_required` (version 1 where the policy requires 2) or `wrong_audience`.
 */
export function signedAudience(headers: Headers, policy: AudiencePolicy): string | undefined {
  const version = headers.get(SIGNATURE_VERSION_HEADER) ?? "1";
  const audience = headers.get(AUDIENCE_HEADER);
  if (version === "1") {
    if (audience !== null) {
      throw unauthorized("bad_signature", "x-audience is signed only in signature version 2");
    }
    if (policy.requireAudience) {
      throw unauthorized(
        "audience_required",
        "This relayer accepts signature version 2 only: sign with x-signature-version: 2, " +
          "x-audience and x-nonce",
      );
    }
    return undefined;
  }
  if (version !== "2") {
    throw unauthorized("bad_signature", "x-signature-version must be 1 or 2");
  }
  if (audience === null || !headers.has("x-nonce")) {
    throw unauthorized("missing_headers", "Signature version 2 needs x-audience and x-nonce");
  }
  // One of the relayer's own origins, which are well formed: the common case, without parsing.
  if (policy.audiences?.has(audience)) return audience;
  const url = audience.length > MAX_AUDIENCE_LENGTH ? null : URL.parse(audience);
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== audience) {
    throw unauthorized(
      "bad_signature",
      "x-audience must be the relayer's origin, such as https://svc.example",
    );
  }
  if (policy.audiences && !policy.audiences.has(audience)) {
    throw unauthorized(
      "wrong_audience",
      `Cannot accept this request: it is signed for ${audience}, which is not an origin of ` +
        "this relayer (sign for the URL you call; an operator adds the origin clients use to " +
        "SVC_PUBLIC_URL)",
    );
  }
  return audience;
}
