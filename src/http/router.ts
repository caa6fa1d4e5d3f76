/**
 * A route table of `URLPattern`s. A path that matches with another method answers 405 with
 * `Allow`; a path that matches nothing answers 404 (both through `createHttpHandler`). A path
 * that a route names exactly belongs to the routes that name it, not to the patterns it would
 * match. An unsigned GET route that does not stream answers HEAD too.
 *
 * @example
 * ```ts
 * const hello = route("GET", "/hello/:name", ({ params }) =>
 *   Promise.resolve(jsonResponse(200, { hello: params.name })));
 * matchRoute([hello], "GET", "http://localhost/hello/ada"); // { kind: "found", ... }
 * ```
 */
import type { ClaimWrite } from "../auth/verify.ts";
import type { Operation } from "../backends/types.ts";
import type { JsonSchema, Shape } from "./fields.ts";

/** What `Deno.serve` tells a handler about the connection. */
export interface ConnectionInfo {
  /** The address of the client's end of the connection. */
  remoteAddr: Deno.Addr;
}

/** The address of the connection's client (`"unknown"` without one). */
export function peerAddress(info?: ConnectionInfo): string {
  const remote = info?.remoteAddr;
  return remote && "hostname" in remote ? remote.hostname : "unknown";
}

/** What the kernel gives every route handler. */
export interface RouteContext {
  /** The request. */
  request: Request;
  /** The path's parameters (`:id`). */
  params: Record<string, string>;
  /** The id its answer and log entries carry. */
  requestId: string;
  /** The client's address, as the server's `clientAddress` option finds it. */
  clientAddress: string;
  /** The connection, when the server was given one (`Deno.serve` passes it). */
  info?: ConnectionInfo;
  /** The raw body, read under the route's limit; empty when the route streams its body. */
  body: Uint8Array<ArrayBuffer>;
  /** The body as a JSON object: 415 without a JSON content type, 400 unless a JSON object. */
  json(): Record<string, unknown>;
  /**
   * For a route that streams its body: reads it under `limit` (the server's by default), with
   * the server's time limit and body budget, as the kernel reads the others.
   */
  readBody(limit?: number): Promise<Uint8Array<ArrayBuffer>>;
  /** What the route's `input` declared, read before the handler runs (`undefined` otherwise). */
  input: RouteInputValues;
}

/** The body, query and path parameters a route declares, as `fields.ts` shapes. */
export interface RouteInput<B = unknown, Q = unknown, P = unknown> {
  /** The JSON body (415 without a JSON content type, 400 unless a valid object). */
  body?: Shape<B>;
  /** The query string's parameters. */
  query?: Shape<Q>;
  /** The path's parameters (`:id`); a parameter left out is described as a string. */
  params?: Shape<P>;
}

/** What a route's `input` read: `undefined` for each part it does not declare. */
export interface RouteInputValues<B = unknown, Q = unknown, P = unknown> {
  /** The body read (`undefined` unless declared). */
  body: B;
  /** The query read (`undefined` unless declared). */
  query: Q;
  /** The path's parameters read (`undefined` unless declared). */
  params: P;
}

/** A response a route documents: when it is sent, and an example of its body. */
export interface ResponseDoc {
  /** When it is sent. */
  description: string;
  /** An example of its body. */
  example?: unknown;
  /** The body's content type (default `application/json`). */
  contentType?: string;
  /** The body's schema (an error's default: the relayer's `Error`). */
  schema?: JsonSchema;
}

/** How a route describes itself in the OpenAPI document (`GET /openapi.json`). */
export interface RouteDoc {
  /** One line: what the route does. */
  summary: string;
  /** More, when one line is not enough. */
  description?: string;
  /** The group it is listed under (`memories`, `service`, ...). */
  tag: string;
  /**
   * A valid request: its body, its query parameters (typed values; lists for repeated ones)
   * and its path parameters. Tests send it through the route's own validators.
   */
  example?: { body?: unknown; query?: Record<string, unknown>; params?: Record<string, string> };
  /** A body the route reads without a declared `input` (a proxied one), described by hand. */
  body?: { description: string; contentType?: string; example?: unknown; schema?: JsonSchema };
  /** Its own responses by status (the errors every route of its kind has are added). */
  responses: Record<number, ResponseDoc>;
  /** Security other than the signed-request headers, by scheme name (`mcpBearer`, ...). */
  security?: Record<string, string[]>[];
}

/** The memory operations the access log records, one per route that touches memories. */
export type AccessOperation =
  | "remember"
  | "recall"
  | "get"
  | "list"
  | "update"
  | "erase"
  | "restore"
  | "ask"
  | "analyze"
  | "export"
  | "import";

/** How a route is served besides its handler. */
export interface RouteOptions {
  /** Signed routes are verified (DESIGN §5.4) by the relayer before `handle` runs. */
  signed?: boolean;
  /** The operations a delegate key needs for this signed route, checked before the body is read. */
  operations?: readonly Operation[];
  /** The entry this route adds to the owner's access log once it succeeds. */
  access?: AccessOperation;
  /** A signed route the account owner's own key may sign too, besides its delegate keys. */
  ownerKey?: boolean;
  /**
   * When a signed route's replay claim is written (`ClaimWrite`): by default, before `handle`
   * runs; `"overlap"` for a route that changes nothing; `"carried"` for a route whose change
   * carries it. Either way the response waits for it.
   */
  claim?: ClaimWrite;
  /** The handler reads or streams the body itself; otherwise it is read under the limit first. */
  streamBody?: boolean;
  /** The body limit of this route (the server's, 2 MiB by default, when absent). */
  maxBodyBytes?: number;
  /** The body, query and path parameters the kernel reads before `handle` (see `fields.ts`). */
  input?: RouteInput;
  /** How the route is described in the OpenAPI document. */
  doc?: RouteDoc;
}

/** A route as the kernel serves it: its `RouteOptions`, defaults filled in (see `route`). */
export interface Route<C extends RouteContext = RouteContext> extends RouteOptions {
  /** Its method. */
  method: "GET" | "POST" | "DELETE" | "PUT" | "OPTIONS";
  /** The paths it serves. */
  pattern: URLPattern;
  /** Whether its requests are signed. */
  signed: boolean;
  /** The operations a delegate key needs for it. */
  operations: readonly Operation[];
  /** Whether the owner's own key may sign it. */
  ownerKey: boolean;
  /** Whether the handler reads the body itself. */
  streamBody: boolean;
  /** Answers a request. */
  handle(context: C): Promise<Response>;
}

/** What a request's method and path find in a route table. */
export type RouteMatch<C extends RouteContext> =
  | { kind: "found"; route: Route<C>; params: Record<string, string> }
  | { kind: "wrong_method"; allow: string[] }
  | { kind: "none" };

/** Builds a route for `method` and a pathname pattern such as `/api/remember/:job_id`. */
export function route<C extends RouteContext = RouteContext>(
  method: Route<C>["method"],
  pathname: string,
  handle: Route<C>["handle"],
  options: RouteOptions = {},
): Route<C> {
  return {
    ...options,
    method,
    pattern: new URLPattern({ pathname }),
    signed: options.signed ?? false,
    operations: options.operations ?? [],
    ownerKey: options.ownerKey ?? false,
    streamBody: options.streamBody ?? false,
    handle,
  };
}

/**
 * `route` for handlers of context `C` whose declared `input` is typed: the handler's
 * `input.body`, `input.query` and `input.params` have the types their shapes read into.
 *
 * @example
 * ```ts
 * const typed = routesFor<RouteContext>();
 * typed("POST", "/echo", ({ input }) => Promise.resolve(jsonResponse(200, input.body)), {
 *   input: { body: object({ text: text({ max: 100 }) }) },
 * });
 * ```
 */
export function routesFor<C extends RouteContext>() {
  return <B = undefined, Q = undefined, P = undefined>(
    method: Route<C>["method"],
    pathname: string,
    handle: (context: C & { input: RouteInputValues<B, Q, P> }) => Promise<Response>,
    options: RouteOptions & { input?: RouteInput<B, Q, P> } = {},
  ): Route<C> => route<C>(method, pathname, handle as Route<C>["handle"], options);
}

/**
 * What a path pattern starts with before its first group, wildcard or escape, and whether that
 * is all of it: a path can match only if it starts so (is so), which is far cheaper to ask than
 * the pattern, which parses the URL each time.
 */
const literals = new WeakMap<URLPattern, { literal: string; whole: boolean }>();

function literalOf(pattern: URLPattern): { literal: string; whole: boolean } {
  let known = literals.get(pattern);
  if (!known) {
    const at = pattern.pathname.search(/[:*(){}\\?+]/);
    known = at < 0
      ? { literal: pattern.pathname, whole: true }
      : { literal: pattern.pathname.slice(0, at), whole: false };
    literals.set(pattern, known);
  }
  return known;
}

/** The paths of a table's routes without groups or wildcards. */
const named = new WeakMap<Route<never>[], Set<string>>();

function namedPaths(routes: Route<never>[]): Set<string> {
  let paths = named.get(routes);
  if (!paths) {
    paths = new Set(routes.flatMap(({ pattern }) => {
      const { literal, whole } = literalOf(pattern);
      return whole ? [literal] : [];
    }));
    named.set(routes, paths);
  }
  return paths;
}

/** The route for `method` and `url`, or the methods the path allows, or nothing. */
export function matchRoute<C extends RouteContext>(
  routes: Route<C>[],
  method: string,
  url: string,
): RouteMatch<C> {
  const { pathname } = new URL(url);
  // A path some route names exactly is that route's: `GET /api/remember/bulk` is not a job's id.
  const exact = namedPaths(routes).has(pathname);
  const allow = new Set<string>();
  for (const candidate of routes) {
    const { literal, whole } = literalOf(candidate.pattern);
    if (whole ? pathname !== literal : exact || !pathname.startsWith(literal)) continue;
    const match = whole ? undefined : candidate.pattern.exec(url);
    if (match === null) continue;
    // A public GET route answers HEAD too (its headers, without the body), as monitors ask; not
    // one that streams (a proxy, an event stream): a HEAD must not open what a GET opens.
    const head = candidate.method === "GET" && !candidate.signed && !candidate.streamBody;
    if (candidate.method === method || (head && method === "HEAD")) {
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(match?.pathname.groups ?? {})) {
        if (value !== undefined) params[name] = value;
      }
      return { kind: "found", route: candidate, params };
    }
    allow.add(candidate.method);
    if (head) allow.add("HEAD");
  }
  if (allow.size === 0) return { kind: "none" };
  return { kind: "wrong_method", allow: [...allow] };
}
