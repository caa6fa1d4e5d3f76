/**
 * Who a request comes from, and the checks of signed requests: what the headers can tell before
 * the body is read (the failed-authentication limit, the key, its scope, the disk's room), the
 * signature once it is read.
 */
import { CachedAccountDirectory } from "./auth/account_cache.ts";
import { timingSafeEqual } from "@svc/util/keys";
import { Ed25519Verifier } from "@svc/util/ed25519";
import { AuthFailureLimiter } from "./auth/failure_limiter.ts";
import { requireNamespace, requireOperation } from "./auth/scope.ts";
import {
  checkSignedHeaders,
  checkStillAuthorized,
  DelegateKeyCheck,
  type SignedHeaders,
  type VerifiedCaller,
  type VerifyDependencies,
  verifySignedBody,
} from "./auth/verify.ts";
import { SvcError } from "./errors.ts";
import type { ConnectionInfo, HttpHandlerOptions } from "./http/kernel.ts";
import { peerAddress } from "./http/router.ts";
import type { Accessed, HandlerContext } from "./routes/context.ts";
import type { RelayerOptions } from "./relayer_options.ts";

/**
 * The refusals the failed-authentication limit counts: those that cost work. A key looked up and
 * not found (or expired) before the body is read; after it, also a signature checked and wrong.
 * What is refused before either (missing or malformed headers, a stale timestamp, a replay, a
 * scope) costs nothing and counts for nothing.
 */
const LOOKUP_FAILURES = new Set(["unknown_key", "expired_key"]);
const VERIFY_FAILURES = new Set([...LOOKUP_FAILURES, "bad_signature"]);

/** The HTTP kernel's hooks that check signed requests. */
export type SignedRequestChecks = Required<
  Pick<HttpHandlerOptions<HandlerContext, SignedHeaders | undefined>, "admit" | "extend">
>;

/** What signed requests are checked with. */
interface SignedRequestCheckDependencies {
  verify: VerifyDependencies;
  failures: AuthFailureLimiter;
  /**
   * Whether failed authentications may refuse requests: only where a look-up is costly (a
   * directory on a network). A local ledger's look-up and a signature check cost about what
   * answering the request does, so no one is refused for others' failures.
   */
  limitFailures: boolean;
  diskSpace: RelayerOptions["diskSpace"];
}

/**
 * The address a request is counted against: the MCP client the sidecar names, the one a trusted
 * proxy forwarded, else the connection's.
 */
export function clientAddressOf(
  options: Pick<RelayerOptions, "sidecar" | "trustProxy">,
): (request: Request, info?: ConnectionInfo) => string {
  return (request, info) => {
    // The sidecar's tool calls name the MCP client they are made for, with the sidecar's secret.
    const behalf = request.headers.get("x-svc-client-address");
    const token = request.headers.get("x-sidecar-token");
    if (behalf && token && options.sidecar && timingSafeEqual(token, options.sidecar.token)) {
      return behalf;
    }
    // The proxy appends the address it saw: the last entry is the one to trust.
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
    if (options.trustProxy && forwarded) return forwarded;
    return peerAddress(info);
  };
}

/** The checks of signed requests, with the account cache and the replay guard they consult. */
export function signedRequestChecks(options: RelayerOptions): SignedRequestChecks {
  const cacheMs = options.directory.cacheable === false ? 0 : options.accountCacheMs;
  const directory = new CachedAccountDirectory(options.directory, {
    positiveTtlMs: cacheMs,
    negativeTtlMs: cacheMs && Math.min(cacheMs, 10_000),
    now: options.now,
  });
  return createSignedRequestChecks({
    verify: {
      directory,
      replayGuard: options.replayGuard,
      verifier: new Ed25519Verifier(),
      delegateKeys: new DelegateKeyCheck(),
      now: options.now,
      audiences: options.audiences,
      requireAudience: options.requireAudience,
    },
    failures: new AuthFailureLimiter({
      limit: options.authFailuresPerMinute,
      now: options.now,
    }),
    limitFailures: options.directory.cacheable !== false,
    diskSpace: options.diskSpace,
  });
}

/** `admit` checks what the headers can tell; `extend` the signature, once the body is read. */
function createSignedRequestChecks(
  deps: SignedRequestCheckDependencies,
): SignedRequestChecks {
  const { verify, failures, limitFailures, diskSpace } = deps;

  /**
   * Runs one step of authenticating a request, counting against the client's address the
   * refusals whose `reason` is one of `counts`.
   */
  async function counted<T>(address: string, counts: Set<string>, step: () => Promise<T>) {
    try {
      return await step();
    } catch (error) {
      if (error instanceof SvcError && counts.has(error.details.reason as string)) {
        failures.failed(address);
      }
      throw error;
    }
  }

  return {
    // Signed routes: what the headers can tell is checked before the body is read.
    async admit(request, route, address) {
      if (!route.signed) return undefined;
      const wait = limitFailures
        ? failures.refusal(
          address,
          request.headers.get("x-public-key"),
          request.headers.get("x-account-id"),
        )
        : undefined;
      if (wait !== undefined) {
        throw new SvcError(
          "rate_limited",
          "Cannot check this signed request: too many authentications from this address " +
            "failed in the last minute",
          { details: { retry_after_seconds: wait } },
        );
      }
      const headers = await counted(
        address,
        LOOKUP_FAILURES,
        () => checkSignedHeaders(request, verify, { ownerKey: route.ownerKey }),
      );
      // A scope refusal is not a failed authentication: the key is genuine.
      if (!headers.ownerKey) {
        for (const operation of route.operations) requireOperation(headers.account, operation);
      } else if (
        !headers.account.active && route.operations.includes("write") && request.method !== "GET"
      ) {
        throw new SvcError(
          "forbidden",
          "The account is deactivated: its owner's key may read, export and erase its " +
            "memories, not write them",
        );
      }
      // A route that stores memories (logged, with the write scope) waits for disk space.
      if (route.operations.includes("write") && route.access) {
        const refused = diskSpace?.refusal();
        if (refused) throw refused;
      }
      return headers;
    },
    async extend(context, route, headers) {
      let caller: VerifiedCaller | undefined;
      if (route.signed) {
        caller = await counted(
          context.clientAddress,
          VERIFY_FAILURES,
          () => verifySignedBody(context.request, headers!, context.body, verify, route.claim),
        );
        failures.succeeded(caller.publicKey, caller.accountId);
      }
      const accessed: Accessed = new Map();
      return {
        ...context,
        caller: caller!,
        accessed,
        stillAuthorized: () => checkStillAuthorized(caller!, verify.directory),
        touch(namespace, ids = []) {
          requireNamespace(caller!, namespace);
          const touched = accessed.get(namespace) ?? [];
          accessed.set(namespace, touched);
          touched.push(...ids);
        },
      };
    },
  };
}
