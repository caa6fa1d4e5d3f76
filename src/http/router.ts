/**
 * A route table of `URLPattern`s. A path that matches with another method answers 405 with
 * `Allow`; a path that matches nothing answers 404 (both through `createHttpHandler`).
 *
 * @example
 * ```ts
 * const hello = route("GET", "/hello/:name", ({ params }) =>
 *   Promise.resolve(jsonResponse(200, { hello: params.name })));
 * matchRoute([hello], "GET", "http://localhost/hello/ada"); // { kind: "found", ... }
 * ```
 */
import type { Operation } from "../backends/types.ts";

/** What `Deno.serve` tells a handler about the connection. */
export interface ConnectionInfo {
  /** The address of the client's end of the connection. */
  remoteAddr: Deno.Addr;
}

/** What the kernel gives every route handler. */
export interface RouteContext {
  request: Request;
  params: Record<string, string>;
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

export interface RouteOptions {
  /** Signed routes are verified (DESIGN §5.4) by the relayer before `handle` runs. */
  signed?: boolean;
  /** The scope a delegate key needs for this signed route, checked before the body is read. */
  operation?: Operation;
  /** The entry this route adds to the owner's access log once it succeeds. */
  access?: AccessOperation;
  /** A signed route the account owner's own key may sign too, besides its delegate keys. */
  ownerKey?: boolean;
  /** The handler reads or streams the body itself; otherwise it is read under the limit first. */
  streamBody?: boolean;
  /** The body limit of this route (the server's, 2 MiB by default, when absent). */
  maxBodyBytes?: number;
}

export interface Route<C extends RouteContext = RouteContext> {
  method: "GET" | "POST" | "DELETE" | "PUT";
  pattern: URLPattern;
  signed: boolean;
  operation?: Operation;
  access?: AccessOperation;
  ownerKey: boolean;
  streamBody: boolean;
  maxBodyBytes?: number;
  handle(context: C): Promise<Response>;
}

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
    method,
    pattern: new URLPattern({ pathname }),
    signed: options.signed ?? false,
    operation: options.operation,
    access: options.access,
    ownerKey: options.ownerKey ?? false,
    streamBody: options.streamBody ?? false,
    maxBodyBytes: options.maxBodyBytes,
    handle,
  };
}

/** The route for `method` and `url`, or the methods the path allows, or nothing. */
export function matchRoute<C extends RouteContext>(
  routes: Route<C>[],
  method: string,
  url: string,
): RouteMatch<C> {
  const allow = new Set<string>();
  for (const candidate of routes) {
    const match = candidate.pattern.exec(url);
    if (!match) continue;
    if (candidate.method === method) {
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(match.pathname.groups)) {
        if (value !== undefined) params[name] = value;
      }
      return { kind: "found", route: candidate, params };
    }
    allow.add(candidate.method);
  }
  if (allow.size === 0) return { kind: "none" };
  return { kind: "wrong_method", allow: [...allow] };
}
