/**
 * The one parser of Sui private keys the plugins take in their options: an Ed25519 key as
 * `suiprivkey1…` (Bech32, as Sui wallets export it) or as 64 lowercase hex characters of the
 * seed. Errors never repeat the key.
 */
import { decodeSuiPrivateKey } from "@mysten/sui/cryptography";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { SvcError } from "@svc/relayer/kit";
import { isKeyHex } from "@svc/util/keys";

const BECH32 = /^suiprivkey1[02-9ac-hj-np-z]{50,}$/;

/** An Ed25519 keypair of `@mysten/sui` (its `Ed25519Keypair`), as `suiKeypair` makes it. */
export type SuiKeypair = Ed25519Keypair;

/** The Ed25519 keypair of `suiprivkey1…` or a 64-hex seed; `bad_request` for anything else. */
export function suiKeypair(text: string): SuiKeypair {
  return Ed25519Keypair.fromSecretKey(Uint8Array.fromHex(suiSeed(text)));
}

/** The 64-hex seed of an Ed25519 key given as `suiprivkey1…` or as its seed. */
export function suiSeed(text: string): string {
  if (isKeyHex(text)) return text;
  if (typeof text !== "string" || !BECH32.test(text)) {
    throw cannotLoad("it must be suiprivkey1… or 64 lowercase hex characters of an Ed25519 seed");
  }
  let decoded;
  try {
    decoded = decodeSuiPrivateKey(text);
  } catch {
    throw cannotLoad("it is not a valid suiprivkey (bad checksum or length)");
  }
  if (decoded.scheme !== "ED25519") {
    throw cannotLoad(`it is a ${decoded.scheme} key; only Ed25519 keys are supported`);
  }
  return decoded.secretKey.toHex();
}

function cannotLoad(state: string): SvcError {
  return new SvcError("bad_request", `Cannot load the Sui key: ${state}`);
}
