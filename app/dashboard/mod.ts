/**
 * The local-mode dashboard: a small web app (no build step) where a person creates their
 * wallet and account, approves MCP sign-ins, revokes keys, and reads, searches and erases their
 * memories. The owner key never leaves the browser; this server only serves the app, reads the
 * public ledger, forwards sponsored transactions and the owner-signed memory requests
 * (`/api/memories*`, `/api/recall`, `/api/namespaces`, `/api/access-log`, `/api/blind*`;
 * `/health` for the receipt key) to the relayer. Its handler is built with the HTTP kernel.
 */
import { isAddress } from "@svc/util/keys";
import { audienceOf } from "@svc/relayer";
import { type Logger, SvcError } from "@svc/relayer/kit";
import {
  type ConnectionInfo,
  createHttpHandler,
  hostGuard,
  type HttpHandler,
  jsonResponse,
  LOOPBACK_HOSTS,
  route,
  type RouteContext,
} from "@svc/relayer/http";

export interface DashboardOptions {
  /** The relayer this dashboard belongs to (shown when an agent names another). */
  relayerUrl: string;
  /**
   * The one origin of the dashboard (`http://localhost:5173`): pages asked for by a loopback
   * address (`127.0.0.1`, `[::1]`) move there, since a browser keeps the wallet per origin and
   * would otherwise make a second one.
   */
  origin?: string;
  packageId: string;
  /** The local ledger: an owner's account, as JSON, or `null`. */
  ledger: { accountOf(owner: string): Promise<object | null> };
  /**
   * The relayer's handler: `/sponsor`, `/sponsor/execute`, the memory routes the owner key
   * signs and `/health` are forwarded to it.
   */
  relayer(request: Request, info?: ConnectionInfo): Promise<Response>;
  /**
   * The `Host` names it answers to (`host` on any port, or `host:port`; `*` for any); any
   * other gets 403, against DNS rebinding. Default: the loopback names.
   */
  allowedHosts?: readonly string[];
  logger: Logger;
}

const STATIC: Record<string, [file: string, type: string]> = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/agents": ["index.html", "text/html; charset=utf-8"],
  "/connect/mcp": ["index.html", "text/html; charset=utf-8"],
  "/memories": ["index.html", "text/html; charset=utf-8"],
  "/activity": ["index.html", "text/html; charset=utf-8"],
  "/assets/app.js": ["app.js", "text/javascript; charset=utf-8"],
  "/assets/ui.js": ["ui.js", "text/javascript; charset=utf-8"],
  "/assets/memories.js": ["memories.js", "text/javascript; charset=utf-8"],
  "/assets/blind.js": ["blind.js", "text/javascript; charset=utf-8"],
  "/assets/blind_keys.js": ["blind_keys.js", "text/javascript; charset=utf-8"],
  "/assets/scope.js": ["scope.js", "text/javascript; charset=utf-8"],
  "/assets/activity.js": ["activity.js", "text/javascript; charset=utf-8"],
  "/assets/wallet.js": ["wallet.js", "text/javascript; charset=utf-8"],
  "/assets/session.js": ["session.js", "text/javascript; charset=utf-8"],
  "/assets/connect.js": ["connect.js", "text/javascript; charset=utf-8"],
  "/assets/app.css": ["app.css", "text/css; charset=utf-8"],
  "/assets/moved.js": ["moved.js", "text/javascript; charset=utf-8"],
};
/** The npm packages the browser imports, served from `node_modules` at `/vendor/<name>/`. */
const VENDOR: Record<string, URL> = {
  "noble-hashes": new URL("../../node_modules/@noble/hashes/", import.meta.url),
  "noble-ciphers": new URL("../../node_modules/@noble/ciphers/", import.meta.url),
};
const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; connect-src 'self' http://127.0.0.1:* " +
    "http://localhost:*; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  // A page that opened the dashboard cannot send its tab elsewhere (a look-alike page).
  "cross-origin-opener-policy": "same-origin",
};
const LOOPBACK_ADDRESS = /^(127(\.[0-9]{1,3}){3}|\[::1\])(:[0-9]+)?$/;

/** The dashboard's handler, for `Deno.serve` on the dashboard port. */
export function createDashboard(options: DashboardOptions): HttpHandler {
  const { logger } = options;
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();

  async function file(url: URL): Promise<Uint8Array<ArrayBuffer> | null> {
    const cached = cache.get(url.href);
    if (cached) return cached;
    const response = await fetch(url).catch(() => null);
    if (!response?.ok) return null;
    const bytes = await response.bytes();
    cache.set(url.href, bytes);
    return bytes;
  }

  async function asset(url: URL, type: string): Promise<Response> {
    const bytes = await file(url);
    if (!bytes) throw new SvcError("not_found", "No such file");
    return new Response(bytes, { headers: { "content-type": type, ...SECURITY_HEADERS } });
  }

  /** Hands a request to the relayer as it came (signed by the browser), under this request's id. */
  function toRelayer({ request, requestId, info }: RouteContext): Promise<Response> {
    const headers = new Headers(request.headers);
    headers.set("x-request-id", requestId);
    return options.relayer(new Request(request, { headers }), info);
  }

  /**
   * Pages asked for by a loopback address get the page that moves to the one origin (see
   * `origin`): on its own when this address holds no wallet, else offering the backup of the
   * wallet an earlier version made here. Its scripts, styles and API are served as they are.
   */
  function moveFromLoopback(request: Request): Promise<Response> | undefined {
    if (request.method !== "GET" || !options.origin) return undefined;
    if (!LOOPBACK_ADDRESS.test(request.headers.get("host") ?? "")) return undefined;
    if (STATIC[new URL(request.url).pathname]?.[0] !== "index.html") return undefined;
    return asset(new URL("./static/moved.html", import.meta.url), "text/html; charset=utf-8");
  }

  /** A page asked for with a slash after its path (`/memories/`) is sent to its path. */
  function withoutSlash(request: Request): Promise<Response> | undefined {
    const url = new URL(request.url);
    const page = url.pathname.replace(/\/+$/, "");
    if (request.method !== "GET" || page === url.pathname) return undefined;
    if (STATIC[page]?.[0] !== "index.html") return undefined;
    const location = page + url.search;
    return Promise.resolve(new Response(null, { status: 308, headers: { location } }));
  }

  const pages = Object.entries(STATIC).map(([pathname, [name, type]]) =>
    route("GET", pathname, () => asset(new URL(`./static/${name}`, import.meta.url), type))
  );
  const checkHost = hostGuard(options.allowedHosts ?? LOOPBACK_HOSTS);
  return createHttpHandler({
    logger,
    before(request) {
      checkHost(request);
      return moveFromLoopback(request) ?? withoutSlash(request);
    },
    notFound: (pathname) => `No page at ${pathname}`,
    routes: [
      ...pages,
      route(
        "GET",
        `/vendor/:package(${Object.keys(VENDOR).join("|")})/:name([a-z0-9_]+\\.js)`,
        ({ params }) =>
          asset(new URL(params.name, VENDOR[params.package]), "text/javascript; charset=utf-8"),
      ),
      route("GET", "/api/config", () =>
        Promise.resolve(
          jsonResponse(200, {
            relayer: options.relayerUrl,
            packageId: options.packageId,
            // What the wallet signs relayer requests for (signature version 2).
            audience: audienceOf(options.relayerUrl),
          }),
        )),
      route("GET", "/api/account", async ({ request }) => {
        const owner = new URL(request.url).searchParams.get("owner");
        if (!isAddress(owner)) throw new SvcError("bad_request", "owner must be an address");
        return jsonResponse(200, { account: await options.ledger.accountOf(owner) });
      }),
      route("POST", "/sponsor", toRelayer, { streamBody: true }),
      route("POST", "/sponsor/execute", toRelayer, { streamBody: true }),
      // Signed by the owner key in the browser; the relayer verifies them.
      route("GET", "/api/memories", toRelayer, { streamBody: true }),
      route("DELETE", "/api/memories", toRelayer, { streamBody: true }),
      route("GET", "/api/memories/:id", toRelayer, { streamBody: true }),
      route("PUT", "/api/memories/:id", toRelayer, { streamBody: true }),
      route("GET", "/api/remember/:job_id", toRelayer, { streamBody: true }),
      route("DELETE", "/api/memories/:id", toRelayer, { streamBody: true }),
      route("POST", "/api/recall", toRelayer, { streamBody: true }),
      route("GET", "/api/namespaces", toRelayer, { streamBody: true }),
      route("GET", "/api/access-log", toRelayer, { streamBody: true }),
      // Operator-blind namespaces: the browser opens their entries, the relayer cannot.
      route("GET", "/api/blind", toRelayer, { streamBody: true }),
      route("DELETE", "/api/blind", toRelayer, { streamBody: true }),
      route("GET", "/api/blind/namespaces", toRelayer, { streamBody: true }),
      route("PUT", "/api/blind/keys", toRelayer, { streamBody: true }),
      route("GET", "/api/blind/entries", toRelayer, { streamBody: true }),
      route("DELETE", "/api/blind/entries/:id", toRelayer, { streamBody: true }),
      route("GET", "/health", toRelayer, { streamBody: true }),
    ],
  });
}
