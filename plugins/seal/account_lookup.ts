/**
 * Finds an owner's `SvcAccount` object through the registry's `accounts` table (owner →
 * account), and which memories the account erased (its `erased` table). An account id, and the
 * id of its `erased` table, never change, so found ids are kept (up to a bound) for the life of
 * the process.
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { type CallOptions, SvcError } from "@svc/relayer/kit";
import { RegistryTable, unwrap } from "@svc/sui/registry";
import { withRpc } from "@svc/sui/rpc_client";
import { LruMap } from "@svc/util/lru_map";
import { PLUGIN } from "./errors.ts";

const MAX_CACHED = 100_000;

/** Owner address → `SvcAccount` id, read from the registry and kept. */
export class AccountLookup {
  #client: SuiJsonRpcClient;
  #timeoutMs?: number;
  #table: RegistryTable;
  #accounts = new LruMap<string, string>(MAX_CACHED);
  /** Account id → the id of its `erased` table. */
  #erasedTables = new LruMap<string, string>(MAX_CACHED);

  constructor(
    client: SuiJsonRpcClient,
    options: { packageId: string; registryId: string; timeoutMs?: number },
  ) {
    this.#client = client;
    this.#timeoutMs = options.timeoutMs;
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
    this.#accounts.set(owner, accountId);
    return accountId;
  }

  /** Whether the account erased each memory (named by its identity after the owner's address). */
  async erased(accountId: string, names: Uint8Array[]): Promise<boolean[]> {
    const parentId = await this.#erasedTable(accountId);
    return await Promise.all(names.map(async (name) => {
      const field = await this.#rpc(
        (signal) =>
          this.#client.getDynamicFieldObject({
            parentId,
            name: { type: "vector<u8>", value: Array.from(name) },
            signal,
          }),
      );
      return field.data !== undefined && field.data !== null;
    }));
  }

  async #erasedTable(accountId: string): Promise<string> {
    const cached = this.#erasedTables.get(accountId);
    if (cached) return cached;
    const { data } = await this.#rpc((signal) =>
      this.#client.getObject({ id: accountId, options: { showContent: true }, signal })
    );
    const fields = data?.content?.dataType === "moveObject" ? data.content.fields : {};
    const id = (unwrap(unwrap(fields).erased).id as { id?: unknown } | undefined)?.id;
    if (typeof id !== "string") {
      throw new SvcError(
        "backend_unavailable",
        `Cannot decrypt: the svc account ${accountId} is unusable (it has no erased table)`,
      );
    }
    this.#erasedTables.set(accountId, id);
    return id;
  }

  #rpc<T>(call: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withRpc(PLUGIN, "decrypt", { timeoutMs: this.#timeoutMs }, call);
  }
}
