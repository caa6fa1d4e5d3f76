/**
 * Ed25519 delegate and owner keys: a private key is the 32-byte seed as 64 lowercase hex
 * characters, a public key its 32 raw bytes in hex, an address `0x` + blake2b-256(0x00 ‖ pk)
 * as on Sui.
 */
import { Buffer } from "node:buffer";
import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import { blake2b } from "@noble/hashes/blake2";
import { LruMap } from "./lru_map.ts";

const HEX64 = /^[0-9a-f]{64}$/;
const PKCS8_ED25519_PREFIX = Uint8Array.fromHex("302e020100300506032b657004220420");

/** True for 64 lowercase hex characters (a seed or a public key). */
export function isKeyHex(value: unknown): value is string {
  return typeof value === "string" && HEX64.test(value);
}

/** An Ed25519 key pair, in hex, that signs. */
export interface KeyPair {
  /** The 32-byte seed, as 64 lowercase hex characters. */
  privateKey: string;
  /** The 32-byte public key, as 64 lowercase hex characters. */
  publicKey: string;
  /** The 64-byte Ed25519 signature of `data`. */
  sign(data: Uint8Array): Uint8Array<ArrayBuffer>;
}

/**
 * Rebuilds a key pair from its 32-byte seed (64 hex characters). It signs with `node:crypto`:
 * the same signatures as WebCrypto (Ed25519 is deterministic) for a quarter of its CPU time in
 * Deno, which a client signing every request feels.
 */
export function keyPairFromSeed(privateKey: string): Promise<KeyPair> {
  if (!isKeyHex(privateKey)) {
    return Promise.reject(
      new TypeError("Cannot load key: a private key is 64 lowercase hex characters"),
    );
  }
  const pkcs8 = new Uint8Array([...PKCS8_ED25519_PREFIX, ...Uint8Array.fromHex(privateKey)]);
  const key = createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" });
  const { x } = createPublicKey(key).export({ format: "jwk" });
  const publicKey = Uint8Array.fromBase64(x!, { alphabet: "base64url" }).toHex();
  return Promise.resolve({
    privateKey,
    publicKey,
    sign: (data) => new Uint8Array(sign(null, data, key)),
  });
}

/** A fresh random key pair. */
export function generateKeyPair(): Promise<KeyPair> {
  return keyPairFromSeed(crypto.getRandomValues(new Uint8Array(32)).toHex());
}

/** The addresses of the most recent public keys: a signed request asks for its signer's. */
const addresses = new LruMap<string, string>(1024);

/** The Sui-style address of an Ed25519 public key. */
export function addressOf(publicKey: string): string {
  return addresses.getOrSet(publicKey, () => {
    const bytes = new Uint8Array([0, ...Uint8Array.fromHex(publicKey)]);
    return "0x" + blake2b(bytes, { dkLen: 32 }).toHex();
  });
}

/** Up to this size a SHA-256 is computed at once, faster than a round trip to WebCrypto. */
const SMALL_HASH_BYTES = 1024;
const encoder = new TextEncoder();
/** The SHA-256 of no bytes: the body hash of every GET. */
const EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/**
 * SHA-256 of bytes (or of a text's UTF-8 bytes) as lowercase hex. Small inputs (a signed
 * request's body, mostly) are hashed at once; larger ones by WebCrypto, off the main thread.
 */
export async function sha256Hex(bytes: Uint8Array<ArrayBuffer> | string): Promise<string> {
  const data = typeof bytes === "string" ? encoder.encode(bytes) : bytes;
  if (data.byteLength === 0) return EMPTY_SHA256;
  if (data.byteLength <= SMALL_HASH_BYTES) return createHash("sha256").update(data).digest("hex");
  return new Uint8Array(await crypto.subtle.digest("SHA-256", data)).toHex();
}

/** An address: 0x and 64 lowercase hex characters. */
export const ADDRESS = /^0x[0-9a-f]{64}$/;

/** An account id as the relayer takes one: `0x` and 1 to 64 hex digits (a ledger's has 64). */
export const ACCOUNT_ID = /^0x[0-9a-fA-F]{1,64}$/;

/** Whether `value` is an address: 0x and 64 lowercase hex characters. */
export function isAddress(value: unknown): value is string {
  return typeof value === "string" && ADDRESS.test(value);
}

/** Whether `a` equals `b`, in time that does not depend on where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a), y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
