/** The settings of `SVC_CIPHER=seal`, read with the rest of the configuration. */
import { type SettingsReader, shown } from "@svc/relayer/kit";
import {
  normalizeObjectId,
  OBJECT_ID,
  readObjectId,
  readPackageId,
  readSuiRpcUrl,
} from "@svc/sui/settings";

import type { SealCipherOptions } from "./mod.ts";

export type { SettingsReader } from "@svc/relayer/kit";

/** One Seal key server: its on-chain `KeyServer` object and its weight. */
export interface SealKeyServerConfig {
  /** The id of the server's `KeyServer` object. */
  objectId: string;
  /** How much the server counts toward the threshold: a positive integer. */
  weight: number;
}

/**
 * What `SVC_CIPHER=seal` needs: the cipher's options its settings name (`SVC_SEAL_KEY_SERVERS`
 * lists `0x<object id>:<weight>` entries, comma-separated).
 */
export type SealSettings = Pick<
  SealCipherOptions,
  "rpcUrl" | "packageId" | "registryId" | "keyServers" | "threshold" | "serverKey"
>;

const KEY_HEX = /^[0-9a-f]{64}$/;

function readKeyServers(read: SettingsReader): SealKeyServerConfig[] {
  const servers: SealKeyServerConfig[] = [];
  for (const [i, entry] of read.list("SVC_SEAL_KEY_SERVERS").entries()) {
    const [id, weight = "1", extra] = entry.split(":");
    if (extra !== undefined || !OBJECT_ID.test(id) || !/^[1-9][0-9]{0,2}$/.test(weight)) {
      read.problem(
        `SVC_SEAL_KEY_SERVERS entries are 0x<object id>:<weight 1-999> (entry ${i + 1} has ` +
          (OBJECT_ID.test(id) && extra === undefined
            ? `the weight ${shown(weight)})`
            : `${shown(entry)})`),
      );
      continue;
    }
    const objectId = normalizeObjectId(id);
    if (servers.some((server) => server.objectId === objectId)) {
      read.problem(`SVC_SEAL_KEY_SERVERS lists ${objectId} twice`);
      continue;
    }
    servers.push({ objectId, weight: Number(weight) });
  }
  if (read.list("SVC_SEAL_KEY_SERVERS").length === 0) {
    read.missing("SVC_SEAL_KEY_SERVERS", "by SVC_CIPHER=seal");
  }
  return servers;
}

/** The settings of `SVC_CIPHER=seal`. */
export function readSealSettings(read: SettingsReader): SealSettings {
  const keyServers = readKeyServers(read);
  const totalWeight = keyServers.reduce((sum, server) => sum + server.weight, 0);
  const threshold = read.integer("SVC_SEAL_THRESHOLD", Math.min(2, totalWeight || 1), 1, 999);
  if (totalWeight > 0 && threshold > totalWeight) {
    read.problem(
      `SVC_SEAL_THRESHOLD (${threshold}) cannot exceed the key servers' total weight ${totalWeight}`,
    );
  }
  return {
    rpcUrl: readSuiRpcUrl(read),
    packageId: readPackageId(read),
    registryId: readObjectId(read, "SVC_REGISTRY_ID") ??
      read.missing("SVC_REGISTRY_ID", "by SVC_CIPHER=seal"),
    keyServers,
    threshold,
    serverKey: read.matching(
      "SVC_SEAL_SERVER_KEY",
      KEY_HEX,
      "SVC_SEAL_SERVER_KEY must be a delegate private key: 64 lowercase hex characters",
    ),
  };
}
