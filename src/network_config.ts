/**
 * The settings of network mode (`SVC_CHAIN=sui`, `SVC_CIPHER=seal`, `SVC_BLOB_STORE=walrus`),
 * read and checked with the rest of the configuration: every missing or malformed setting of
 * the selected plugins is named at once.
 */

/** One Seal key server: its on-chain `KeyServer` object and its weight. */
export interface SealKeyServerConfig {
  objectId: string;
  weight: number;
}

export interface NetworkConfig {
  /** Sui full node JSON-RPC (`SVC_SUI_RPC_URL`). */
  suiRpcUrl?: string;
  /** The published `svc_account` package (`SVC_PACKAGE_ID`). */
  packageId?: string;
  /** The shared `AccountRegistry` object (`SVC_REGISTRY_ID`). */
  registryId?: string;
  /** Pays the gas of sponsored transactions (`SVC_SPONSOR_PRIVATE_KEY`); never logged. */
  sponsorPrivateKey?: string;
  /** `SVC_SEAL_KEY_SERVERS`: `0x<object id>:<weight>` entries, comma-separated. */
  sealKeyServers: SealKeyServerConfig[];
  /** `SVC_SEAL_THRESHOLD`: key servers needed to decrypt. */
  sealThreshold: number;
  /** `SVC_SEAL_SERVER_KEY`: a delegate key the relayer decrypts with when a caller sends none. */
  sealServerKey?: string;
  /** `SVC_WALRUS_PUBLISHER_URL`. */
  walrusPublisherUrl?: string;
  /** `SVC_WALRUS_AGGREGATOR_URLS`, tried in order. */
  walrusAggregatorUrls: string[];
  /** `SVC_WALRUS_EPOCHS`: how long Walrus keeps each blob. */
  walrusEpochs: number;
  /** `SVC_WALRUS_SYSTEM_OBJECT_ID`: Walrus's `System` object, which names its current package. */
  walrusSystemObjectId?: string;
  /** `SVC_WALRUS_PACKAGE_ID`: the Walrus package, when no system object is given. */
  walrusPackageId?: string;
  /**
   * `SVC_WALRUS_OWNER_KEY`: owns the blob objects and pays for their metadata; not the sponsor's
   * key, so the two never spend the same coins. Never logged.
   */
  walrusOwnerKey?: string;
  /** `SVC_WALRUS_PUBLISHER_TOKEN`: bearer of an authenticated publisher; never logged. */
  walrusPublisherToken?: string;
}

/** The plugins selected, as far as the network settings care. */
export interface NetworkSelection {
  chain: string;
  cipher: string;
  blobStore: string;
}

const OBJECT_ID = /^0x[0-9a-fA-F]{1,64}$/;
const KEY_HEX = /^[0-9a-f]{64}$/;
const SUI_PRIVATE_KEY = /^suiprivkey1[02-9ac-hj-np-z]{50,}$/;

/** Pads a Sui object id or address to its 64-hex form, lowercase. */
function normalizeObjectId(id: string): string {
  return "0x" + id.slice(2).toLowerCase().padStart(64, "0");
}

function httpUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

/** Reads an integer setting within bounds, reporting a problem and using `fallback` otherwise. */
export type IntegerSetting = (name: string, fallback: number, min: number, max: number) => number;

/** Reads the network settings; appends a message per problem to `problems`. */
export function readNetworkConfig(
  env: Record<string, string | undefined>,
  selected: NetworkSelection,
  problems: string[],
  integer: IntegerSetting,
): NetworkConfig {
  const sui = selected.chain === "sui";
  const seal = selected.cipher === "seal";
  const walrus = selected.blobStore === "walrus";
  const needs = (name: string, why: string) => problems.push(`${name} is required ${why}`);

  const suiRpcUrl = env.SVC_SUI_RPC_URL || undefined;
  if (suiRpcUrl === undefined) {
    if (sui || seal || walrus) {
      needs("SVC_SUI_RPC_URL", "by SVC_CHAIN=sui, SVC_CIPHER=seal and SVC_BLOB_STORE=walrus");
    }
  } else if (!httpUrl(suiRpcUrl)) {
    problems.push(`SVC_SUI_RPC_URL must be an http(s) URL (got "${suiRpcUrl}")`);
  }

  const objectId = (name: string, required: string | undefined): string | undefined => {
    const value = env[name] || undefined;
    if (value === undefined) {
      if (required) needs(name, required);
      return undefined;
    }
    if (!OBJECT_ID.test(value)) {
      problems.push(`${name} must be a Sui object id such as 0x2a… (got "${value}")`);
      return undefined;
    }
    return normalizeObjectId(value);
  };
  const packageId = objectId(
    "SVC_PACKAGE_ID",
    sui || seal ? "by SVC_CHAIN=sui and SVC_CIPHER=seal" : undefined,
  );
  const registryId = objectId("SVC_REGISTRY_ID", seal ? "by SVC_CIPHER=seal" : undefined);
  const walrusSystemObjectId = objectId("SVC_WALRUS_SYSTEM_OBJECT_ID", undefined);
  const walrusPackageId = objectId("SVC_WALRUS_PACKAGE_ID", undefined);
  if (walrus && !env.SVC_WALRUS_SYSTEM_OBJECT_ID && !env.SVC_WALRUS_PACKAGE_ID) {
    needs("SVC_WALRUS_SYSTEM_OBJECT_ID (or SVC_WALRUS_PACKAGE_ID)", "by SVC_BLOB_STORE=walrus");
  }
  if (seal && !sui) {
    problems.push("SVC_CIPHER=seal needs SVC_CHAIN=sui (its policy reads the account on Sui)");
  }

  const suiKey = (name: string): string | undefined => {
    const value = env[name] || undefined;
    if (value !== undefined && !SUI_PRIVATE_KEY.test(value) && !KEY_HEX.test(value)) {
      problems.push(`${name} must be a suiprivkey1… string or 64 lowercase hex characters`);
    }
    return value;
  };
  const sponsorPrivateKey = suiKey("SVC_SPONSOR_PRIVATE_KEY");
  const walrusOwnerKey = suiKey("SVC_WALRUS_OWNER_KEY");
  if (walrus && walrusOwnerKey === undefined) {
    needs(
      "SVC_WALRUS_OWNER_KEY",
      "by SVC_BLOB_STORE=walrus: it owns the blobs and writes their metadata",
    );
  }
  if (walrusOwnerKey !== undefined && walrusOwnerKey === sponsorPrivateKey) {
    problems.push(
      "SVC_WALRUS_OWNER_KEY must differ from SVC_SPONSOR_PRIVATE_KEY: the sponsor and the blob " +
        "store run in two processes and would spend the same gas coins",
    );
  }

  const sealKeyServers: SealKeyServerConfig[] = [];
  const rawServers = env.SVC_SEAL_KEY_SERVERS ?? "";
  for (const entry of rawServers.split(",").map((e) => e.trim()).filter(Boolean)) {
    const [id, weight = "1", extra] = entry.split(":");
    if (extra !== undefined || !OBJECT_ID.test(id) || !/^[1-9][0-9]{0,2}$/.test(weight)) {
      problems.push(
        `SVC_SEAL_KEY_SERVERS entries are 0x<object id>:<weight 1-999> (got "${entry}")`,
      );
      continue;
    }
    const objectId = normalizeObjectId(id);
    if (sealKeyServers.some((server) => server.objectId === objectId)) {
      problems.push(`SVC_SEAL_KEY_SERVERS lists ${objectId} twice`);
      continue;
    }
    sealKeyServers.push({ objectId, weight: Number(weight) });
  }
  if (seal && rawServers.trim() === "") needs("SVC_SEAL_KEY_SERVERS", "by SVC_CIPHER=seal");
  const totalWeight = sealKeyServers.reduce((sum, s) => sum + s.weight, 0);
  const sealThreshold = integer("SVC_SEAL_THRESHOLD", Math.min(2, totalWeight || 1), 1, 999);
  if (seal && totalWeight > 0 && sealThreshold > totalWeight) {
    problems.push(
      `SVC_SEAL_THRESHOLD (${sealThreshold}) cannot exceed the key servers' total weight ${totalWeight}`,
    );
  }
  const sealServerKey = env.SVC_SEAL_SERVER_KEY || undefined;
  if (sealServerKey !== undefined && !KEY_HEX.test(sealServerKey)) {
    problems.push(
      "SVC_SEAL_SERVER_KEY must be a delegate private key: 64 lowercase hex characters",
    );
  }

  const walrusPublisherUrl = env.SVC_WALRUS_PUBLISHER_URL || undefined;
  if (walrusPublisherUrl === undefined) {
    if (walrus) needs("SVC_WALRUS_PUBLISHER_URL", "by SVC_BLOB_STORE=walrus");
  } else if (!httpUrl(walrusPublisherUrl)) {
    problems.push(`SVC_WALRUS_PUBLISHER_URL must be an http(s) URL (got "${walrusPublisherUrl}")`);
  }
  const walrusAggregatorUrls = (env.SVC_WALRUS_AGGREGATOR_URLS ?? "").split(",")
    .map((u) => u.trim()).filter(Boolean);
  for (const url of walrusAggregatorUrls) {
    if (!httpUrl(url)) {
      problems.push(`SVC_WALRUS_AGGREGATOR_URLS must list http(s) URLs (got "${url}")`);
    }
  }
  if (walrus && walrusAggregatorUrls.length === 0) {
    needs("SVC_WALRUS_AGGREGATOR_URLS", "by SVC_BLOB_STORE=walrus");
  }
  const walrusEpochs = integer("SVC_WALRUS_EPOCHS", 5, 1, 53);

  return {
    suiRpcUrl,
    packageId,
    registryId,
    sponsorPrivateKey,
    sealKeyServers,
    sealThreshold,
    sealServerKey,
    walrusPublisherUrl,
    walrusAggregatorUrls,
    walrusEpochs,
    walrusSystemObjectId,
    walrusPackageId,
    walrusOwnerKey,
    walrusPublisherToken: env.SVC_WALRUS_PUBLISHER_TOKEN || undefined,
  };
}
