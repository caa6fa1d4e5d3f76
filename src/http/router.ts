/**
 * A route table of `URLPattern`s. A path that matches with another method answers 405 with
 * `Allow`; a path that matches nothing answers 404.
 */

export interface RouteContext {
  request: Request;
  params: Record<string, string>;
  requestId: string;
  /** The client's address (from `x-forwarded-for` only when the relayer trusts a proxy). */
  clientAddress: string;
}

export interface Route<C> {
  method: "GET" | "POST" | "DELETE" | "PUT";
  pattern: URLPattern;
  /** Signed routes are verified (DESIGN §5.4) before `handle` runs. */
  signed: boolean;
  /** The handler reads or streams the body itself; otherwise it is read (2 MiB cap) first. */
  streamBody: boolean;
  handle(context: C & RouteContext): Promise<Response>;
}

export type RouteMatch<C> =
  | { kind: "found"; route: Route<C>; params: Record<string, string> }
  | { kind: "wrong_method"; allow: string[] }
  | { kind: "none" };

/** Builds a route for `method` and a pathname pattern such as `/api/remember/:job_id`. */
export function route<C>(
  method: Route<C>["method"],
  pathname: string,
  handle: Route<C>["handle"],
  options: { signed?: boolean; streamBody?: boolean } = {},
): Route<C> {
  return {
    method,
    pattern: new URLPattern({ pathname }),
    signed: options.signed ?? false,
    streamBody: options.streamBody ?? false,
    handle,
  };
}

export function matchRoute<C>(routes: Route<C>[], method: string, url: string): RouteMatch<C> {
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
