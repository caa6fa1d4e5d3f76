/**
 * Verification of signed requests (DESIGN §5.4), in two steps so that a request that fails
 * on its headers costs neither a body read nor a store write:
 *
 * 1. {@link checkSignedHeaders}, before the body is read: headers present and well-formed;
 *    timestamp within the window; signature version and audience (`signing.ts`); the key
 *    resolves to an account, which is active.
 * 2. {@link verifySignedBody}, once the body is read: signature over the message with the
 *    body's hash; the key once more if the body took over a second; then replay (the first
 *    write of the request, so only a correctly signed request ever writes).
 *
 * {@link verifySignedRequest} runs both.
 */
import type {
  AccountDirectory,
  DecryptCredentials,
  KeyScope,
  ResolvedAccount,
} from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { type Ed25519Verifier, verifyEd25519 } from "@svc/util/ed25519";
import { ACCOUNT_ID, addressOf, isKeyHex, keyPairFromSeed, sha256Hex } from "@svc/util/keys";
import { LruMap } from "@svc/util/lru_map";
import type { PendingClaim, ReplayGuard } from "./replay_guard.ts";
import { type AudiencePolicy, NONCE_PATTERN, signedAudience, signingMessage } from "./signing.ts";

const TIMESTAMP_WINDOW_SECONDS = 300;
/** Twice the window (a request's timestamp may be early or late), and 2 s for rounding. */
const NONCE_TTL_MS = 2 * TIMESTAMP_WINDOW_SECONDS * 1000 + 2000;
const PUBLIC_KEY = /^[0-9a-fA-F]{64}$/;
const SIGNATURE = /^[0-9a-fA-F]{128}$/;
const TIMESTAMP = /^(0|[1-9][0-9]{0,11})$/;

/** Who sent a verified request. */
export interface VerifiedCaller {
  /** The signing public key, lowercase hex. */
  publicKey: string;
  /** The address of the owner of the key's account. */
  owner: string;
  /** The account the key belongs to. */
  accountId: string;
  /** The address of the signing key. */
  address: string;
  /** The delegate key's label (`"owner"` for the owner's own key). */
  label: string;
  /** What the key may do (`{}`: everything, as for the owner's own key). */
  scope: KeyScope;
  /** Whether the account owner's own key signed, rather than a delegate key. */
  ownerKey: boolean;
  /** Unix milliseconds from which the delegate key is refused; absent: never (the owner key). */
  expiresAt?: number;
  /** From `x-delegate-key`, checked to be the private key of `publicKey`; for Seal decryption. */
  credentials: DecryptCredentials;
  /**
   * The request's replay claim when verification left its write to the route (see
   * {@link ClaimWrite}); the route answers only once it has settled.
   */
  claim?: PendingClaim;
}

/**
 * When a signed request's replay claim is written, where the replay guard can defer it:
 * - `"overlap"`: a route that changes nothing: with a nonce, started at once while the route
 *   works; without one, none (it may be sent again, as a poll);
 * - `"carried"`: by the route, within the commit of its change (`PendingClaim.carriedBy`), or
 *   alone before it changes anything.
 * Otherwise verification waits for the write, before the route runs.
 */
export type ClaimWrite = "overlap" | "carried";

/** What verification consults besides the request (and which signature versions it accepts). */
export interface VerifyDependencies extends AudiencePolicy {
  /** Resolves the signing key to its account. */
  directory: AccountDirectory;
  /** Refuses a used nonce, and a non-GET request sent again without one. */
  replayGuard: ReplayGuard;
  /** Unix milliseconds; `Date.now` unless a test sets the clock. */
  now?: () => number;
  /** Checks the signatures (default: {@link verifyEd25519}, importing the key every time). */
  verifier?: Pick<Ed25519Verifier, "verify">;
  /** Checks `x-delegate-key` (default: a key derivation every time). */
  delegateKeys?: DelegateKeyCheck;
}

function unauthorized(reason: string, message: string, details: Record<string, number> = {}) {
  return new SvcError("unauthorized", message, { details: { reason, ...details } });
}

const deactivated = () =>
  new SvcError("forbidden", "The account of this delegate key is deactivated");

/** What the headers of a signed request establish before its body is read. */
export interface SignedHeaders {
  /** The signing public key, lowercase hex. */
  publicKey: string;
  /** The `x-signature` header, 128 hex characters. */
  signature: string;
  /** The `x-timestamp` header, Unix seconds, inside the window. */
  timestamp: number;
  /** The `x-nonce` header, when sent. */
  nonce?: string;
  /** The audience a version 2 signature names (`undefined` for version 1). */
  audience?: string;
  /** The active account the key belongs to. */
  account: ResolvedAccount;
  /** Whether the key is the account owner's own (on a route open to it). */
  ownerKey: boolean;
  /** When the key was resolved, Unix milliseconds. */
  checkedAt: number;
}

/** How long a body may take to arrive before its key is checked again (see verifySignedBody). */
const RECHECK_AFTER_MS = 1000;

/** Verifies a signed request whose raw body is `body`; throws `SvcError` on any failure. */
export async function verifySignedRequest(
  request: Request,
  body: Uint8Array<ArrayBuffer>,
  deps: VerifyDependencies,
): Promise<VerifiedCaller> {
  return await verifySignedBody(request, await checkSignedHeaders(request, deps), body, deps);
}

/** Whether two object ids (`0x` and hex) are one, a shortened one (`0x5`) included. */
const sameId = (a: string, b: string) => {
  const full = (id: string) => id.slice(2).toLowerCase().padStart(64, "0");
  return full(a) === full(b);
};

/**
 * The checks that need only the headers: well-formed, timestamp inside the window, a key of an
 * active account (or, where `ownerKey` allows it, the key of an account's owner). Throws
 * `SvcError` on any failure; reads no body and writes nothing.
 */
export async function checkSignedHeaders(
  request: Request,
  deps: VerifyDependencies,
  { ownerKey = false }: { ownerKey?: boolean } = {},
): Promise<SignedHeaders> {
  const h = request.headers;
  const now = deps.now ?? Date.now;
  const publicKeyHeader = h.get("x-public-key");
  const signatureHeader = h.get("x-signature");
  const timestampHeader = h.get("x-timestamp");
  if (!publicKeyHeader || !signatureHeader || !timestampHeader) {
    throw unauthorized(
      "missing_headers",
      "Signed request required: send x-public-key, x-signature and x-timestamp",
    );
  }
  if (!TIMESTAMP.test(timestampHeader)) {
    throw unauthorized(
      "bad_timestamp",
      "x-timestamp must be Unix time in whole seconds, in decimal without leading zeros",
    );
  }
  const nonce = h.get("x-nonce") ?? undefined;
  const accountIdHint = h.get("x-account-id") ?? undefined;
  if (
    !PUBLIC_KEY.test(publicKeyHeader) || !SIGNATURE.test(signatureHeader) ||
    (nonce !== undefined && !NONCE_PATTERN.test(nonce)) ||
    (accountIdHint !== undefined && !ACCOUNT_ID.test(accountIdHint))
  ) {
    throw unauthorized("bad_signature", "The request signature headers are malformed");
  }
  const serverTime = Math.floor(now() / 1000);
  const timestamp = Number(timestampHeader);
  if (Math.abs(serverTime - timestamp) > TIMESTAMP_WINDOW_SECONDS) {
    throw unauthorized(
      "stale_timestamp",
      "x-timestamp is more than 5 minutes from the server's clock; correct the clock and retry",
      { server_time: serverTime },
    );
  }
  const audience = signedAudience(h, deps);
  const publicKey = publicKeyHeader.toLowerCase();

  const account = await deps.directory.resolve(publicKey, accountIdHint?.toLowerCase());
  // Anyone may register any public key as a delegate key of their account, an owner's too:
  // without a hint, a key that owns an account is its owner's. With one, it must name that
  // account: an owner's key sent with another account's id is no key of that account.
  const owner = !account || accountIdHint === undefined
    ? await deps.directory.resolveOwner?.(addressOf(publicKey))
    : undefined;
  const owned = owner && (accountIdHint === undefined || sameId(owner.accountId, accountIdHint))
    ? owner
    : undefined;
  const headers = { publicKey, signature: signatureHeader, timestamp, nonce, audience };
  // `checkedAt`: once the key is resolved (a slow node's answer counts as before the body).
  if (!account || owned) {
    // The owner's own key: allowed on a route open to it, on an inactive account too.
    if (owned && ownerKey) {
      return { ...headers, account: owned, ownerKey: true, checkedAt: now() };
    }
    if (owned) {
      throw new SvcError(
        "forbidden",
        "The account owner's key signs only list, get, update, erase, recall, export, the " +
          "namespaces, the access log and reading operator-blind namespaces; add a delegate key for the rest (svc key add or " +
          "the dashboard; on Sui, the package's add_delegate_key)",
      );
    }
    throw unauthorized(
      "unknown_key",
      accountIdHint === undefined
        ? "This public key is not a delegate key of any account"
        : `This public key is not a delegate key of account ${accountIdHint.toLowerCase()} ` +
          "(the x-account-id it was sent with)",
    );
  }
  if (!account.active) throw deactivated();
  return { ...headers, account, ownerKey: false, checkedAt: now() };
}

/**
 * Checks again that `caller`'s delegate key is still its account's and the account active (the
 * directory refuses an expired key), as verification did: for an answer that goes on long after
 * it, such as an export's stream. The owner's own key stays its account's.
 */
export async function checkStillAuthorized(
  caller: Pick<VerifiedCaller, "ownerKey" | "publicKey" | "accountId">,
  directory: AccountDirectory,
  hint: string | undefined = caller.accountId,
): Promise<void> {
  if (caller.ownerKey) return;
  const account = await directory.resolve(caller.publicKey, hint);
  if (!account || account.accountId !== caller.accountId) {
    throw unauthorized("unknown_key", "This delegate key was removed from its account");
  }
  if (!account.active) throw deactivated();
}

/**
 * The checks of the body, after {@link checkSignedHeaders}: the signature over the message with
 * the body's hash, then the replay claim. Throws `SvcError` on any failure.
 */
export async function verifySignedBody(
  request: Request,
  headers: SignedHeaders,
  body: Uint8Array<ArrayBuffer>,
  deps: VerifyDependencies,
  claimWrite?: ClaimWrite,
): Promise<VerifiedCaller> {
  const { publicKey, signature: signatureHeader, timestamp, nonce, audience } = headers;
  const { account, ownerKey } = headers;
  const h = request.headers;
  // The path the router acts on, with the query as sent: `URL.search` drops an empty one's "?".
  const url = new URL(request.url);
  const empty = url.search === "" && request.url.split("#")[0].endsWith("?");
  const path = url.pathname + (empty ? "?" : url.search);
  const signed = {
    timestamp,
    method: request.method,
    path,
    bodySha256: await sha256Hex(body),
    nonce,
    audience,
  };
  const verify = (message: string) =>
    deps.verifier
      ? deps.verifier.verify(publicKey, signatureHeader, message)
      : verifyEd25519(publicKey, signatureHeader, message);
  let message = signingMessage(signed);
  let verified = await verify(message);
  // Version 1 with a nonce may sign `x-account-id` after it (the reference system's later SDKs).
  const accountId = h.get("x-account-id");
  if (!verified && nonce !== undefined && audience === undefined && accountId !== null) {
    message = signingMessage({ ...signed, accountId });
    verified = await verify(message);
  }
  if (!verified) {
    throw unauthorized("bad_signature", "The request signature does not match the request");
  }
  // A body slow to arrive (a request held open) does not outlive its key: one removed, expired
  // or deactivated since the headers were checked is refused before the request does anything
  // (on Sui, as soon as the account cache reads it again). Asked as the headers asked, so that
  // a cached answer is the same entry's.
  if ((deps.now ?? Date.now)() - headers.checkedAt > RECHECK_AFTER_MS) {
    await checkStillAuthorized(
      { ownerKey, publicKey, accountId: account.accountId },
      deps.directory,
      accountId?.toLowerCase() ?? undefined,
    );
  }

  // Without a nonce (signature version 1, as the specification's clients sign), a request that
  // changes nothing may be sent again, as clients poll; one that changes something may not.
  const replayKey = nonce !== undefined
    ? `nonce:${publicKey}:${nonce}`
    : request.method === "GET" || claimWrite === "overlap"
    ? undefined
    : `message:${publicKey}:${await sha256Hex(message)}`;
  const credentials = await delegateCredentials(
    h.get("x-delegate-key"),
    publicKey,
    deps.delegateKeys,
  );
  let claim: PendingClaim | undefined;
  if (replayKey) {
    const { replayGuard } = deps;
    const claimed = claimWrite && replayGuard.reserve
      ? await replayGuard.reserve(replayKey, NONCE_TTL_MS)
      : await replayGuard.claim(replayKey, NONCE_TTL_MS);
    if (!claimed) {
      throw new SvcError(
        "replayed_request",
        "This signed request was already used; sign it again with a fresh nonce or timestamp",
      );
    }
    if (claimed !== true) claim = claimed;
    if (claimWrite === "overlap") claim?.settle();
  }

  return {
    publicKey,
    owner: account.owner,
    accountId: account.accountId,
    address: addressOf(publicKey),
    label: ownerKey ? "owner" : account.label ?? "",
    scope: ownerKey ? {} : account.scope ?? {},
    ownerKey,
    ...(!ownerKey && account.expiresAt !== undefined ? { expiresAt: account.expiresAt } : {}),
    credentials,
    ...(claim && { claim }),
  };
}

/**
 * Checks that a private key is the one of a public key, keeping the answers for the most recent
 * keys so that a client sending its key on every request costs one derivation, not one a
 * request. It keeps only a SHA-256 of each private key it has checked, never the key.
 */
export class DelegateKeyCheck {
  /** How many keys are kept at most. */
  readonly maxKeys: number;
  /** Public key → SHA-256 of its private key. */
  #checked: LruMap<string, string>;

  /** Keeps the answers for at most `maxKeys` keys (default 1024). */
  constructor(maxKeys = 1024) {
    this.maxKeys = maxKeys;
    this.#checked = new LruMap(maxKeys);
  }

  /** Whether `privateKey` (64 lowercase hex) is the private key of `publicKey`. */
  async matches(privateKey: string, publicKey: string): Promise<boolean> {
    const digest = await sha256Hex(privateKey);
    if (this.#checked.get(publicKey) === digest) return true;
    if ((await keyPairFromSeed(privateKey)).publicKey !== publicKey) return false;
    this.#checked.set(publicKey, digest);
    return true;
  }
}

/** The optional `x-delegate-key`: it must be the private key of the signing public key. */
async function delegateCredentials(
  header: string | null,
  publicKey: string,
  check: DelegateKeyCheck | undefined,
): Promise<DecryptCredentials> {
  if (header === null) return {};
  const privateKey = header.toLowerCase();
  const matches = isKeyHex(privateKey) &&
    (check
      ? await check.matches(privateKey, publicKey)
      : (await keyPairFromSeed(privateKey)).publicKey === publicKey);
  if (!matches) {
    throw new SvcError(
      "bad_request",
      "Cannot use x-delegate-key: it must be the 64-hex private key of the signing x-public-key",
    );
  }
  return { delegatePrivateKey: privateKey };
}
