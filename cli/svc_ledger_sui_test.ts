import assert from "node:assert/strict";
import { Transaction } from "@mysten/sui/transactions";
import { normalizeSuiAddress } from "@mysten/sui/utils";
import { SvcError } from "@svc/relayer/kit";
import { checkSponsored } from "./svc_ledger_sui.ts";

const OWNER = normalizeSuiAddress("0xa11ce");
const SPONSOR = normalizeSuiAddress("0x5903");

/** A sponsored transaction of one call from `sender`, paid by `gasOwner`; its kind's bytes too. */
async function sponsored(sender: string, gasOwner: string, value = 1) {
  const tx = new Transaction();
  tx.moveCall({ target: "0x2::svc::call", arguments: [tx.pure.u8(value)] });
  tx.setSender(sender);
  const kind = await tx.build({ onlyTransactionKind: true });
  tx.setGasOwner(gasOwner);
  tx.setGasPrice(1000);
  tx.setGasBudget(50_000_000);
  tx.setGasPayment([{
    objectId: normalizeSuiAddress("0x6a5"),
    version: "1",
    digest: "1".repeat(32),
  }]);
  const bytes = await tx.build();
  return { kind, bytes, digest: await tx.getDigest() };
}

Deno.test("checkSponsored: the owner key signs only the transaction asked for", async () => {
  const asked = await sponsored(OWNER, SPONSOR);
  checkSponsored(asked.bytes, asked.digest, asked.kind, OWNER);
  const refused = (run: () => void) =>
    assert.throws(run, (error: SvcError) => {
      assert.equal(error.code, "backend_unavailable");
      assert.match(error.message, /returned another transaction than the one asked for/);
      return true;
    });
  // Another call (a key of the relayer's added, a transfer…) under the kind asked for.
  const other = await sponsored(OWNER, SPONSOR, 2);
  refused(() => checkSponsored(other.bytes, other.digest, asked.kind, OWNER));
  // Gas paid by the owner (its coins spent), another sender, a digest of other bytes.
  const selfPaid = await sponsored(OWNER, OWNER);
  refused(() => checkSponsored(selfPaid.bytes, selfPaid.digest, asked.kind, OWNER));
  const someone = normalizeSuiAddress("0xb0b");
  const theirs = await sponsored(someone, SPONSOR);
  refused(() => checkSponsored(theirs.bytes, theirs.digest, theirs.kind, OWNER));
  refused(() => checkSponsored(asked.bytes, other.digest, asked.kind, OWNER));
  refused(() => checkSponsored(new Uint8Array([1, 2, 3]), asked.digest, asked.kind, OWNER));
});
