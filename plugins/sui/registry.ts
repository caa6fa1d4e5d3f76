/**
 * Lookups in the shared `AccountRegistry` (`contracts/svc_account/`): its `accounts` table
 * (owner address → account id) and its `delegates` table (delegate address → account id), both
 * `Table<address, ID>` whose entries are dynamic fields of the table. The table's id is read
 * once from the registry (and read again after a failure).
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { isValidSuiObjectId, normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import { type CallOptions, SvcError } from "@svc/relayer/kit";
import { registryType } from "./svc_account.ts";
import { withRpc } from "./rpc_client.ts";
import { abortable } from "./abortable.ts";

/** What a {@link RegistryTable} reads and how its failures are named. */
export interface RegistryTableOptions {
  /** The published `svc_account` package; the registry must be its `AccountRegistry`. */
  packageId: string;
  /** The shared `AccountRegistry` object. */
  registryId: string;
  /** Which of the registry's tables. */
  table: "accounts" | "delegates";
  /** Names the plugin in `backend_unavailable` messages ("Cannot <action>: <plugin> is …"). */
  plugin: string;
  /** What the caller was doing, for messages: "resolve a delegate key", "decrypt". */
  action: string;
  /** Deadline of each call, ms (the client's transport has its own as well). */
  timeoutMs?: number;
}

/** One table of the registry: address → account id. */
export class RegistryTable {
  #client: SuiJsonRpcClient;
  #options: RegistryTableOptions;
  #tableId: Promise<string> | null = null;

  /** A lookup through `client`; the table's id is read at the first `find`. */
  constructor(client: SuiJsonRpcClient, options: RegistryTableOptions) {
    this.#client = client;
    this.#options = options;
  }

  /**
   * The account id filed under `address`, or `null`; `options.action` names what the caller was
   * doing in failures, instead of the table's `action`.
   */
  async find(
    address: string,
    options: CallOptions & { action?: string } = {},
  ): Promise<string | null> {
    const tableId = await abortable(this.#table(), options.signal);
    const { plugin, timeoutMs } = this.#options;
    const action = options.action ?? this.#options.action;
    const field = await withRpc(
      plugin,
      action,
      { signal: options.signal, timeoutMs },
      (signal) =>
        this.#client.getDynamicFieldObject({
          parentId: tableId,
          name: { type: "address", value: normalizeSuiAddress(address) },
          signal,
        }),
    );
    if (!field.data || field.data.content?.dataType !== "moveObject") return null;
    const value = (field.data.content.fields as Record<string, unknown>).value;
    if (typeof value !== "string" || !isValidSuiObjectId(normalizeSuiAddress(value))) {
      throw this.#malformed("an entry's value is not an object id");
    }
    return normalizeSuiAddress(value);
  }

  /** The table's id, read once and shared; no caller's signal ends the shared read. */
  #table(): Promise<string> {
    this.#tableId ??= this.#readTable().catch((error) => {
      this.#tableId = null;
      throw error;
    });
    return this.#tableId;
  }

  async #readTable(): Promise<string> {
    const { plugin, action, timeoutMs, registryId, packageId, table } = this.#options;
    const response = await withRpc(
      plugin,
      action,
      { timeoutMs },
      (signal) =>
        this.#client.getObject({
          id: registryId,
          options: { showType: true, showContent: true },
          signal,
        }),
    );
    const { type, content } = response.data ?? {};
    if (!type) {
      throw this.#malformed(
        `no object has the id ${registryId} on this chain: check SVC_REGISTRY_ID`,
      );
    }
    if (normalizeStructTag(type) !== registryType(packageId)) {
      throw this.#malformed(
        `${registryId} is a ${type}, not the AccountRegistry of ${packageId}: check ` +
          "SVC_REGISTRY_ID and SVC_PACKAGE_ID",
      );
    }
    const fields = content?.dataType === "moveObject"
      ? content.fields as Record<string, unknown>
      : {};
    const id = (unwrap(fields[table]).id as { id?: unknown } | undefined)?.id;
    if (typeof id !== "string") throw this.#malformed(`it has no ${table} table`);
    return normalizeSuiAddress(id);
  }

  #malformed(state: string): SvcError {
    return new SvcError(
      "backend_unavailable",
      `Cannot ${this.#options.action}: the registry object is unusable (${state})`,
    );
  }
}

/** A struct field as JSON-RPC shows it: `{type, fields}` or the fields themselves. */
export function unwrap(value: unknown): Record<string, unknown> {
  if (value && typeof value === "object" && "fields" in value) {
    return (value as { fields: Record<string, unknown> }).fields;
  }
  return (value ?? {}) as Record<string, unknown>;
}
