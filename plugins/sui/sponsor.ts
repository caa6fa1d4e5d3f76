/**
 * `Sponsor` over Sui: a gas station for the `svc_account` module only. The sender (an owner's
 * wallet) sends a BCS `TransactionKind`; the sponsor checks it calls nothing but the module's
 * account functions, wraps it into `TransactionData` paid from one of the sponsor's coins,
 * dry-runs and signs it, and keeps it for a short while by digest. The sender signs the bytes
 * (`Ed25519Keypair.signTransaction`) and `execute` submits both signatures.
 *
 * A coin pays for one pending transaction at a time (a second use would fail on its version),
 * so the sponsor's number of coins bounds how many transactions can wait for a signature.
 *
 * @example
 * ```ts
 * const sponsor = SuiSponsor.open({ rpcUrl, packageId, sponsorPrivateKey });
 * const { bytes, digest } = await sponsor.sponsor(kindBytes, ownerAddress);
 * const { signature } = await owner.signTransaction(bytes);
 * const { effects } = await sponsor.execute(digest, signature);
 * ```
 */
import { LruMap } from "@svc/util/lru_map";
import { bcs } from "@mysten/sui/bcs";
import { JsonRpcError, type SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import type { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction, TransactionDataBuilder } from "@mysten/sui/transactions";
import { verifyTransactionSignature } from "@mysten/sui/verify";
import { fromBase58, fromBase64, normalizeStructTag, normalizeSuiAddress } from "@mysten/sui/utils";
import {
  backendError,
  type CallOptions,
  rejected,
  type Sponsor,
  type SponsoredTransaction,
  SvcError,
} from "@svc/relayer/kit";
import { isAddress } from "@svc/util/keys";
import {
  ABORT_REASONS,
  ACCOUNT_MODULE,
  accountType,
  isObjectId,
  SPONSORED_FUNCTIONS,
} from "./svc_account.ts";
import { suiKeypair } from "./keys.ts";
import { suiClient, type SuiRpcOptions, withRpc } from "./rpc_client.ts";

const PLUGIN = "sui-sponsor";
const MAX_COMMANDS = 8;

/** Options of {@link SuiSponsor}. */
export interface SuiSponsorOptions extends SuiRpcOptions {
  /** The published `svc_account` package (env SVC_PACKAGE_ID). */
  packageId: string;
  /** The gas owner's Ed25519 key: `suiprivkey1…` or a 64 lowercase hex seed (env SVC_SPONSOR_PRIVATE_KEY). */
  sponsorPrivateKey: string;
  /** MIST per transaction (default 50 000 000 = 0.05 SUI). */
  gasBudget?: bigint | number;
  /** How long a sponsored transaction waits for its signature (default 5 minutes). */
  ttlMs?: number;
  /** Most transactions waiting for a signature at once (default 1 000). */
  maxPending?: number;
  /** The clock, in Unix milliseconds (default `Date.now`). */
  now?: () => number;
}

interface Pending {
  bytes: Uint8Array<ArrayBuffer>;
  sponsorSignature: string;
  sender: string;
  coinId: string;
  expiresAt: number;
  kind: { function: string; accountId?: string; publicKey?: string };
}

/** What `execute` returns as effects: the ledger's fields plus the chain's own effects. */
export interface SuiSponsoredEffects {
  /** Always "success": a transaction that fails throws instead. */
  status: "success";
  /** The module function the transaction called, such as "create_account". */
  kind: string;
  /** The account the transaction created or changed. */
  account_id?: string;
  /** The sender's address: the owner's wallet. */
  sender: string;
  /** The delegate key added or removed, as lowercase hex. */
  public_key?: string;
  /** When the transaction executed (ISO 8601, UTC). */
  executed_at: string;
  /** The chain's own effects, as the full node returns them. */
  chain: unknown;
}

/** The gas station for the `svc_account` module; see the module documentation. */
export class SuiSponsor implements Sponsor {
  readonly name = "sui-sponsor";
  /** The gas owner's Sui address: the sponsor's coins pay from it. */
  readonly address: string;
  #client: SuiJsonRpcClient;
  #keypair: Ed25519Keypair;
  #options: SuiSponsorOptions;
  #budget: bigint;
  #ttlMs: number;
  #maxPending: number;
  #now: () => number;
  #pending = new Map<string, Pending>();
  /** Coins picked by sponsor calls still building or signing their transaction. */
  #reserved = new Set<string>();
  /** Digests executed (the latest 10 000). */
  #done = new LruMap<string, true>(10_000);

  private constructor(options: SuiSponsorOptions, keypair: Ed25519Keypair) {
    this.#options = options;
    this.#keypair = keypair;
    this.address = keypair.toSuiAddress();
    // Executing waits for the node to run the transaction: allow it longer than reads by default.
    this.#client = suiClient(PLUGIN, { ...options, timeoutMs: options.timeoutMs ?? 30_000 });
    this.#budget = BigInt(options.gasBudget ?? 50_000_000n);
    this.#ttlMs = options.ttlMs ?? 5 * 60_000;
    this.#maxPending = options.maxPending ?? 1000;
    this.#now = options.now ?? Date.now;
  }

  /** Checks the options and the key; talks to the network only when sponsoring. */
  static open(options: SuiSponsorOptions): Promise<SuiSponsor> {
    return Promise.try(() => {
      const keypair = suiKeypair(options.sponsorPrivateKey);
      if (!isObjectId(options.packageId)) {
        throw new SvcError(
          "bad_request",
          "Cannot open the Sui sponsor: packageId must be 0x and hex",
        );
      }
      return new SuiSponsor(options, keypair);
    });
  }

  async sponsor(
    transactionKind: Uint8Array<ArrayBuffer>,
    sender: string,
    options: CallOptions = {},
  ): Promise<SponsoredTransaction> {
    options.signal?.throwIfAborted();
    if (!isAddress(sender)) {
      throw rejected("malformed", "The sender must be an address: 0x and 64 lowercase hex");
    }
    const kind = this.#checkKind(transactionKind);
    this.#checkRoom();
    const call = { signal: options.signal, timeoutMs: this.#options.timeoutMs };
    const rpc = <T>(task: (signal: AbortSignal) => Promise<T>) =>
      withRpc(PLUGIN, "sponsor a transaction", call, task);
    const [coins, price] = await rpc((signal) =>
      Promise.all([
        this.#client.getCoins({ owner: this.address, limit: 50, signal }),
        this.#client.getReferenceGasPrice({ signal }),
      ])
    );
    // Picked and reserved in one synchronous step: a concurrent call cannot take the same coin.
    this.#checkRoom();
    const inUse = new Set([...this.#pending.values()].map((p) => p.coinId));
    const coin = coins.data.find((c) =>
      !inUse.has(c.coinObjectId) && !this.#reserved.has(c.coinObjectId) &&
      BigInt(c.balance) >= this.#budget
    );
    if (!coin) {
      throw new SvcError(
        "backend_unavailable",
        "Cannot sponsor: every gas coin of the sponsor is in use or too small; try again shortly",
      );
    }
    this.#reserved.add(coin.coinObjectId);
    try {
      const tx = Transaction.fromKind(transactionKind);
      tx.setSender(sender);
      tx.setGasOwner(this.address);
      tx.setGasPayment([{
        objectId: coin.coinObjectId,
        version: coin.version,
        digest: coin.digest,
      }]);
      tx.setGasPrice(price);
      tx.setGasBudget(this.#budget);
      // The client's transport puts a deadline on each request these two send.
      const bytes = await rpc(() => tx.build({ client: this.#client })) as Uint8Array<ArrayBuffer>;
      const dryRun = await rpc(async (signal) => {
        try {
          return await this.#client.dryRunTransactionBlock({ transactionBlock: bytes, signal });
        } catch (error) {
          throw error instanceof JsonRpcError && (error.code === -32002 || error.code === -32602)
            ? invalidInputs(error.message)
            : error;
        }
      });
      if (dryRun.effects.status.status !== "success") {
        throw this.#failed(dryRun.effects.status.error, dryRun.effects.abortError);
      }
      const { signature } = await this.#keypair.signTransaction(bytes);
      const digest = TransactionDataBuilder.getDigestFromBytes(bytes);
      this.#pending.set(digest, {
        bytes,
        sponsorSignature: signature,
        sender,
        coinId: coin.coinObjectId,
        expiresAt: this.#now() + this.#ttlMs,
        kind,
      });
      return { bytes, digest };
    } finally {
      // Held by the pending transaction now, or free again after a failure.
      this.#reserved.delete(coin.coinObjectId);
    }
  }

  /**
   * Drops the expired transactions, then `rate_limited` when those waiting for a signature (or
   * being built) are at the cap.
   */
  #checkRoom() {
    const now = this.#now();
    for (const [digest, pending] of this.#pending) {
      if (now > pending.expiresAt) this.#pending.delete(digest);
    }
    if (this.#pending.size + this.#reserved.size >= this.#maxPending) {
      throw new SvcError(
        "rate_limited",
        "Cannot sponsor: too many transactions await a signature",
        {
          headers: { "retry-after": "30" },
          details: { retry_after_seconds: 30 },
        },
      );
    }
  }

  async execute(
    digest: string,
    signature: string,
    options: CallOptions = {},
  ): Promise<{ digest: string; effects: SuiSponsoredEffects }> {
    options.signal?.throwIfAborted();
    if (typeof digest !== "string" || !isDigest(digest)) {
      throw rejected("malformed", "The digest must be a base58 transaction digest");
    }
    if (this.#done.has(digest)) throw rejected("replayed", "This transaction was already executed");
    const pending = this.#pending.get(digest);
    if (!pending) throw rejected("expired", "Unknown or expired transaction: sponsor it again");
    if (this.#now() > pending.expiresAt) {
      this.#pending.delete(digest);
      throw rejected("expired", "The transaction expired before it was executed: sponsor it again");
    }
    try {
      await verifyTransactionSignature(pending.bytes, signature, { address: pending.sender });
    } catch {
      throw rejected("bad_signature", "The signature is not the sender's signature of these bytes");
    }
    // One submission at a time per digest; restored if the node could not be reached. A call
    // that checked its signature while another one took the transaction is a replay.
    if (this.#done.has(digest) || this.#pending.get(digest) !== pending) {
      throw rejected("replayed", "This transaction was already executed or is being executed");
    }
    this.#pending.delete(digest);
    let response;
    try {
      response = await this.#client.executeTransactionBlock({
        transactionBlock: pending.bytes,
        signature: [signature, pending.sponsorSignature],
        options: { showEffects: true, showObjectChanges: true },
        signal: options.signal ?? AbortSignal.timeout(this.#options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      if (error instanceof JsonRpcError && error.code === -32002) {
        throw /not available for consumption/.test(error.message)
          ? rejected(
            "expired",
            "The transaction's objects changed before it executed: sponsor it again",
          )
          : invalidInputs(error.message);
      }
      this.#pending.set(digest, pending);
      if (options.signal?.aborted) throw options.signal.reason;
      throw backendError("sui", "execute the transaction", error);
    }
    this.#done.set(digest, true);
    const effects = response.effects;
    if (effects?.status.status !== "success") {
      throw this.#failed(effects?.status.error, effects?.abortError);
    }
    const created = response.objectChanges?.find((c) =>
      c.type === "created" &&
      normalizeStructTag(c.objectType) === accountType(this.#options.packageId)
    );
    const accountId = created?.type === "created" ? created.objectId : pending.kind.accountId;
    return {
      digest: response.digest,
      effects: {
        status: "success",
        kind: pending.kind.function,
        ...(accountId ? { account_id: accountId } : {}),
        sender: pending.sender,
        ...(pending.kind.publicKey ? { public_key: pending.kind.publicKey } : {}),
        executed_at: new Date(this.#now()).toISOString(),
        chain: effects,
      },
    };
  }

  /** Accepts only MoveCalls into the account module's sponsored functions. */
  #checkKind(bytes: Uint8Array): Pending["kind"] {
    let ptb;
    try {
      ptb = bcs.TransactionKind.parse(bytes).ProgrammableTransaction;
    } catch {
      throw rejected("malformed", "The transaction kind is not a BCS TransactionKind");
    }
    if (!ptb) throw notSponsored("only programmable transactions are sponsored");
    if (!ptb.commands.length || ptb.commands.length > MAX_COMMANDS) {
      throw notSponsored(`a sponsored transaction has 1 to ${MAX_COMMANDS} commands`);
    }
    for (const input of ptb.inputs) {
      if (!input.Pure && !input.Object?.SharedObject && !input.Object?.ImmOrOwnedObject) {
        throw notSponsored("sponsored transactions take only pure values and objects as inputs");
      }
    }
    const pkg = normalizeSuiAddress(this.#options.packageId);
    for (const command of ptb.commands) {
      const call = command.MoveCall;
      if (!call) {
        throw notSponsored(`only calls into ${ACCOUNT_MODULE} are sponsored, not ${command.$kind}`);
      }
      if (
        normalizeSuiAddress(call.package) !== pkg || call.module !== ACCOUNT_MODULE ||
        !(SPONSORED_FUNCTIONS as readonly string[]).includes(call.function)
      ) {
        throw notSponsored(`${call.module}::${call.function} of ${call.package} is not sponsored`);
      }
      if (call.typeArguments.length || call.arguments.some((a) => a.$kind !== "Input")) {
        throw notSponsored("sponsored calls take only transaction inputs, never the gas coin");
      }
    }
    const first = ptb.commands[0].MoveCall!;
    const argument = (i: number) => {
      const arg = first.arguments[i];
      return arg?.$kind === "Input" ? ptb.inputs[arg.Input] : undefined;
    };
    const accountArg =
      first.function === "add_delegate_key" || first.function === "remove_delegate_key"
        ? argument(1)
        : first.function === "create_account"
        ? undefined
        : argument(0);
    const keyArg = first.function.endsWith("_delegate_key") ? argument(2) : undefined;
    const object = accountArg?.Object?.SharedObject ?? accountArg?.Object?.ImmOrOwnedObject;
    let publicKey: string | undefined;
    try {
      publicKey = keyArg?.Pure
        ? bcs.byteVector().parse(fromBase64(keyArg.Pure.bytes)).toHex()
        : undefined;
    } catch {
      publicKey = undefined;
    }
    return {
      function: first.function,
      accountId: object ? normalizeSuiAddress(object.objectId) : undefined,
      publicKey,
    };
  }

  /** A failed execution: the module's abort as the ledger's rejection, anything else a 400. */
  #failed(
    error: string | undefined,
    abort: { error_code?: string | null; module_id?: string | null } | null | undefined,
  ): SvcError {
    const module = `${normalizeSuiAddress(this.#options.packageId)}::${ACCOUNT_MODULE}`;
    const [pkg, name] = abort?.module_id?.split("::") ?? [];
    const ours = pkg !== undefined && `${normalizeSuiAddress(pkg)}::${name}` === module;
    const known = ours ? ABORT_REASONS[Number(abort?.error_code)] : undefined;
    if (known) return rejected(known[0], known[1]);
    return new SvcError("bad_request", `Cannot execute the transaction: ${error ?? "it failed"}`, {
      details: { reason: "execution_failed" },
    });
  }
}

function isDigest(value: string): boolean {
  try {
    return fromBase58(value).length === 32;
  } catch {
    return false;
  }
}

function notSponsored(message: string): SvcError {
  return new SvcError("forbidden", `Cannot sponsor: ${message}`, {
    details: { reason: "not_sponsored" },
  });
}

function invalidInputs(message: string): SvcError {
  return /does not exist|deleted/.test(message)
    ? rejected("no_account", "An object of the transaction (the account?) does not exist")
    : rejected("malformed", `The node refused the transaction: ${message}`);
}
