/**
 * Erase receipts: what the relayer answers for an erased memory, signed with its own Ed25519
 * identity so the owner can show, later and to anyone, that the relayer erased it. The
 * identity is derived (HKDF) from the relayer's secret, so it is stable across restarts and
 * shared by relayers that share the secret; its public key is `/health`'s `receiptKey`.
 *
 * The signature is over the UTF-8 of
 * `svc-erase-receipt:v1\n<memory_id>\n<owner>\n<blob_id>\n<erased_at>`, as hex.
 *
 * @example
 * ```ts
 * const identity = await RelayerIdentity.fromSecret(secret);
 * const receipt = await identity.receipt({ memory_id, owner, blob_id, erased_at: new Date().toISOString() });
 * await verifyReceipt(receipt, identity.publicKey); // true (the SDK's, `src/client/receipt.ts`)
 * ```
 */
import { type KeyPair, keyPairFromSeed } from "@svc/util/keys";
import { deriveRawKey, hkdfMaster } from "@svc/util/sealing";

/** What an erase receipt states. */
export interface ReceiptFields {
  /** The erased memory's id. */
  memory_id: string;
  /** The owner's address. */
  owner: string;
  /** The blob that held the memory's ciphertext. */
  blob_id: string;
  /** When it was erased (ISO 8601). */
  erased_at: string;
}

/**
 * The relayer's signed statement that a memory was erased: its fields and the relayer's
 * signature over {@link receiptMessage} of them.
 */
export interface EraseReceipt extends ReceiptFields {
  /** Ed25519, by the relayer's receipt key (`/health`'s `receiptKey`): 128 hex characters. */
  signature: string;
}

/** The text a receipt's signature covers. */
export function receiptMessage(fields: ReceiptFields): string {
  const { memory_id, owner, blob_id, erased_at } = fields;
  return `svc-erase-receipt:v1\n${memory_id}\n${owner}\n${blob_id}\n${erased_at}`;
}

/** The relayer's signing identity. */
export class RelayerIdentity {
  /** The public key receipts verify under, 64 hex characters. */
  readonly publicKey: string;
  #key: KeyPair;

  private constructor(key: KeyPair) {
    this.publicKey = key.publicKey;
    this.#key = key;
  }

  /** The identity derived from the relayer's 32-byte secret. */
  static async fromSecret(secret: Uint8Array<ArrayBuffer>): Promise<RelayerIdentity> {
    const master = await hkdfMaster(secret);
    const seed = await deriveRawKey(master, "svc-relayer-identity-v1", "erase receipts");
    return new RelayerIdentity(await keyPairFromSeed(seed.toHex()));
  }

  /** `fields` signed. */
  receipt(fields: ReceiptFields): Promise<EraseReceipt> {
    const signature = this.#key.sign(new TextEncoder().encode(receiptMessage(fields)));
    return Promise.resolve({ ...fields, signature: signature.toHex() });
  }
}
