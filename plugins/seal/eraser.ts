/**
 * Erasing on chain: the `erase_memories` transaction of the `svc_account` package, sent by the
 * caller's delegate key (its Sui address is the sender; the package lets the owner and the
 * account's delegate keys erase) and paid by a sponsor (the relayer's gas station, through the
 * `Sponsor` interface: sponsor, sign as the sender, execute). Once it is executed,
 * `seal_approve` refuses the erased identities, so the key servers release no key for them.
 */
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import type { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { type CallOptions, type Sponsor, SvcError } from "@svc/relayer/kit";
import { eraseMemoriesCall, type SvcAccountIds } from "@svc/sui/svc_account";
import { PLUGIN } from "./errors.ts";

/**
 * Identities erased per transaction. Each one adds a dynamic field to the account, whose storage
 * the sponsor pays (about 0.001 SUI at the storage price of this writing); 32 stay well inside the
 * sponsor's default gas budget of 0.05 SUI.
 */
export const ERASE_BATCH = 32;

/** What an erase needs from the cipher. */
export interface EraseContext {
  suiClient: SuiJsonRpcClient;
  ids: SvcAccountIds;
  sponsor: Sponsor;
}

/**
 * Erases `suffixes` (identities without the owner's address) on the account, one sponsored
 * transaction per {@link ERASE_BATCH}; `onErased` hears of each batch once it is executed.
 */
export async function eraseOnChain(
  context: EraseContext,
  keypair: Ed25519Keypair,
  accountId: string,
  suffixes: Uint8Array[],
  onErased: (batch: Uint8Array[]) => void,
  options: CallOptions = {},
): Promise<void> {
  for (let i = 0; i < suffixes.length; i += ERASE_BATCH) {
    const batch = suffixes.slice(i, i + ERASE_BATCH);
    await submit(context, keypair, accountId, batch, options);
    onErased(batch);
  }
}

async function submit(
  context: EraseContext,
  keypair: Ed25519Keypair,
  accountId: string,
  batch: Uint8Array[],
  options: CallOptions,
): Promise<void> {
  const tx = new Transaction();
  eraseMemoriesCall(tx, context.ids, accountId, batch);
  let kind: Uint8Array<ArrayBuffer>;
  try {
    kind = await tx.build({
      client: context.suiClient,
      onlyTransactionKind: true,
    }) as Uint8Array<ArrayBuffer>;
  } catch (cause) {
    if (options.signal?.aborted) throw options.signal.reason;
    throw new SvcError(
      "backend_unavailable",
      `Cannot erase: ${PLUGIN} is unavailable (the erase transaction cannot be built)`,
      { cause },
    );
  }
  const sender = keypair.toSuiAddress();
  for (let attempt = 1;; attempt++) {
    options.signal?.throwIfAborted();
    try {
      const { bytes, digest } = await context.sponsor.sponsor(kind, sender, options);
      const { signature } = await keypair.signTransaction(bytes);
      await context.sponsor.execute(digest, signature, options);
      return;
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      // The gas coin moved on between sponsoring and executing: sponsored again, once.
      if (attempt === 1 && reasonOf(error) === "expired") continue;
      throw eraseError(error);
    }
  }
}

function reasonOf(error: unknown): unknown {
  return error instanceof SvcError ? error.details.reason : undefined;
}

/** A sponsor's refusal as the erase's: the package's aborts name who may erase. */
function eraseError(error: unknown): SvcError {
  if (!(error instanceof SvcError)) {
    return new SvcError(
      "backend_unavailable",
      `Cannot erase: ${PLUGIN} is unavailable (the erase transaction failed)`,
      { cause: error },
    );
  }
  const forbidden = (state: string) =>
    new SvcError("forbidden", `Cannot erase: ${state}`, { cause: error });
  switch (reasonOf(error)) {
    case "not_owner":
      return forbidden("the delegate key is not on the owner's account");
    case "inactive_account":
      return forbidden("the account is inactive; only its owner can erase its memories");
    case "no_account":
      return forbidden("the owner has no svc account on chain");
    default:
      return error;
  }
}
