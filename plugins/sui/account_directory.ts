/**
 * `AccountDirectory` over Sui: a delegate key resolves to the shared `SvcAccount` object whose
 * `delegate_keys` hold it (`contracts/svc_account/`).
 *
 * With an account id hint, the account object is read directly. Without one, the key's Sui
 * address (blake2b256(0x00 ‖ key)) is looked up in the registry's `delegates` table
 * (delegate address → account id), which needs `registryId`; without a registry, hint-less
 * lookups resolve to `null`. The relayer caches results (`src/auth/account_cache.ts`), so this
 * plugin does not.
 *
 * A key's label, scope (namespaces, operations) and expiry come from its `DelegateKey`; keys of
 * a package published before scopes existed have none of those fields and read as full access
 * without expiry.
 *
 * @example
 * ```ts
 * const directory = SuiAccountDirectory.open({ rpcUrl, packageId, registryId });
 * const account = await directory.resolve(publicKeyHex); // {accountId, owner, active, …} | null
 * ```
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { Ed25519PublicKey } from "@mysten/sui/keypairs/ed25519";
import { fromBase64, normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import {
  type AccountDirectory,
  type CallOptions,
  type KeyScope,
  type ResolvedAccount,
  SvcError,
} from "@svc/relayer/kit";
import { isKeyHex } from "@svc/util/keys";
import { accountType, isObjectId, operationsOfMask, registryType } from "./svc_account.ts";
import { RegistryTable, unwrap } from "./registry.ts";
import { suiClient, type SuiRpcOptions, withRpc } from "./rpc_client.ts";

const PLUGIN = "sui";

/** Options of {@link SuiAccountDirectory}. */
export interface SuiAccountDirectoryOptions extends SuiRpcOptions {
  /** The published `svc_account` package (env SVC_PACKAGE_ID). */
  packageId: string;
  /** The shared `AccountRegistry`, for lookups without an account id (env SVC_REGISTRY_ID). */
  registryId?: string;
}

const MAX_DATE_MS = 8_640_000_000_000_000n;

/** The `AccountDirectory` over `SvcAccount` objects on Sui; see the module documentation. */
export class SuiAccountDirectory implements AccountDirectory {
  readonly name = "sui";
  #client: SuiJsonRpcClient;
  #options: SuiAccountDirectoryOptions;
  #accountType: string;
  #delegates: RegistryTable | null;
  #owners: RegistryTable | null;

  private constructor(options: SuiAccountDirectoryOptions) {
    this.#options = options;
    this.#client = suiClient(PLUGIN, options);
    this.#accountType = accountType(options.packageId);
    const { packageId, registryId, timeoutMs } = options;
    const table = (name: "accounts" | "delegates", action: string) =>
      registryId
        ? new RegistryTable(this.#client, {
          packageId,
          registryId,
          table: name,
          plugin: PLUGIN,
          action,
          timeoutMs,
        })
        : null;
    this.#delegates = table("delegates", "resolve a delegate key");
    this.#owners = table("accounts", "resolve an owner key");
  }

  /** Checks the options; talks to the network only when resolving. */
  static open(options: SuiAccountDirectoryOptions): Promise<SuiAccountDirectory> {
    return Promise.try(() => {
      const { packageId, registryId } = options;
      for (const [name, value] of Object.entries({ packageId, registryId })) {
        if (value !== undefined && !isObjectId(value)) {
          throw new SvcError(
            "bad_request",
            `Cannot open the Sui account directory: ${name} must be 0x and hex`,
          );
        }
      }
      return new SuiAccountDirectory(options);
    });
  }

  /**
   * Reads the package and the registry, so that a relayer does not start with ids that name
   * neither (it would refuse every key): `bad_request` naming the setting; a node it cannot
   * reach is `backend_unavailable`.
   */
  async checkIds(): Promise<void> {
    const { packageId, registryId } = this.#options;
    // (One id for both, as a mistake may give, is asked once: a node refuses duplicates.)
    const ids = registryId && registryId !== packageId ? [packageId, registryId] : [packageId];
    const [pkg, registry = pkg] = await withRpc(
      PLUGIN,
      "read SVC_PACKAGE_ID and SVC_REGISTRY_ID",
      this.#call({}),
      () => this.#client.multiGetObjects({ ids, options: { showType: true } }),
    );
    const named = (name: string, id: string, type: string | null | undefined) =>
      type ? `${name} ${id} is a ${type}` : `${name} ${id} names no object on this chain`;
    const registryTag = registry?.data?.type;
    const problem = pkg?.data?.type !== "package"
      ? `${named("SVC_PACKAGE_ID", packageId, pkg?.data?.type)}, not a package`
      : registryId &&
          !(registryTag?.includes("::") &&
            normalizeStructTag(registryTag) === registryType(packageId))
      ? `${named("SVC_REGISTRY_ID", registryId, registryTag)}, not the AccountRegistry of ` +
        "SVC_PACKAGE_ID"
      : undefined;
    if (problem) {
      throw new SvcError("bad_request", `Cannot use the Sui account settings: ${problem}`);
    }
  }

  async resolve(
    publicKey: string,
    accountIdHint?: string,
    options: CallOptions = {},
  ): Promise<ResolvedAccount | null> {
    options.signal?.throwIfAborted();
    if (!isKeyHex(publicKey)) return null;
    let accountId: string;
    if (accountIdHint !== undefined) {
      if (!isObjectId(accountIdHint)) return null;
      accountId = normalizeSuiAddress(accountIdHint);
    } else {
      const found = await this.#accountOfKey(publicKey, options);
      if (!found) return null;
      accountId = found;
    }
    const account = await this.#account(accountId, "resolve a delegate key", options);
    const key = account?.keys.find((k) => k.publicKey === publicKey);
    if (!account || !key) return null;
    return {
      accountId,
      owner: account.owner,
      active: account.active,
      label: key.label,
      scope: key.scope,
      ...(key.expiresAt === undefined ? {} : { expiresAt: key.expiresAt }),
    };
  }

  /** The account the registry files under `owner`, or `null` (needs `registryId`). */
  async resolveOwner(owner: string, options: CallOptions = {}): Promise<ResolvedAccount | null> {
    options.signal?.throwIfAborted();
    const accountId = await this.#owners?.find(owner, options);
    if (!accountId) return null;
    const account = await this.#account(accountId, "resolve an owner key", options);
    if (account?.owner !== normalizeSuiAddress(owner)) return null;
    return { accountId, owner: account.owner, active: account.active };
  }

  /** The `SvcAccount` object `accountId`, or `null` when it is none. */
  async #account(accountId: string, action: string, options: CallOptions) {
    const response = await withRpc(
      PLUGIN,
      action,
      this.#call(options),
      (signal) =>
        this.#client.getObject({
          id: accountId,
          options: { showType: true, showContent: true },
          signal,
        }),
    );
    if (!response.data) return null; // notExists, deleted
    const { type, content } = response.data;
    if (!type || normalizeStructTag(type) !== this.#accountType) return null;
    if (content?.dataType !== "moveObject") return null;
    return parseAccount(content.fields);
  }

  #call(options: CallOptions) {
    return { signal: options.signal, timeoutMs: this.#options.timeoutMs };
  }

  /** Registry lookup: delegate address → account id, or `null`. */
  async #accountOfKey(publicKey: string, options: CallOptions): Promise<string | null> {
    if (!this.#delegates) {
      throw new SvcError(
        "unauthorized",
        "This relayer finds a key's account only from x-account-id (it has no " +
          "SVC_REGISTRY_ID): send it (SVC_ACCOUNT_ID for svc)",
        { details: { reason: "unknown_key" } },
      );
    }
    const address = new Ed25519PublicKey(Uint8Array.fromHex(publicKey)).toSuiAddress();
    return await this.#delegates.find(address, options);
  }
}

function malformedAccount(detail: string): SvcError {
  return new SvcError(
    "backend_unavailable",
    `Cannot resolve a delegate key: the account is malformed (${detail})`,
  );
}

/** `vector<u8>` as JSON-RPC may show it: a number array, or a base64 or hex string. */
function bytesOf(value: unknown): Uint8Array | null {
  if (Array.isArray(value)) {
    return value.every((b) => Number.isInteger(b) && b >= 0 && b < 256)
      ? Uint8Array.from(value)
      : null;
  }
  if (typeof value !== "string") return null;
  const hex = value.startsWith("0x") ? value.slice(2) : value;
  if (/^([0-9a-fA-F]{2})*$/.test(hex) && (value.startsWith("0x") || hex.length === 64)) {
    return Uint8Array.fromHex(hex);
  }
  try {
    return fromBase64(value);
  } catch {
    return null;
  }
}

/** A delegate key as an account object holds it. */
export interface AccountKey {
  /** Lowercase hex. */
  publicKey: string;
  /** The name the owner gave the key ("" when it has none). */
  label: string;
  /** `{}` for a key without limits, and for keys of the layout before scopes. */
  scope: KeyScope;
  /** Unix milliseconds; absent: never. */
  expiresAt?: number;
}

/** A `u64` or `u8` as JSON-RPC shows it (a number or a decimal string); `null` if it is neither. */
function integerOf(value: unknown): bigint | null {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  return typeof value === "string" && /^[0-9]{1,20}$/.test(value) ? BigInt(value) : null;
}

/**
 * A `DelegateKey`'s fields. Its scope fields are optional: a key of the layout before scopes
 * has none and reads as full access without expiry.
 */
function parseKey(entry: unknown): AccountKey {
  const k = unwrap(entry);
  const bytes = bytesOf(k.public_key);
  if (!bytes) throw malformedAccount("a public_key is not bytes");
  const key: AccountKey = {
    publicKey: bytes.toHex(),
    label: typeof k.label === "string" ? k.label : "",
    scope: {},
  };
  if (k.namespaces !== undefined) {
    const namespaces = k.namespaces;
    if (!Array.isArray(namespaces) || !namespaces.every((n) => typeof n === "string")) {
      throw malformedAccount("a key's namespaces are not strings");
    }
    if (namespaces.length > 0) key.scope.namespaces = [...new Set(namespaces)].sort();
  }
  if (k.operations !== undefined) {
    const mask = integerOf(k.operations);
    if (mask === null || mask > 255n) throw malformedAccount("a key's operations is no u8");
    const operations = operationsOfMask(Number(mask));
    // A mask of bits that are no operation (never written by the module) allows nothing.
    if (operations) key.scope.operations = operations;
    else if (mask !== 0n) key.scope.operations = [];
  }
  if (k.expires_at !== undefined) {
    const at = integerOf(k.expires_at);
    if (at === null) throw malformedAccount("a key's expires_at is no u64");
    // 0 is never; so is a time past what a Date holds (the year 275760).
    if (at !== 0n && at <= MAX_DATE_MS) key.expiresAt = Number(at);
  }
  return key;
}

/** Reads `SvcAccount` content fields: owner, active and the delegate keys. */
export function parseAccount(
  fields: unknown,
): { owner: string; active: boolean; keys: AccountKey[] } {
  const f = unwrap(fields);
  if (!isObjectId(f.owner)) throw malformedAccount("owner is not an address");
  const active = f.active === true || f.active === "true";
  if (!active && f.active !== false && f.active !== "false") {
    throw malformedAccount("active is not a boolean");
  }
  if (!Array.isArray(f.delegate_keys)) throw malformedAccount("delegate_keys is not a vector");
  return { owner: normalizeSuiAddress(f.owner), active, keys: f.delegate_keys.map(parseKey) };
}
