/**
 * The names a relayer answers to. Its origins are the audiences a version 2 signature may name
 * (`signing.ts`); its hosts are the `Host` headers its MCP routes, its sidecar and its dashboard
 * accept, so that a web page whose own name was re-pointed at this machine (DNS rebinding)
 * cannot reach them.
 *
 * A host entry is `host` (any port) or `host:port`, with IPv6 addresses in brackets
 * (`[::1]:8000`); `*` allows every host.
 *
 * @example
 * ```ts
 * const guard = hostGuard(defaultAllowedHosts("127.0.0.1", ["https://svc.example"]));
 * guard(new Request("http://localhost:8000/api/mcp")); // passes
 * guard(new Request("http://attacker.example:8000/api/mcp")); // throws 403 host_not_allowed
 * ```
 */
import { SvcError } from "../errors.ts";

/** The loopback names, allowed on any port by default. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

const WILDCARD_BINDS = new Set(["0.0.0.0", "::", "[::]", ""]);

/**
 * Keeps loopback requests away from a proxy: with `HTTP_PROXY` set for the machine's outbound
 * traffic, `fetch` would send the relayer's calls to its sidecar (and a command's to a local
 * relayer) to the proxy, which cannot reach them. Adds the loopback names to `NO_PROXY`, which
 * `fetch` reads at its first request: an entry point calls this before any.
 */
export function bypassProxyForLoopback(): void {
  Deno.env.set("NO_PROXY", noProxy(Deno.env.get("NO_PROXY") || Deno.env.get("no_proxy")));
}

/** `given` (a `NO_PROXY` list) with the loopback names and `urls`' hosts added. */
export function noProxy(given: string | undefined, urls: string[] = []): string {
  const hosts = urls.map((url) => new URL(url).hostname.replace(/^\[|\]$/g, ""));
  return [given, "localhost", "127.0.0.0/8", "::1", ...hosts].filter(Boolean).join(",");
}

/** `host[:port]` parsed and normalised as a URL would (lower case, IPv6 in brackets). */
function parseHost(value: string): { hostname: string; port: string } | undefined {
  if (value.length > 300 || /[\s/\\@?#]/.test(value) || !URL.canParse(`http://${value}`)) {
    return undefined;
  }
  const url = new URL(`http://${value}`);
  return { hostname: url.hostname, port: url.port };
}

/** True for `*` or a `host[:port]` entry of an allowed-hosts list. */
export function isHostEntry(value: string): boolean {
  return value === "*" || (value !== "" && parseHost(value) !== undefined);
}

/** An IP address or name as it appears in a URL's host (IPv6 in brackets). */
function urlHostname(hostname: string): string {
  return hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
}

/**
 * The hosts allowed by default: the loopback names, the hosts of the relayer's public URLs, and
 * the address it binds to, or `machineNames` (the machine's own addresses and host name) when it
 * binds to every address (`0.0.0.0`, `::`); all on any port but for public URLs with an explicit
 * port.
 */
export function defaultAllowedHosts(
  bindHost: string,
  publicUrls: readonly string[],
  machineNames: readonly string[] = [],
): string[] {
  const hosts = new Set(LOOPBACK_HOSTS);
  for (const url of publicUrls) hosts.add(new URL(url).host);
  const names = WILDCARD_BINDS.has(bindHost) ? machineNames : [bindHost];
  for (const name of names) {
    const parsed = parseHost(urlHostname(name));
    if (parsed) hosts.add(urlHostname(parsed.hostname));
  }
  return [...hosts];
}

/**
 * The address a server is bound to, as its `addr` names it: `0.0.0.0:8000`, `[::]:8000` or
 * `127.0.0.1:8000`. A log names this rather than a URL to reach it, which may be another address
 * (`127.0.0.1` for a server bound to every address).
 */
export function boundAddress(hostname: string, port: number): string {
  return `${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}`;
}

/**
 * The origins of a relayer listening on `hostname:port`: its listening origin; when it listens on
 * loopback or on every address, the loopback names with its port; and when it listens on every
 * address, each of `machineNames` (the machine's own addresses and host name) with its port.
 */
export function listeningOrigins(
  hostname: string,
  port: number,
  machineNames: readonly string[] = [],
): string[] {
  const wildcard = WILDCARD_BINDS.has(hostname);
  const loopback = wildcard || hostname === "localhost" ||
    /^127\./.test(hostname) || hostname === "::1" || hostname === "[::1]";
  const names = loopback ? [...LOOPBACK_HOSTS] : [];
  if (wildcard) names.push(...machineNames.map(urlHostname));
  else names.push(urlHostname(hostname));
  const origins = names.filter((name) => URL.canParse(`http://${name}:${port}`))
    .map((name) => new URL(`http://${name}:${port}`).origin);
  return [...new Set(origins)];
}

/**
 * A check that refuses a request whose `Host` (else its URL's host) is not in `allowed`:
 * it throws 403 `forbidden` with `reason: "host_not_allowed"`.
 */
export function hostGuard(allowed: readonly string[]): (request: Request) => void {
  if (allowed.includes("*")) return () => {};
  const entries = allowed.map(parseHost).filter((entry) => entry !== undefined);
  return (request) => {
    const host = request.headers.get("host") ?? new URL(request.url).host;
    const seen = parseHost(host);
    const ok = seen !== undefined &&
      entries.some((entry) =>
        entry.hostname === seen.hostname && (entry.port === "" || entry.port === seen.port)
      );
    if (!ok) {
      throw new SvcError(
        "forbidden",
        `Cannot serve this request: the Host ${JSON.stringify(host.slice(0, 300))} is not a ` +
          "name of this relayer (set SVC_ALLOWED_HOSTS)",
        { details: { reason: "host_not_allowed" } },
      );
    }
  };
}

/** Whether a client address is this machine's (127.0.0.0/8, ::1, or IPv4-mapped 127.x). */
export function isLoopbackAddress(address: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(address) || address === "::1" ||
    /^::ffff:127\.\d+\.\d+\.\d+$/i.test(address);
}
