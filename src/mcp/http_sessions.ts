/**
 * Opening MCP sessions over HTTP and finding them again: a session is opened only for
 * credentials the relayer accepts, counts against the limits of `SessionRegistry`, and stays
 * bound to the identity that opened it.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SvcClient } from "../client/mod.ts";
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { rpcError } from "./json_rpc_body.ts";
import { utf8Header, validNamespace } from "../validate.ts";
import { type Identity, unauthorized } from "./http_auth.ts";
import type { Session, SessionRegistry } from "./sessions.ts";
import { createMcpServer } from "./tools.ts";

/** How sessions are opened: the relayer their tools call, and the table they count in. */
export interface McpSessionOptions {
  /** The relayer the tools call, with the caller's own signed credentials. */
  relayerUrl: string;
  /** Sends the caller's key as `x-delegate-key` when recalling (a Seal cipher needs it). */
  sendDelegateKey?: boolean;
  sessions: SessionRegistry<McpSession>;
  /** How long `svc_remember` waits for its job. */
  waitMs: number;
  logger: Logger;
  fetch?: typeof fetch;
  /**
   * The relayer's secret for this sidecar: sent with the tools' requests, with the MCP client's
   * address, so that the relayer counts failed sign-ins against that address, not loopback's.
   */
  relayerToken?: string;
}

export interface McpSession extends Session {
  kind: "streamable" | "sse";
  handle(request: Request, body?: unknown): Promise<Response>;
}

/** A session just opened, with the server that answers in it. */
export interface OpenedSession {
  server: McpServer;
  session: McpSession;
}

/**
 * `fetch` to the relayer for a client at `address`: with the relayer's secret, it names that
 * address (see `McpSessionOptions.relayerToken`).
 */
function onBehalfOf(address: string, token: string | undefined, base: typeof fetch): typeof fetch {
  if (token === undefined) return base;
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("x-svc-client-address", address);
    headers.set("x-sidecar-token", token);
    return base(input, { ...init, headers });
  };
}

/** The namespace `x-svc-namespace` asks for, or why it is refused (to the request `requestId`). */
function requestedNamespace(
  request: Request,
  requestId: string | number | null,
): string | undefined | Response {
  const header = request.headers.get("x-svc-namespace") ?? undefined;
  try {
    return header === undefined ? undefined : validNamespace(utf8Header(header), "x-svc-namespace");
  } catch (error) {
    // Answers the initialize request's id, as JSON-RPC asks.
    return rpcError(400, (error as SvcError).message, { id: requestId });
  }
}

/** The answer to credentials the relayer could not confirm (`whoami` threw `error`). */
function unverified(error: unknown, logger: Logger): Response {
  if (error instanceof SvcError && error.details.reason === "unknown_key") {
    return unauthorized(
      "The relayer refused these credentials: the bearer is not a delegate key of the " +
        "account in x-svc-account-id",
    );
  }
  if (error instanceof SvcError && (error.status === 401 || error.status === 403)) {
    return unauthorized(
      `The relayer refused these credentials: ${error.message}`,
      error.details.reason,
    );
  }
  if (error instanceof SvcError && error.code === "rate_limited") {
    const seconds = String(error.details.retry_after_seconds ?? 60);
    return rpcError(429, error.message, { headers: { "retry-after": seconds } });
  }
  logger.warn("cannot verify MCP credentials", { error });
  return rpcError(503, "Cannot verify the credentials: the relayer is unavailable", {
    headers: { "retry-after": "5" },
  });
}

/**
 * The relayer's client for `identity` once the relayer confirms its credentials, with the
 * namespaces its key may use (`null`: all); the answer to the client otherwise.
 */
async function verifiedClient(
  options: McpSessionOptions,
  identity: Identity,
  address: string,
): Promise<{ client: SvcClient; namespaces: string[] | null } | Response> {
  const clientOf = (retries: number) =>
    SvcClient.create({
      baseUrl: options.relayerUrl,
      privateKey: identity.bearer,
      accountId: identity.accountId,
      fetch: onBehalfOf(address, options.relayerToken, options.fetch ?? fetch),
      retries,
      sendDelegateKey: options.sendDelegateKey,
    });
  const client = await clientOf(1);
  try {
    // Not retried: a refusal, or a wait the relayer asks for, is answered at once.
    const me = await (await clientOf(0)).whoami();
    if (me.account_id.toLowerCase() !== identity.accountId) {
      return unauthorized("The delegate key does not belong to this x-svc-account-id");
    }
    return { client, namespaces: me.scope?.namespaces ?? null };
  } catch (error) {
    return unverified(error, options.logger);
  }
}

/**
 * Opens a session for `identity`, or answers why not (to the request `requestId`). The
 * session answers 409 until its transport is connected and sets its `handle`.
 */
export async function openSession(
  options: McpSessionOptions,
  identity: Identity,
  request: Request,
  address: string,
  kind: McpSession["kind"],
  requestId: string | number | null = null,
): Promise<OpenedSession | Response> {
  const { sessions, logger } = options;
  const namespace = requestedNamespace(request, requestId);
  if (namespace instanceof Response) return namespace;
  const verified = await verifiedClient(options, identity, address);
  if (verified instanceof Response) return verified;
  const { client, namespaces } = verified;
  const admission = sessions.admit(address, identity.fingerprint);
  if (!admission.ok) {
    return rpcError(429, `Too many MCP sessions: ${admission.reason}`, {
      headers: { "retry-after": String(admission.retryAfterSeconds) },
    });
  }
  // Registered at once, so that concurrent openings count against the limits.
  const id = crypto.randomUUID();
  const server = createMcpServer({
    client,
    // A key limited to namespaces without "default" works in its first one by default.
    namespace: namespace ?? (namespaces?.includes("default") ? undefined : namespaces?.[0]),
    namespaces,
    waitMs: options.waitMs,
  });
  const session: McpSession = {
    id,
    kind,
    identity: identity.fingerprint,
    address,
    lastSeen: 0,
    inFlight: 0,
    close: () => server.close(),
    handle: () => Promise.resolve(rpcError(409, "The session is still opening; retry")),
  };
  sessions.add(session);
  server.server.onclose = () => {
    sessions.remove(id);
    logger.info("mcp session closed", { session: id });
  };
  logger.info("mcp session opened", { session: id, kind, address });
  return { server, session };
}

/** The answer to a request for a session that ended, expired or never was. */
export function sessionNotFound(): Response {
  return rpcError(404, "Session not found: it ended or expired; start a new one", { code: -32001 });
}

/**
 * Answers `request` in the open session `sessionId`, when it is of `kind` and bound to
 * `identity`; refuses it otherwise.
 */
export async function answerInSession(
  sessions: SessionRegistry<McpSession>,
  sessionId: string,
  kind: McpSession["kind"],
  identity: Identity,
  request: Request,
  body: unknown,
): Promise<Response> {
  const session = sessions.get(sessionId);
  if (!session || session.kind !== kind) return sessionNotFound();
  if (session.identity !== identity.fingerprint) {
    return rpcError(403, "This session belongs to another identity");
  }
  sessions.touch(sessionId);
  return await session.handle(request, body);
}
