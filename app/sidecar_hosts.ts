/**
 * The hosts the sidecar may reach besides the relayer: it runs with `--allow-net` limited to
 * them. Its sponsor is the local ledger, which on `SVC_STORE=postgres` lives in the database.
 * @module
 */
import type { Config } from "./config.ts";

/**
 * The `host[:port]` entries of a PostgreSQL URL's authority (several, comma-separated, when it
 * names a list of hosts); none for a URL without one (a Unix socket given as a parameter).
 */
export function databaseHosts(url: string): string[] {
  const authority = url.match(/^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i)?.[1] ?? "";
  const hosts = authority.slice(authority.lastIndexOf("@") + 1);
  return hosts.split(",").filter((host) => host !== "");
}

/**
 * What the sidecar's `--allow-net` names beside its own address and the relayer's: the Sui RPC
 * with a Sui chain, the database with a local ledger on PostgreSQL.
 */
export function sidecarNetHosts(config: Config): string[] {
  const hosts: string[] = [];
  if (config.chain.kind === "sui") hosts.push(new URL(config.chain.sui.rpcUrl).host);
  if (config.chain.kind === "local" && config.store.kind === "postgres") {
    hosts.push(...databaseHosts(config.store.url));
  }
  return hosts;
}
