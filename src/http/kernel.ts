/**
 * The one HTTP kernel of svc's servers (the relayer, the MCP sidecar, the dashboard). For
 * every request it:
 *
 * - takes the request id from a valid incoming `x-request-id`, else makes one, and sets it
 *   on the response, with `cache-control: no-store` and `x-content-type-options: nosniff` where
 *   the route set neither (what svc answers is private, or changes: no cache keeps it);
 * - runs the server's `before` hook (checks that cover every path);
 * - routes through a `URLPattern` table: 404 `not_found`, 405 `method_not_allowed` with
 *   `Allow`;
 * - runs the server's `admit` hook, the checks that need only the headers (the relayer's
 *   signed-request headers), so that a request they refuse is answered without its body;
 * - reads the body under the route's limit (413 `payload_too_large` past it, without
 *   buffering the rest) unless the route streams it, within the server's time limit (408
 *   `request_timeout`) and held against its body budget (429/503 when it has no room, without
 *   reading); a body its client stopped sending is a 400. The budget is given back once
 *   `extend` has authenticated the request, or when the request ends;
 * - reads what the route's `input` declares (path parameters, query, JSON body; a 400 naming
 *   the field otherwise) once `extend` has run, into the context's `input`;
 * - maps anything thrown to the §5.1 JSON error body through `errorResponse` (an unknown
 *   error is logged and answered 500 `internal` with a generic sentence; a request its client
 *   abandoned is not logged; the failures of a backend's outage are logged a few at a time);
 * - logs one debug line, and tells the server's `observe` hook the route, status and time.
 *
 * @example
 * ```ts
 * const handler = createHttpHandler({
 *   routes: [route("GET", "/hello", () => Promise.resolve(jsonResponse(200, { hello: "you" })))],
 *   logger: silentLogger,
 * });
 * const response = await handler(new Request("http://localhost/hello"));
 * ```
 */
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import { MAX_BODY_BYTES, parseJsonObject, readBody } from "./body.ts";
import type { BodyBudget, BodyReservation } from "./body_budget.ts";
import { errorResponse, FailureLog } from "./respond.ts";
import {
  type ConnectionInfo,
  matchRoute,
  peerAddress,
  type Route,
  type RouteContext,
  type RouteInput,
  type RouteInputValues,
} from "./router.ts";

export type { ConnectionInfo };

/** A request handler, as `Deno.serve` calls it. */
export type HttpHandler = (request: Request, info?: ConnectionInfo) => Promise<Response>;

/** What `createHttpHandler` serves, and how. */
export interface HttpHandlerOptions<C extends RouteContext, A = undefined> {
  /** The routes it serves. */
  routes: Route<C>[];
  /** Where failed requests are written down. */
  logger: Logger;
  /** The body limit of routes without their own (default 2 MiB). */
  maxBodyBytes?: number;
  /** Where a request comes from (default: the connection's hostname, else `"unknown"`). */
  clientAddress?(request: Request, info?: ConnectionInfo): string;
  /**
   * Runs before routing, for checks that cover every path: returns a response to send as it
   * is (a redirect), throws to refuse the request, or returns nothing to go on.
   */
  before?(request: Request): Response | undefined | Promise<Response | undefined>;
  /**
   * Runs once the route is known and before its body is read: throws to refuse the request
   * unread; what it returns reaches `extend`.
   */
  admit?(request: Request, route: Route<C>, clientAddress: string): Promise<A>;
  /**
   * Adds what the routes need to the kernel's context once the body is read (the relayer
   * verifies signed requests here). Without it the routes get the kernel's context.
   */
  extend?(context: RouteContext, route: Route<C>, admitted: A): Promise<C>;
  /** Holds the bytes of bodies being read until `extend` is done (no budget by default). */
  bodyBudget?: BodyBudget;
  /** The time a body has to arrive in full once its read starts (no limit by default). */
  bodyTimeoutMs?: number;
  /** The sentence of a 404 (default `No route for <path>`). */
  notFound?(pathname: string): string;
  /**
   * Hears of every answered request: its route (`undefined` when none matched), status and
   * seconds to its response's headers. Runs on every request: it must be cheap.
   */
  observe?(request: Request, route: Route<C> | undefined, status: number, seconds: number): void;
}

/** What one request's handling keeps while it runs. */
interface Handling<C extends RouteContext> {
  /** Body budget held for it, given back when it ends. */
  held: BodyReservation[];
  /** The route it matched, once known. */
  route?: Route<C>;
}

const NO_INPUT: RouteInputValues = Object.freeze({
  body: undefined,
  query: undefined,
  params: undefined,
});

/** Reads what `input` declares, in order: path parameters, query, body. */
function readInput(input: RouteInput, context: RouteContext): RouteInputValues {
  return {
    params: input.params?.parseObject(context.params),
    query: input.query?.parseQuery(queryOf(context.request.url)),
    body: input.body?.parseObject(context.json()),
  };
}

/**
 * The query's parameters. A parameter whose percent-escapes are not UTF-8 would be read with
 * U+FFFD in their place, another value than the one sent (a `confirm` matching a `namespace` it
 * differs from): 400.
 */
function queryOf(url: string): URLSearchParams {
  const { search, searchParams } = new URL(url);
  try {
    // A % that escapes nothing stays itself, as URLSearchParams reads it.
    decodeURIComponent(search.replace(/%(?![0-9a-f]{2})/gi, "%25"));
  } catch {
    throw new SvcError(
      "bad_request",
      "The query string is not UTF-8 once its percent-escapes are decoded",
    );
  }
  return searchParams;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's `x-request-id` when it is 1–128 of `[A-Za-z0-9._:-]`, else a new UUID. */
function requestIdOf(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/** Builds a server's handler from its route table and hooks (see the module comment). */
export function createHttpHandler<C extends RouteContext = RouteContext, A = undefined>(
  options: HttpHandlerOptions<C, A>,
): HttpHandler {
  const { routes, logger } = options;
  const failures = new FailureLog(logger);
  const clientAddress = options.clientAddress ?? ((_request, info) => peerAddress(info));
  const notFound = options.notFound ?? ((pathname: string) => `No route for ${pathname}`);

  async function dispatch(
    request: Request,
    requestId: string,
    handling: Handling<C>,
    info?: ConnectionInfo,
  ): Promise<Response> {
    const { held } = handling;
    const early = await options.before?.(request);
    if (early) return early;
    const match = matchRoute(routes, request.method, request.url);
    if (match.kind === "none") {
      throw new SvcError("not_found", notFound(new URL(request.url).pathname));
    }
    if (match.kind === "wrong_method") {
      const allow = match.allow.join(", ");
      throw new SvcError("method_not_allowed", `Method ${request.method} is not allowed here`, {
        headers: { allow },
        details: { allow },
      });
    }
    const { route } = match;
    handling.route = route;
    const address = clientAddress(request, info);
    const admitted = options.admit ? await options.admit(request, route, address) : undefined as A;
    const read = (limit = options.maxBodyBytes ?? MAX_BODY_BYTES) => {
      const reservation = options.bodyBudget?.open(address, !route.signed);
      if (reservation) held.push(reservation);
      return readBody(request, limit, { reservation, timeoutMs: options.bodyTimeoutMs });
    };
    const body = route.streamBody ? new Uint8Array() : await read(route.maxBodyBytes);
    const context: RouteContext = {
      request,
      params: match.params,
      requestId,
      clientAddress: address,
      info,
      body,
      json: () => parseJsonObject(request, body),
      readBody: read,
      input: NO_INPUT,
    };
    const extended = options.extend
      ? await options.extend(context, route, admitted as A)
      : context as C;
    if (route.input) extended.input = readInput(route.input, extended);
    // Authenticated (or public): the body no longer counts as an unauthenticated one.
    for (const reservation of held) reservation.release();
    return await route.handle(extended);
  }

  return async (request: Request, info?: ConnectionInfo): Promise<Response> => {
    const requestId = requestIdOf(request);
    const started = performance.now();
    const handling: Handling<C> = { held: [] };
    // A Host header that names no host ("a b", "localhost:99999") makes a URL nothing parses.
    const url = URL.parse(request.url);
    let response: Response;
    try {
      if (!url) throw new SvcError("bad_request", "The Host header does not name a host");
      response = await dispatch(request, requestId, handling, info);
    } catch (error) {
      // A client that left aborts its request's signal, and the work under it fails: no answer
      // reaches it, and no error is logged for it.
      const failure = request.signal.aborted
        ? new SvcError("bad_request", "The client closed the request")
        : error;
      response = errorResponse(failure, requestId, failures);
    } finally {
      for (const reservation of handling.held) reservation.release();
    }
    response = withCommonHeaders(response, requestId);
    const seconds = (performance.now() - started) / 1000;
    options.observe?.(request, handling.route, response.status, seconds);
    logger.debug("request", {
      request_id: requestId,
      method: request.method,
      // A key a client put in the path (a run of 32 hex characters or more) is not written down.
      path: url?.pathname.replace(/[0-9a-f]{32,}/gi, "…"),
      status: response.status,
      ms: Math.round(seconds * 1000),
    });
    return response;
  };
}

/**
 * `response` with `x-request-id` set, and kept from caches unless the route said otherwise; one
 * with immutable headers (from `fetch`) is copied.
 */
function withCommonHeaders(response: Response, requestId: string): Response {
  const set = (headers: Headers) => {
    headers.set("x-request-id", requestId);
    if (!headers.has("cache-control")) headers.set("cache-control", "no-store");
    if (!headers.has("x-content-type-options")) headers.set("x-content-type-options", "nosniff");
  };
  try {
    set(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    set(copy.headers);
    return copy;
  }
}
