/**
 * MCP over HTTP, as the sidecar serves it: routes for the HTTP kernel, Streamable HTTP on
 * `/api/mcp` and the legacy SSE transport on `/api/mcp/sse` + `/api/mcp/messages`. Every
 * request carries the bearer
 * (a delegate private key) and `x-svc-account-id`; a session is opened only for credentials
 * the relayer accepts, counts against the limits of `SessionRegistry`, and stays bound to the
 * identity that opened it.
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  ErrorCode,
  isInitializeRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import { ACCOUNT_ID, sha256Hex } from "../auth/keys.ts";
import { SvcClient } from "../client/mod.ts";
import { SvcError } from "../errors.ts";
import { jsonProblem, parseJson, readBody, saysJson } from "../http/body.ts";
import { type Route, route, type RouteContext } from "../http/router.ts";
import { utf8Header, validNamespace } from "../validate.ts";
import type { Logger } from "../log.ts";
import { MAX_MCP_BODY_BYTES, mcpBodyTooLarge, rpcError } from "../routes/sidecar.ts";
import { originRefused, preflight, withCors } from "./cors.ts";
import { CALL_CANCELLED, CALL_REFUSED, idOf, MAX_BATCH, refusal, requestIds } from "./messages.ts";
import { type Session, SessionRegistry } from "./sessions.ts";
import { SseServerTransport } from "./sse_transport.ts";
import { MEMORY_TOOLS } from "./tool_definitions.ts";
import { createMcpServer } from "./tools.ts";

const MESSAGES_PATH = "/api/mcp/messages";
const IN_PROGRESS = "A call with this id is in progress: give each call its own";
/**
 * The calls a session answers at once (as many as a batch holds); a client's further ones are
 * refused until one ends.
 */
export const MAX_CALLS_IN_FLIGHT = MAX_BATCH;
/** The scheme is read in any case (RFC 9110), the key in either case of hex. */
const BEARER = /^bearer ([0-9a-f]{64})$/i;
/** Query parameters that would put a credential into a URL (and so into logs). */
const CREDENTIAL_PARAMS =
  /^(access_token|token|bearer|auth|authorization|key|api_key|private_key)$/i;

export interface McpHttpOptions {
  /** The relayer the tools call, with the caller's own signed credentials. */
  relayerUrl: string;
  /** Sends the caller's key as `x-delegate-key` when recalling (a Seal cipher needs it). */
  sendDelegateKey?: boolean;
  sessions: SessionRegistry<McpSession>;
  /** Origins a browser may call from; any other `Origin` is refused (DNS rebinding). */
  allowedOrigins: string[];
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

interface Identity {
  bearer: string;
  accountId: string;
  /** A digest of bearer and account, to compare without keeping the key around. */
  fingerprint: string;
}

/** A 401 in JSON-RPC's shape; the relayer's `reason` (`expired_key`, …) in its `data`. */
function unauthorized(message: string, reason?: unknown): Response {
  return rpcError(
    401,
    message,
    { "www-authenticate": `Bearer realm="svc", error="invalid_token"` },
    undefined,
    typeof reason === "string" ? { reason } : undefined,
  );
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

/**
 * `fetch` to the relayer for a client at `address`: with the relayer's secret, it names that
 * address (see `McpHttpOptions.relayerToken`).
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

/**
 * The MCP routes (answers are JSON-RPC errors, as MCP clients expect, and bodies are read
 * here, up to 4 MiB, so that refusals come before reading them).
 */
export function mcpRoutes(options: McpHttpOptions): Route[] {
  const { sessions, logger } = options;

  /** Opens a session for `identity`, or answers why not (to the request `requestId`). */
  async function open(
    identity: Identity,
    request: Request,
    address: string,
    kind: McpSession["kind"],
    requestId: string | number | null = null,
  ): Promise<{ server: McpServer; session: McpSession } | Response> {
    const header = request.headers.get("x-svc-namespace") ?? undefined;
    let namespace: string | undefined;
    try {
      if (header !== undefined) {
        namespace = validNamespace(utf8Header(header), "x-svc-namespace");
      }
    } catch (error) {
      // Answers the initialize request's id, as JSON-RPC asks.
      return rpcError(400, (error as SvcError).message, {}, -32000, undefined, requestId);
    }
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
    let namespaces: string[] | null = null;
    try {
      // Not retried: a refusal, or a wait the relayer asks for, is answered at once.
      const me = await (await clientOf(0)).whoami();
      if (me.account_id.toLowerCase() !== identity.accountId) {
        return unauthorized("The delegate key does not belong to this x-svc-account-id");
      }
      namespaces = me.scope?.namespaces ?? null;
    } catch (error) {
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
        return rpcError(429, error.message, { "retry-after": seconds });
      }
      logger.warn("cannot verify MCP credentials", { error });
      return rpcError(503, "Cannot verify the credentials: the relayer is unavailable", {
        "retry-after": "5",
      });
    }
    const admission = sessions.admit(address, identity.fingerprint);
    if (!admission.ok) {
      const seconds = String(admission.retryAfterSeconds);
      return rpcError(429, `Too many MCP sessions: ${admission.reason}`, {
        "retry-after": seconds,
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

  /**
   * Connects `server` to `transport`, keeping the ids of the calls it is answering (an answer
   * counts once it is handed on: on SSE, once written to its client's connection); resolves to
   * them. A call past `MAX_CALLS_IN_FLIGHT`, or with the id of one in progress, is refused at
   * once, so that a session holds the answers of that many calls at most. A call its client
   * cancels is over; on Streamable HTTP it is answered so (the SDK answers none, and its request
   * would wait for one).
   */
  async function connect(
    server: McpServer,
    transport: Transport,
    session: McpSession,
  ): Promise<Set<RequestId>> {
    await server.connect(transport);
    const deliver = transport.onmessage;
    const send = transport.send.bind(transport);
    const calls = new Set<RequestId>();
    const answer = (id: RequestId, code: number, message: string) =>
      send({ jsonrpc: "2.0", id, error: { code, message } }).catch(() => {});
    const over = (id: RequestId) => {
      calls.delete(id);
      session.inFlight = calls.size;
    };
    transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
      if ("method" in message && "id" in message) {
        const tool = message.method === "tools/call"
          ? (message.params as { name?: unknown } | undefined)?.name
          : undefined;
        if (typeof tool === "string" && !Object.hasOwn(MEMORY_TOOLS, tool)) {
          // A protocol error, as the MCP specification and the stdio package answer it (the
          // SDK's server would answer a tool result with `isError`).
          return answer(message.id, ErrorCode.InvalidParams, `Unknown tool: ${tool}`);
        }
        if (calls.has(message.id)) return answer(message.id, CALL_REFUSED, IN_PROGRESS);
        if (calls.size >= MAX_CALLS_IN_FLIGHT) {
          return answer(
            message.id,
            CALL_REFUSED,
            `Too many calls in progress in this session (${MAX_CALLS_IN_FLIGHT}): send this ` +
              "one once one of them is answered",
          );
        }
        calls.add(message.id);
        session.inFlight = calls.size;
      } else if ("method" in message && message.method === "notifications/cancelled") {
        const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id === undefined || !calls.has(id)) return;
        over(id);
        if (session.kind === "streamable") answer(id, CALL_CANCELLED, "Request cancelled");
      }
      deliver?.(message, extra);
    };
    transport.send = (message: JSONRPCMessage, sendOptions?: TransportSendOptions) => {
      const answered = send(message, sendOptions);
      if (!("method" in message) && "id" in message && calls.has(message.id)) {
        const { id } = message;
        answered.then(() => over(id), () => over(id));
      }
      return answered;
    };
    return calls;
  }

  async function readJson(request: Request): Promise<unknown | Response> {
    if (!saysJson(request)) {
      return rpcError(
        415,
        "Unsupported Media Type: send content-type: application/json, in UTF-8",
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBody(request, MAX_MCP_BODY_BYTES);
    } catch {
      return mcpBodyTooLarge();
    }
    let body: unknown;
    try {
      body = parseJson(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (error) {
      return rpcError(400, `Parse error: the body is ${jsonProblem(error)}`, {}, -32700);
    }
    if (Array.isArray(body) && (body.length === 0 || body.length > MAX_BATCH)) {
      return rpcError(400, `A JSON-RPC batch must hold 1 to ${MAX_BATCH} messages`, {}, -32600);
    }
    const refused = [body].flat().map(refusal).find((problem) => problem !== undefined);
    if (!refused) return body;
    // A single request's error answers its id, as JSON-RPC asks.
    const id = Array.isArray(body) ? null : idOf(body);
    return rpcError(400, refused.message, {}, refused.code, undefined, id);
  }

  async function streamable(request: Request, identity: Identity, address: string) {
    const body = request.method === "POST" ? await readJson(request) : undefined;
    if (body instanceof Response) return body;
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId) return await existing(sessionId, "streamable", identity, request, body);
    const initializing = Array.isArray(body)
      ? body.some(isInitializeRequest)
      : isInitializeRequest(body);
    if (request.method !== "POST" || !initializing) {
      return rpcError(400, "No session: send an initialize request without mcp-session-id first");
    }
    if (Array.isArray(body) && body.length > 1) {
      // Refused before a session is opened (and counted against the address's openings).
      return rpcError(400, "An initialize request is sent alone, not in a batch", {}, -32600);
    }
    const opened = await open(identity, request, address, "streamable", idOf(body));
    if (opened instanceof Response) return opened;
    const { server, session } = opened;
    // Each call is answered in JSON once its result is ready (no tool sends anything before): a
    // call cut off by a restart fails at once, where an event stream under way (it carries no
    // event ids to resume from) left the client waiting for its time limit.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => session.id,
      enableJsonResponse: true,
    });
    const calls = await connect(server, transport, session);
    // A call whose session ends before it is answered (DELETE, eviction, shutdown) is told so:
    // its request would otherwise wait for an answer that never comes.
    const waiting = new Set<(answer: Response) => void>();
    const close = server.server.onclose;
    server.server.onclose = () => {
      close?.();
      const gone = () =>
        rpcError(404, "Session not found: it ended or expired; start a new one", {}, -32001);
      for (const answer of waiting) answer(gone());
    };
    session.handle = (req, parsedBody) => {
      // An id in use is refused before the transport sees it: it would answer this request
      // in the place of the one in progress.
      const ids = requestIds(parsedBody);
      const reused = ids.find((id, i) => calls.has(id) || ids.indexOf(id) !== i);
      if (reused !== undefined) {
        return Promise.resolve(rpcError(400, IN_PROGRESS, {}, CALL_REFUSED, undefined, reused));
      }
      const answer = transport.handleRequest(req, { parsedBody });
      if (req.method === "DELETE") return answer;
      return new Promise((resolve, reject) => {
        waiting.add(resolve);
        answer.then(resolve, reject).finally(() => waiting.delete(resolve));
      });
    };
    const response = await session.handle(request, body);
    if (!transport.sessionId) await server.close();
    return response;
  }

  async function sse(request: Request, identity: Identity, address: string) {
    const opened = await open(identity, request, address, "sse");
    if (opened instanceof Response) return opened;
    const { server, session } = opened;
    const transport = new SseServerTransport(session.id, MESSAGES_PATH);
    session.handle = (_req, body) => {
      try {
        transport.handleMessage(body);
      } catch {
        return Promise.resolve(rpcError(400, "Invalid JSON-RPC message", {}, -32600));
      }
      return Promise.resolve(new Response("Accepted", { status: 202 }));
    };
    await connect(server, transport, session);
    return transport.response;
  }

  async function existing(
    sessionId: string,
    kind: McpSession["kind"],
    identity: Identity,
    request: Request,
    body: unknown,
  ): Promise<Response> {
    const session = sessions.get(sessionId);
    if (!session || session.kind !== kind) {
      return rpcError(404, "Session not found: it ended or expired; start a new one", {}, -32001);
    }
    if (session.identity !== identity.fingerprint) {
      return rpcError(403, "This session belongs to another identity");
    }
    sessions.touch(sessionId);
    return await session.handle(request, body);
  }

  /**
   * `handle` behind the checks every MCP request passes first: an allowed `Origin` (or none),
   * no credentials in the URL, and a well-formed identity.
   */
  function guarded(
    handle: (request: Request, identity: Identity, address: string) => Promise<Response>,
  ) {
    const checked = async (request: Request, address: string): Promise<Response> => {
      for (const [name, value] of new URL(request.url).searchParams) {
        if (CREDENTIAL_PARAMS.test(name) || /^[0-9a-f]{64}$/i.test(value)) {
          return rpcError(
            400,
            "Credentials must not be sent in the URL: use the Authorization header",
          );
        }
      }
      const identity = await identityOf(request);
      if (identity instanceof Response) return identity;
      return await handle(request, identity, address);
    };
    return async ({ request, clientAddress }: RouteContext): Promise<Response> => {
      const origin = request.headers.get("origin");
      if (origin === null) return await checked(request, clientAddress);
      if (!options.allowedOrigins.includes(origin)) return originRefused(origin);
      return withCors(await checked(request, clientAddress), origin);
    };
  }

  async function messages(request: Request, identity: Identity): Promise<Response> {
    const sessionId = new URL(request.url).searchParams.get("sessionId");
    if (!sessionId) return rpcError(400, "Missing sessionId query parameter");
    const body = await readJson(request);
    if (body instanceof Response) return body;
    return await existing(sessionId, "sse", identity, request, body);
  }

  const streamed = { streamBody: true };
  const answerPreflight = ({ request }: RouteContext) =>
    Promise.resolve(preflight(request, options.allowedOrigins));
  return [
    route("GET", "/api/mcp", guarded(streamable), streamed),
    route("POST", "/api/mcp", guarded(streamable), streamed),
    route("DELETE", "/api/mcp", guarded(streamable), streamed),
    route("GET", "/api/mcp/sse", guarded(sse), streamed),
    route("POST", MESSAGES_PATH, guarded(messages), streamed),
    ...["/api/mcp", "/api/mcp/sse", MESSAGES_PATH].map((path) =>
      route("OPTIONS", path, answerPreflight)
    ),
  ];
}
