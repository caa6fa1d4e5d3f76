/**
 * The local-mode dashboard: a small web app (no build step) where a person creates their
 * wallet and account, approves MCP sign-ins and revokes keys. The owner key never leaves the
 * browser; this server only serves the app, reads the public ledger, forwards sponsored
 * transactions to the relayer, and lists namespaces for requests signed by the owner key.
 */
import { addressOf, isAddress } from "../auth/keys.ts";
import type { VectorStore } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { parseJsonObject, readBody } from "../http/body.ts";
import { errorResponse, jsonResponse } from "../http/respond.ts";
import type { Logger } from "../log.ts";
import type { ConnectionInfo } from "../relayer.ts";

export interface DashboardOptions {
  /** The relayer this dashboard belongs to (shown when an agent names another). */
  relayerUrl: string;
  /**
   * The one origin of the dashboard (`http://localhost:5173`): pages asked for by a loopback
   * address (`127.0.0.1`, `[::1]`) are redirected there, since a browser keeps the wallet per
   * origin and would otherwise make a second one.
   */
  origin?: string;
  packageId: string;
  /** The local ledger: an owner's account, as JSON, or `null`. */
  ledger: { accountOf(owner: string): Promise<object | null> };
  vectors: VectorStore;
  /** The relayer's handler: `/sponsor` and `/sponsor/execute` are forwarded to it. */
  relayer(request: Request, info?: ConnectionInfo): Promise<Response>;
  logger: Logger;
  now?: () => number;
}

const STATIC: Record<string, [file: string, type: string]> = {
  "/": ["index.html", "text/html; charset=utf-8"],
  "/agents": ["index.html", "text/html; charset=utf-8"],
  "/connect/mcp": ["index.html", "text/html; charset=utf-8"],
  "/assets/app.js": ["app.js", "text/javascript; charset=utf-8"],
  "/assets/wallet.js": ["wallet.js", "text/javascript; charset=utf-8"],
  "/assets/app.css": ["app.css", "text/css; charset=utf-8"],
};
const VENDOR = /^\/vendor\/noble-hashes\/([a-z0-9_]+\.js)$/;
const NOBLE_HASHES = new URL("../../node_modules/@noble/hashes/", import.meta.url);
const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; connect-src 'self' http://127.0.0.1:* " +
    "http://localhost:*; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};
const SIGNATURE_WINDOW_S = 300;
const LOOPBACK_ADDRESS = /^(127(\.[0-9]{1,3}){3}|\[::1\])(:[0-9]+)?$/;

export function createDashboard(options: DashboardOptions) {
  const { logger } = options;
  const now = options.now ?? Date.now;
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

  /** Namespaces and counts, for a request signed by the owner key. */
  async function namespaces(request: Request): Promise<Response> {
    const body = parseJsonObject(request, await readBody(request, 4096));
    const { public_key: publicKey, timestamp, signature } = body;
    if (
      typeof publicKey !== "string" || !/^[0-9a-f]{64}$/.test(publicKey) ||
      typeof timestamp !== "string" || !/^[0-9]{1,12}$/.test(timestamp) ||
      typeof signature !== "string" || !/^[0-9a-f]{128}$/.test(signature)
    ) {
      throw new SvcError("bad_request", "Send public_key, timestamp and signature (hex)");
    }
    if (Math.abs(now() / 1000 - Number(timestamp)) > SIGNATURE_WINDOW_S) {
      throw new SvcError("unauthorized", "The signature is stale: check the clock");
    }
    const key = await crypto.subtle.importKey(
      "raw",
      Uint8Array.fromHex(publicKey),
      "Ed25519",
      false,
      ["verify"],
    );
    const message = new TextEncoder().encode(`svc-dashboard:namespaces:${timestamp}`);
    if (!await crypto.subtle.verify("Ed25519", key, Uint8Array.fromHex(signature), message)) {
      throw new SvcError("unauthorized", "The signature does not match the owner key");
    }
    const owner = addressOf(publicKey);
    return jsonResponse(200, { owner, namespaces: await options.vectors.namespaces(owner) });
  }

  async function route(request: Request, info?: ConnectionInfo): Promise<Response> {
    const url = new URL(request.url);
    const { pathname } = url;
    if (request.method === "GET") {
      const host = request.headers.get("host") ?? "";
      if (options.origin && LOOPBACK_ADDRESS.test(host)) {
        return new Response(null, {
          status: 308,
          headers: { location: `${options.origin}${pathname}${url.search}`, ...SECURITY_HEADERS },
        });
      }
      const known = STATIC[pathname];
      if (known) return await asset(new URL(`./static/${known[0]}`, import.meta.url), known[1]);
      const vendor = VENDOR.exec(pathname);
      if (vendor) {
        return await asset(new URL(vendor[1], NOBLE_HASHES), "text/javascript; charset=utf-8");
      }
      if (pathname === "/api/config") {
        return jsonResponse(200, { relayer: options.relayerUrl, packageId: options.packageId });
      }
      if (pathname === "/api/account") {
        const owner = url.searchParams.get("owner");
        if (!isAddress(owner)) throw new SvcError("bad_request", "owner must be an address");
        return jsonResponse(200, { account: await options.ledger.accountOf(owner) });
      }
    }
    if (request.method === "POST") {
      if (pathname === "/sponsor" || pathname === "/sponsor/execute") {
        return await options.relayer(request, info);
      }
      if (pathname === "/api/namespaces") return await namespaces(request);
    }
    throw new SvcError("not_found", `No page at ${pathname}`);
  }

  return {
    async handler(request: Request, info?: ConnectionInfo): Promise<Response> {
      const requestId = crypto.randomUUID();
      try {
        return await route(request, info);
      } catch (error) {
        return errorResponse(error, requestId, logger);
      }
    },
  };
}
