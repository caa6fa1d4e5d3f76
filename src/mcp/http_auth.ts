/**
 * The checks every MCP request over HTTP passes before it reaches a session: an allowed
 * `Origin` (or none), no credentials in the URL, and a well-formed identity — the bearer (a
 * delegate private key) and `x-svc-account-id`.
 */
import { ACCOUNT_ID, sha256Hex } from "@svc/util/keys";
import type { RouteContext } from "../http/router.ts";
import { rpcError } from "./json_rpc_body.ts";
import { originRefused, withCors } from "./cors.ts";

/** The scheme is read in any case (RFC 9110), the key in either case of hex. */
const BEARER = /^bearer ([0-9a-f]{64})$/i;
/** Query parameters that would put a credential into a URL (and so into logs). */
const CREDENTIAL_PARAMS =
  /^(access_token|token|bearer|auth|authorization|key|api_key|private_key)$/i;

/** Who sends a request: the credentials it carries. */
export interface Identity {
  bearer: string;
  accountId: string;
  /** A digest of bearer and account, to compare without keeping the key around. */
  fingerprint: string;
}

/** A handler of a request whose identity is checked. */
export type IdentifiedHandler = (
  request: Request,
  identity: Identity,
  address: string,
) => Promise<Response>;

/** A 401 in JSON-RPC's shape; the relayer's `reason` (`expired_key`, …) in its `data`. */
export function unauthorized(message: string, reason?: unknown): Response {
  return rpcError(401, message, {
    headers: { "www-authenticate": `Bearer realm="svc", error="invalid_token"` },
    data: typeof reason === "string" ? { reason } : undefined,
  });
}

async function identityOf(request: Request): Promise<Identity | Response> {
  const authorization = request.headers.get("authorization");
  const accountId = request.headers.get("x-svc-account-id")?.toLowerCase();
  if (!authorization || !accountId) {
    return unauthorized(
      "Missing credentials: send Authorization: Bearer <delegate private key> and " +
        "x-svc-account-id: <account id>",
    );
  }
  const bearer = BEARER.exec(authorization)?.[1]?.toLowerCase();
  if (!bearer) {
    return unauthorized("Invalid bearer: expected a delegate private key of 64 hex characters");
  }
  if (!ACCOUNT_ID.test(accountId)) {
    return unauthorized("Invalid x-svc-account-id: expected 0x followed by hex");
  }
  return { bearer, accountId, fingerprint: await sha256Hex(`${bearer}:${accountId}`) };
}

/** A refusal of a URL that carries a credential (a key's 64 hex characters, say). */
function credentialsInUrl(url: string): Response | undefined {
  for (const [name, value] of new URL(url).searchParams) {
    if (CREDENTIAL_PARAMS.test(name) || /^[0-9a-f]{64}$/i.test(value)) {
      return rpcError(
        400,
        "Credentials must not be sent in the URL: use the Authorization header",
      );
    }
  }
  return undefined;
}

async function identified(
  handle: IdentifiedHandler,
  request: Request,
  address: string,
): Promise<Response> {
  const refused = credentialsInUrl(request.url);
  if (refused) return refused;
  const identity = await identityOf(request);
  if (identity instanceof Response) return identity;
  return await handle(request, identity, address);
}

/**
 * `handle` behind the checks every MCP request passes first: an allowed `Origin` (or none),
 * no credentials in the URL, and a well-formed identity.
 */
export function guarded(allowedOrigins: string[], handle: IdentifiedHandler) {
  return async ({ request, clientAddress }: RouteContext): Promise<Response> => {
    const origin = request.headers.get("origin");
    if (origin === null) return await identified(handle, request, clientAddress);
    if (!allowedOrigins.includes(origin)) return originRefused(origin);
    return withCors(await identified(handle, request, clientAddress), origin);
  };
}
