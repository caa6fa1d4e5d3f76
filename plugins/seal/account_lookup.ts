/**
 * Finds an owner's `SvcAccount` object through the registry's `accounts` table (owner →
 * account). An account id never changes, so found ids are kept (up to a bound) for the life of
 * the process.
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { type CallOptions, SvcError } from "../../src/kit.ts";
import { RegistryTable } from "../sui/registry.ts";
import { PLUGIN } from "./errors.ts";

const MAX_CACHED = 100_000;

/** Owner address → `SvcAccount` id, read from the registry and kept. */
export class AccountLookup {
  #table: RegistryTable;
  #accounts = new Map<string, string>();

  constructor(
    client: SuiJsonRpcClient,
    options: { packageId: string; registryId: string; timeoutMs?: number },
  ) {
    this.#table = new RegistryTable(client, {
      ...options,
      table: "accounts",
      plugin: PLUGIN,
      action: "decrypt",
    });
  }

  /**
   * The owner's account id; `forbidden` when the owner has no account. `action` names what the
   * caller was doing in failures ("decrypt", "erase").
   */
  async accountOf(owner: string, action = "decrypt", options: CallOptions = {}): Promise<string> {
    const cached = this.#accounts.get(owner);
    if (cached) return cached;
    const accountId = await this.#table.find(owner, { ...options, action });
    if (!accountId) {
      throw new SvcError("forbidden", `Cannot ${action}: the owner has no svc account on chain`);
    }
    if (this.#accounts.size >= MAX_CACHED) {
      this.#accounts.delete(this.#accounts.keys().next().value!);
    }
    this.#accounts.set(owner, accountId);
    return accountId;
  }
}
