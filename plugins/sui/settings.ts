/**
 * The Sui settings of network mode, read with the rest of the configuration. The Seal and
 * Walrus plugins read the shared ones (the full node, the package) through the same functions,
 * so a missing or malformed setting is reported once.
 */
import { decodeSuiPrivateKey } from "@mysten/sui/cryptography";
import { type SettingsReader, shown } from "@svc/relayer/kit";

import type { SuiAccountDirectoryOptions } from "./account_directory.ts";

export type { SettingsReader } from "@svc/relayer/kit";

/** What `SVC_CHAIN=sui` needs: the account directory's options, and the sponsor's key. */
export interface SuiSettings
  extends Pick<SuiAccountDirectoryOptions, "rpcUrl" | "packageId" | "registryId"> {
  /** Pays the gas of sponsored transactions (`SVC_SPONSOR_PRIVATE_KEY`); never logged. */
  sponsorPrivateKey?: string;
}

/** A Sui object id or address as configured: 0x and 1 to 64 hex digits. */
export const OBJECT_ID = /^0x[0-9a-fA-F]{1,64}$/;
const SUI_PRIVATE_KEY = /^(suiprivkey1[02-9ac-hj-np-z]{50,}|[0-9a-f]{64})$/;

/** Pads a Sui object id or address to its 64-hex form, lowercase. */
export function normalizeObjectId(id: string): string {
  return "0x" + id.slice(2).toLowerCase().padStart(64, "0");
}

/** `SVC_SUI_RPC_URL`, which every network plugin needs. */
export function readSuiRpcUrl(read: SettingsReader): string {
  return read.httpUrl("SVC_SUI_RPC_URL") ??
    read.missing(
      "SVC_SUI_RPC_URL",
      "by SVC_CHAIN=sui, SVC_CIPHER=seal and SVC_BLOB_STORE=walrus",
    );
}

/** A Sui object id, normalized; `undefined` when absent. */
export function readObjectId(read: SettingsReader, name: string): string | undefined {
  const value = read.matching(
    name,
    OBJECT_ID,
    `${name} must be a Sui object id such as 0x2a… (got ${shown(read.text(name) ?? "")})`,
  );
  return value && OBJECT_ID.test(value) ? normalizeObjectId(value) : value;
}

/** `SVC_PACKAGE_ID`: the `svc_account` package the directory and Seal's policy read. */
export function readPackageId(read: SettingsReader): string {
  return readObjectId(read, "SVC_PACKAGE_ID") ??
    read.missing("SVC_PACKAGE_ID", "by SVC_CHAIN=sui and SVC_CIPHER=seal");
}

/**
 * A Sui private key: a `suiprivkey1…` string of an Ed25519 key (its checksum checked) or 64
 * lowercase hex characters.
 */
export function readSuiPrivateKey(read: SettingsReader, name: string): string | undefined {
  const value = read.matching(
    name,
    SUI_PRIVATE_KEY,
    `${name} must be a suiprivkey1… string or 64 lowercase hex characters`,
  );
  // Its checksum only once its characters are right: one problem, said once.
  const problem = value?.startsWith("suiprivkey1") && SUI_PRIVATE_KEY.test(value)
    ? bech32KeyProblem(value)
    : undefined;
  if (problem) read.problem(`${name} ${problem}`);
  return value;
}

/**
 * Why a `suiprivkey1…` string (its characters already checked) is not an Ed25519 key as Sui
 * wallets export it (Bech32, BIP-173: a flag byte, then 32 bytes); `undefined` when it is one.
 */
function bech32KeyProblem(text: string): string | undefined {
  let decoded;
  try {
    decoded = decodeSuiPrivateKey(text);
  } catch (error) {
    // Bech32's own checks: the checksum, then its padding (a length no key has).
    return /^Invalid checksum/.test((error as Error).message)
      ? "is not a valid suiprivkey (its checksum does not match)"
      : "is not a valid suiprivkey (wrong length)";
  }
  if (decoded.secretKey.length !== 32) return "is not a valid suiprivkey (wrong length)";
  if (decoded.scheme !== "ED25519") {
    const named = decoded.scheme === "Secp256k1" || decoded.scheme === "Secp256r1";
    return `is a ${named ? decoded.scheme : "non-Ed25519"} key; only Ed25519 keys are supported`;
  }
  return undefined;
}

/** The settings of `SVC_CHAIN=sui`. */
export function readSuiSettings(read: SettingsReader): SuiSettings {
  return {
    rpcUrl: readSuiRpcUrl(read),
    packageId: readPackageId(read),
    registryId: readObjectId(read, "SVC_REGISTRY_ID"),
    sponsorPrivateKey: readSuiPrivateKey(read, "SVC_SPONSOR_PRIVATE_KEY"),
  };
}
