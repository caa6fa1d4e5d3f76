/**
 * Erase receipts: the text their signature covers, and how to check one against the relayer's
 * receipt key (`/health`'s `receiptKey`).
 *
 * @example
 * ```ts
 * const receipt = await client.forget(memoryId);
 * const { receiptKey } = await client.health();
 * if (!await verifyReceipt(receipt, receiptKey)) throw new Error("Not a receipt of this relayer");
 * ```
 *
 * @module
 */
import { verifyEd25519 } from "@svc/util/ed25519";
import { receiptMessage } from "../services/receipts.ts";
import type { EraseReceipt } from "./types.ts";

export { receiptMessage };

/**
 * Whether `receipt` is signed by the relayer whose receipt key (`/health`'s `receiptKey`, 64
 * hex characters) is `receiptKey`: the signature must verify over {@link receiptMessage} of its
 * fields. Anything malformed (a field that is not one line of text included) is `false`, never
 * an exception.
 *
 * @example
 * ```ts
 * const health = await (await fetch("http://127.0.0.1:8000/health")).json();
 * const genuine = await verifyReceipt(receipt, health.receiptKey);
 * ```
 */
export function verifyReceipt(receipt: EraseReceipt, receiptKey: string): Promise<boolean> {
  const fields = [receipt?.memory_id, receipt?.owner, receipt?.blob_id, receipt?.erased_at];
  const lines = fields.every((field) => typeof field === "string" && !field.includes("\n"));
  if (!lines || typeof receipt.signature !== "string" || typeof receiptKey !== "string") {
    return Promise.resolve(false);
  }
  return verifyEd25519(receiptKey, receipt.signature, receiptMessage(receipt));
}
