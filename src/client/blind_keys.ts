/**
 * The keys of an operator-blind namespace, all on the client. A content key of 32 random bytes
 * opens the namespace; it is wrapped for each delegate key let in: X25519 between a fresh
 * ephemeral key and the delegate key's Ed25519 key in Montgomery form, HKDF-SHA-256, then
 * ChaCha20-Poly1305 bound to the namespace. From the content key HKDF derives the key entries are
 * sealed under, the term-hashing secret and the attribute seal's secret.
 */
import { ed25519, x25519 } from "@noble/curves/ed25519.js";
import { chachaOpen, chachaSeal, concatBytes, deriveRawKey, hkdfMaster } from "@svc/util/sealing";
import { WRAPPED_KEY_BYTES } from "../services/blind_log.ts";

const encoder = new TextEncoder();
const SALT = "svc-blind-v1";
const POINT_BYTES = 32;

/** What a content key opens, each derived from it. */
export interface BlindKeys {
  /** Seals and opens the log's entries. */
  entries: Uint8Array<ArrayBuffer>;
  /** The term hasher's secret. */
  terms: Uint8Array<ArrayBuffer>;
  /** The attribute seal's secret. */
  attributes: Uint8Array<ArrayBuffer>;
}

/** The keys a content key derives. */
export async function blindKeys(contentKey: Uint8Array<ArrayBuffer>): Promise<BlindKeys> {
  const master = await hkdfMaster(contentKey);
  const [entries, terms, attributes] = await Promise.all(
    ["entries", "terms", "attributes"].map((info) => deriveRawKey(master, SALT, info)),
  );
  return { entries, terms, attributes };
}

/** The key that wraps for the X25519 secret `shared` between `ephemeral` and `recipient`. */
async function wrapKey(shared: Uint8Array, ephemeral: Uint8Array, recipient: Uint8Array) {
  const master = await hkdfMaster(new Uint8Array(shared));
  return await deriveRawKey(master, "svc-blind-wrap-v1", concatBytes(ephemeral, recipient));
}

/** `contentKey` wrapped for the Ed25519 public key `publicKey` (hex), bound to `namespace`. */
export async function wrapFor(
  contentKey: Uint8Array,
  publicKey: string,
  namespace: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const recipient = ed25519.utils.toMontgomery(Uint8Array.fromHex(publicKey));
  const { secretKey, publicKey: ephemeral } = x25519.keygen();
  const key = await wrapKey(x25519.getSharedSecret(secretKey, recipient), ephemeral, recipient);
  return concatBytes(ephemeral, chachaSeal(key, contentKey, encoder.encode(namespace)));
}

/**
 * What {@link wrapFor} wrapped for the key whose seed is `privateKey` (hex); throws when it was
 * wrapped for another key or namespace, or altered.
 */
export async function unwrapWith(
  wrapped: Uint8Array,
  privateKey: string,
  namespace: string,
): Promise<Uint8Array<ArrayBuffer>> {
  if (wrapped.byteLength !== WRAPPED_KEY_BYTES) {
    throw new Error(`a wrapped key is ${WRAPPED_KEY_BYTES} bytes`);
  }
  const secret = ed25519.utils.toMontgomerySecret(Uint8Array.fromHex(privateKey));
  const recipient = x25519.getPublicKey(secret);
  const ephemeral = wrapped.subarray(0, POINT_BYTES);
  const key = await wrapKey(x25519.getSharedSecret(secret, ephemeral), ephemeral, recipient);
  return chachaOpen(key, wrapped.subarray(POINT_BYTES), encoder.encode(namespace));
}
