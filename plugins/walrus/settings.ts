/** The settings of `SVC_BLOB_STORE=walrus`, read with the rest of the configuration. */
import type { SettingsReader } from "@svc/relayer/kit";
import { readObjectId, readSuiPrivateKey, readSuiRpcUrl } from "@svc/sui/settings";
import type { WalrusBlobStoreOptions } from "./mod.ts";

export type { SettingsReader } from "@svc/relayer/kit";

/** What `SVC_BLOB_STORE=walrus` needs: the store's options its settings name, and these. */
export interface WalrusSettings extends
  Pick<
    WalrusBlobStoreOptions,
    "rpcUrl" | "publisherUrl" | "aggregatorUrls" | "systemObjectId"
  > {
  /** `SVC_WALRUS_EPOCHS`: how long Walrus keeps each blob. */
  epochs: number;
  /** `SVC_WALRUS_PACKAGE_ID`: the Walrus package, when no system object is given. */
  packageId?: string;
  /**
   * `SVC_WALRUS_OWNER_KEY`: owns the blob objects and pays for their metadata; not the sponsor's
   * key, so the two never spend the same coins. Never logged.
   */
  ownerKey: string;
  /** `SVC_WALRUS_PUBLISHER_TOKEN`: bearer of an authenticated publisher; never logged. */
  publisherToken?: string;
}

/** The settings of `SVC_BLOB_STORE=walrus`. */
export function readWalrusSettings(read: SettingsReader): WalrusSettings {
  const why = "by SVC_BLOB_STORE=walrus";
  const systemObjectId = readObjectId(read, "SVC_WALRUS_SYSTEM_OBJECT_ID");
  const packageId = readObjectId(read, "SVC_WALRUS_PACKAGE_ID");
  if (!systemObjectId && !packageId) {
    read.missing("SVC_WALRUS_SYSTEM_OBJECT_ID (or SVC_WALRUS_PACKAGE_ID)", why);
  }
  const aggregatorUrls = read.httpUrls("SVC_WALRUS_AGGREGATOR_URLS");
  if (aggregatorUrls.length === 0) read.missing("SVC_WALRUS_AGGREGATOR_URLS", why);
  return {
    rpcUrl: readSuiRpcUrl(read),
    publisherUrl: read.httpUrl("SVC_WALRUS_PUBLISHER_URL") ??
      read.missing("SVC_WALRUS_PUBLISHER_URL", why),
    aggregatorUrls,
    epochs: read.integer("SVC_WALRUS_EPOCHS", 5, 1, 53),
    systemObjectId,
    packageId,
    ownerKey: readSuiPrivateKey(read, "SVC_WALRUS_OWNER_KEY") ??
      read.missing("SVC_WALRUS_OWNER_KEY", `${why}: it owns the blobs and writes their metadata`),
    // Sent in a header: anything else would fail every upload, and be quoted in its error.
    publisherToken: read.matching(
      "SVC_WALRUS_PUBLISHER_TOKEN",
      /^[\x21-\x7e]+$/,
      "SVC_WALRUS_PUBLISHER_TOKEN must be the token as issued: visible ASCII characters, without " +
        "spaces",
    ),
  };
}
