/**
 * Finds an owner's `SvcAccount` object through the shared `AccountRegistry`: its `accounts` field
 * is a `Table<address, ID>` (owner → account), whose entries are dynamic fields of the table.
 * An account id never changes, so found ids are cached for the life of the process.
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { SvcError } from "../../src/errors.ts";

const MAX_CACHED = 100_000;

export class AccountLookup {
  #client: SuiJsonRpcClient;
  #registryId: string;
  #tableId: Promise<string> | null = null;
  #accounts = new Map<string, string>();

  constructor(client: SuiJsonRpcClient, registryId: string) {
    this.#client = client;
    this.#registryId = registryId;
  }

  /** The owner's account id; `forbidden` when the owner has no account. */
  async accountOf(owner: string): Promise<string> {
    const cached = this.#accounts.get(owner);
    if (cached) return cached;
    const tableId = await this.#table();
    let field;
    try {
      field = await this.#client.getDynamicFieldObject({
        parentId: tableId,
        name: { type: "address", value: owner },
      });
    } catch (cause) {
      throw unavailable(cause);
    }
    const content = field.data?.content;
    const value = content?.dataType === "moveObject"
      ? (content.fields as Record<string, unknown>).value
      : undefined;
    if (typeof value !== "string") {
      throw new SvcError("forbidden", "Cannot decrypt: the owner has no svc account on chain");
    }
    const accountId = normalizeSuiAddress(value);
    if (this.#accounts.size >= MAX_CACHED) this.#accounts.clear();
    this.#accounts.set(owner, accountId);
    return accountId;
  }

  #table(): Promise<string> {
    this.#tableId ??= this.#loadTable().catch((error) => {
      this.#tableId = null;
      throw error;
    });
    return this.#tableId;
  }

  async #loadTable(): Promise<string> {
    let registry;
    try {
      registry = await this.#client.getObject({
        id: this.#registryId,
        options: { showContent: true },
      });
    } catch (cause) {
      throw unavailable(cause);
    }
    const content = registry.data?.content;
    const fields = content?.dataType === "moveObject"
      ? content.fields as Record<string, unknown>
      : undefined;
    const table = fields?.accounts;
    if (!isTable(table)) {
      throw new SvcError(
        "internal",
        "Cannot decrypt: SVC_REGISTRY_ID is not an account registry with an owner table",
      );
    }
    return normalizeSuiAddress(table.fields.id.id);
  }
}

function isTable(value: unknown): value is { fields: { id: { id: string } } } {
  const v = value as { type?: unknown; fields?: { id?: { id?: unknown } } } | null;
  return typeof v?.type === "string" && /::table::Table</.test(v.type) &&
    typeof v.fields?.id?.id === "string";
}

function unavailable(cause: unknown): SvcError {
  return new SvcError(
    "backend_unavailable",
    "Cannot decrypt: Seal is unavailable (the Sui full node cannot be reached)",
    { cause },
  );
}
