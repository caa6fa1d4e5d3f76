/**
 * Seal threshold encryption behind the `Cipher` interface.
 *
 * `encrypt(owner, bytes, { memoryId })` seals the bytes under the identity `owner address ‖ the
 * memory id's 16 bytes` of the `svc_account` package (without a memory id, `owner address ‖ a
 * random 16-byte nonce`) with the configured key servers and threshold; the output is the Seal
 * `EncryptedObject` (BCS). `decrypt` checks the identity belongs to `owner` (and with `memoryId`,
 * to that memory; a ciphertext of no memory id is then refused too), then asks the key
 * servers for the identity's key through a session key of the caller's delegate (the
 * `x-delegate-key` the relayer hands over, or the operator's server key); the key servers run
 * `svc_account::account::seal_approve` on chain, which lets the owner and the account's delegates
 * with the read operation and before their expiry in, unless the memory was erased.
 *
 * `erase(owner, memoryIds, { credentials })` sends `erase_memories` for those identities, signed
 * by the caller's delegate key and paid by the `sponsor` (see `eraser.ts`); from then on the key
 * servers release no key for them, to anyone.
 *
 * @example
 * ```ts
 * const cipher = await SealCipher.open({
 *   rpcUrl: "https://fullnode.testnet.sui.io",
 *   packageId, registryId,
 *   keyServers: [{ objectId: "0x1a…", weight: 1 }, { objectId: "0x2b…", weight: 1 }, { objectId: "0x3c…", weight: 1 }],
 *   threshold: 2,
 *   sponsor, // pays for erase transactions: the relayer's gas station
 * });
 * const sealed = await cipher.encrypt(owner, new TextEncoder().encode("I am vegetarian"), { memoryId });
 * await cipher.decrypt(owner, sealed, { credentials: { delegatePrivateKey } });
 * await cipher.erase(owner, [memoryId], { credentials: { delegatePrivateKey } });
 * ```
 */
import { boundedFetch } from "@svc/util/bounded_fetch";
import { LruMap } from "@svc/util/lru_map";
import { EncryptedObject, SealClient, UserError } from "@mysten/seal";
import { bls12_381 } from "@noble/curves/bls12-381.js";
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { isValidSuiAddress, normalizeSuiAddress } from "@mysten/sui/utils";
import {
  backendError,
  type CallOptions,
  type Cipher,
  type DecryptCredentials,
  type DecryptOptions,
  type EncryptOptions,
  type Sponsor,
  SvcError,
} from "@svc/relayer/kit";
import { isObjectId } from "@svc/sui/svc_account";
import { suiClient, withRpc } from "@svc/sui/rpc_client";
import { abortable } from "@svc/sui/abortable";
import { AccountLookup } from "./account_lookup.ts";
import { DelegateDecryptor, type ParsedObject } from "./delegate_decryptor.ts";
import { ERASE_BATCH, eraseOnChain } from "./eraser.ts";
import { encryptError, erased, malformed } from "./errors.ts";
import { isKeyHex } from "@svc/util/keys";
import { checkIdentity, identityHex, memorySuffix, SUFFIX_BYTES } from "./identity.ts";
import type { SealKeyServerConfig as SealKeyServer } from "./settings.ts";

export type { SealKeyServer };
export type {
  CallOptions,
  Cipher,
  DecryptCredentials,
  DecryptOptions,
  EncryptOptions,
  Sponsor,
  SponsoredTransaction,
} from "@svc/relayer/kit";

/** Options of {@link SealCipher}. */
export interface SealCipherOptions {
  /** Sui full node JSON-RPC URL (`SVC_SUI_RPC_URL`). */
  rpcUrl: string;
  /** The `svc_account` Move package; the Seal identities live in its namespace (`SVC_PACKAGE_ID`). */
  packageId: string;
  /** The shared `AccountRegistry` object, owner → `SvcAccount` (`SVC_REGISTRY_ID`). */
  registryId: string;
  /** Key servers with weights (`SVC_SEAL_KEY_SERVERS`). */
  keyServers: SealKeyServer[];
  /** Total weight of key servers needed to decrypt (`SVC_SEAL_THRESHOLD`). */
  threshold: number;
  /** A delegate seed (64 hex) registered on the accounts, used when a caller sends none (`SVC_SEAL_SERVER_KEY`). */
  serverKey?: string;
  /** Lifetime of a delegate's session key and its cached keys, 1–30 minutes (default 10). */
  sessionTtlMinutes?: number;
  /**
   * Check every key server's proof of possession (`GET /v1/service`) once, before first use
   * (`SVC_SEAL_VERIFY_KEY_SERVERS`, default false, as in the SDK: the configured list is trusted,
   * and verifying needs every server up at that moment).
   */
  verifyKeyServers?: boolean;
  /** Deadline of each request to the key servers and the Sui full node, ms (default 10 000). */
  timeoutMs?: number;
  /** How long a decrypt waits for others to share its key-fetch round, ms (default 5). */
  batchWindowMs?: number;
  /**
   * Most delegates whose session and fetched keys are kept at once (default 1 000); the least
   * recently used are dropped beyond it, and any unused for a session lifetime.
   */
  maxDelegates?: number;
  /**
   * Pays the gas of `erase_memories` transactions, which the caller's delegate key signs as
   * their sender: the relayer's gas station (`SVC_SPONSOR_PRIVATE_KEY`). Without it, erase is
   * refused (501 `not_implemented`).
   */
  sponsor?: Sponsor;
}

/**
 * The most bytes of a key server's answer read. The largest is `fetch_key`'s: a key per id of the
 * round, each about 0.5 KB of JSON (its 80-byte id as numbers, two 48-byte points in base64), for
 * at most 1,024 ids (a round's approval transaction calls `seal_approve` once per id, and Sui
 * allows 1,024 commands): about 0.5 MB.
 */
const MAX_KEY_SERVER_ANSWER_BYTES = 2 ** 20;

/**
 * How the key servers are asked: a redirect is not followed, as it would carry the session's
 * certificate and request signature elsewhere; it reads as an answer of 502, as does one past
 * `MAX_KEY_SERVER_ANSWER_BYTES`.
 */
const keyServerFetch = boundedFetch(fetch, MAX_KEY_SERVER_ANSWER_BYTES);

function checkOptions(options: SealCipherOptions): string[] {
  const problems: string[] = [];
  const whole = (n: number, min: number, max = Infinity) =>
    Number.isInteger(n) && n >= min && n <= max;
  if (!/^https?:$/.test(URL.parse(options.rpcUrl)?.protocol ?? "")) {
    problems.push("rpcUrl must be an http(s) URL");
  }
  const timeout = options.timeoutMs;
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0)) {
    problems.push("timeoutMs must be positive");
  }
  if (!isObjectId(options.packageId)) problems.push("packageId must be a Sui object id");
  if (!isObjectId(options.registryId)) problems.push("registryId must be a Sui object id");
  const total = options.keyServers.reduce((sum, s) => sum + s.weight, 0);
  if (options.keyServers.length === 0) problems.push("keyServers must list at least one server");
  if (options.keyServers.some((s) => !isObjectId(s.objectId) || !whole(s.weight, 1))) {
    problems.push("each key server needs an object id and a positive integer weight");
  }
  const ids = options.keyServers.map((s) =>
    isObjectId(s.objectId) ? normalizeSuiAddress(s.objectId) : s.objectId
  );
  if (new Set(ids).size !== ids.length) problems.push("keyServers lists a server twice");
  if (!whole(options.threshold, 1, total)) {
    problems.push(`threshold must be an integer from 1 to the servers' total weight ${total}`);
  }
  if (options.serverKey !== undefined && !isKeyHex(options.serverKey)) {
    problems.push("serverKey must be 64 lowercase hex characters");
  }
  if (options.maxDelegates !== undefined && !whole(options.maxDelegates, 1)) {
    problems.push("maxDelegates must be a positive integer");
  }
  if (options.sessionTtlMinutes !== undefined && !whole(options.sessionTtlMinutes, 1, 30)) {
    problems.push("sessionTtlMinutes must be an integer from 1 to 30");
  }
  return problems;
}

/**
 * The Seal `Cipher`. One `SealClient` encrypts for everyone; each delegate key gets its own
 * session key and `SealClient` (so fetched keys are never shared between delegates), and its
 * concurrent decrypts share one key-fetch round.
 */
export class SealCipher implements Cipher {
  readonly name = "seal";
  readonly #options:
    & Required<Omit<SealCipherOptions, "serverKey" | "sponsor">>
    & Pick<SealCipherOptions, "serverKey" | "sponsor">;
  readonly #suiClient: SuiJsonRpcClient;
  readonly #sealClient: SealClient;
  readonly #accounts: AccountLookup;
  readonly #weights: Map<string, number>;
  /** Decryptors by delegate address, least recently used first. */
  readonly #decryptors = new Map<string, { decryptor: DelegateDecryptor; usedAt: number }>();
  /**
   * Identities (hex) erased through this cipher, or found erased on chain: refused at once,
   * whatever a session still holds; past 100 000 the oldest are forgotten (sessions live 30
   * minutes at most).
   */
  readonly #erased = new LruMap<string, true>(100_000);

  private constructor(options: SealCipherOptions) {
    this.#options = {
      ...options,
      packageId: normalizeSuiAddress(options.packageId),
      registryId: normalizeSuiAddress(options.registryId),
      keyServers: options.keyServers.map((s) => ({
        objectId: normalizeSuiAddress(s.objectId),
        weight: s.weight,
      })),
      sessionTtlMinutes: options.sessionTtlMinutes ?? 10,
      verifyKeyServers: options.verifyKeyServers ?? false,
      timeoutMs: options.timeoutMs ?? 10_000,
      batchWindowMs: options.batchWindowMs ?? 5,
      maxDelegates: options.maxDelegates ?? 1000,
    };
    this.#suiClient = suiClient("the Seal cipher", {
      rpcUrl: options.rpcUrl,
      timeoutMs: this.#options.timeoutMs,
    });
    this.#sealClient = new SealClient({
      suiClient: this.#suiClient,
      serverConfigs: this.#options.keyServers,
      verifyKeyServers: this.#options.verifyKeyServers,
      timeout: this.#options.timeoutMs,
      fetch: keyServerFetch,
    });
    this.#accounts = new AccountLookup(this.#suiClient, {
      packageId: this.#options.packageId,
      registryId: this.#options.registryId,
      timeoutMs: this.#options.timeoutMs,
    });
    this.#weights = new Map(this.#options.keyServers.map((s) => [s.objectId, s.weight]));
  }

  /** Checks the options (all problems at once) and returns a cipher; no network I/O yet. */
  static open(options: SealCipherOptions): Promise<SealCipher> {
    const problems = checkOptions(options);
    if (problems.length > 0) {
      return Promise.reject(
        new SvcError("bad_request", `Cannot configure the Seal cipher: ${problems.join("; ")}`),
      );
    }
    return Promise.resolve(new SealCipher(options));
  }

  /**
   * Reads the key servers' objects from Sui, so that a relayer does not start with ids that name
   * no key server (every encryption would fail) or a full node it cannot reach.
   */
  async checkKeyServers(): Promise<void> {
    const ids = this.#options.keyServers.map((s) => s.objectId);
    const objects = await withRpc(
      "the Sui node at SVC_SUI_RPC_URL",
      "read the Seal key servers",
      { timeoutMs: this.#options.timeoutMs },
      () => this.#suiClient.multiGetObjects({ ids, options: { showType: true } }),
    );
    const missing = ids.filter((_, i) => !objects[i]?.data);
    const others = ids.flatMap((id, i) => {
      const type = objects[i]?.data?.type;
      return type && !type.endsWith("::key_server::KeyServer") ? [`${id} is a ${type}`] : [];
    });
    let problem = missing.length > 0
      ? `no object ${missing.join(", ")} exists`
      : others.length > 0 && others.join(", ");
    if (!problem) {
      // Key server objects the SDK still refuses (a version or key type it does not support).
      problem = await this.#sealClient.getKeyServers().then(() => false, (error) => {
        if (error instanceof UserError) return `the Seal SDK says: ${error.message}`;
        throw backendError("the Sui node at SVC_SUI_RPC_URL", "read the Seal key servers", error);
      });
    }
    if (problem) {
      throw new SvcError(
        "bad_request",
        `Cannot use SVC_SEAL_KEY_SERVERS: they must be Seal key server objects on the network ` +
          `of SVC_SUI_RPC_URL, and ${problem}`,
      );
    }
  }

  async encrypt(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
    options?: EncryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    const address = ownerAddress(owner, "encrypt");
    options?.signal?.throwIfAborted();
    const memoryId = options?.memoryId;
    // Without a memory id, a random nonce stands for it.
    const suffix = memoryId === undefined
      ? crypto.getRandomValues(new Uint8Array(SUFFIX_BYTES))
      : await memorySuffix(memoryId);
    try {
      const { encryptedObject } = await this.#sealClient.encrypt({
        threshold: this.#options.threshold,
        packageId: this.#options.packageId,
        id: identityHex(address, suffix),
        data: plaintext,
      });
      return new Uint8Array(encryptedObject);
    } catch (error) {
      throw encryptError(error);
    }
  }

  /**
   * The plaintext, as `Cipher.decrypt` says. The identity must be the owner's (and, with
   * `memoryId`, that memory's), else the ciphertext is refused before any key server is asked.
   */
  async decrypt(
    owner: string,
    ciphertext: Uint8Array<ArrayBuffer>,
    options?: DecryptOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    const address = ownerAddress(owner, "decrypt");
    const object = this.#parse(ciphertext);
    await checkIdentity(object.id, address, options?.memoryId);
    if (this.#erased.has(object.id)) throw erased();
    const decryptor = this.#decryptor(options?.credentials?.delegatePrivateKey);
    // The key-fetch round is shared with other decrypts: an abort stops only this caller's wait.
    return await abortable(decryptor.decrypt(address, ciphertext, object), options?.signal);
  }

  /**
   * Erases memories on chain: one `erase_memories` transaction per 32 ids, sent by the caller's
   * delegate key (or the server key) and paid by the sponsor. Once it resolves the key servers
   * refuse those identities to every key, and this process drops any key it kept for them.
   */
  async erase(
    owner: string,
    memoryIds: string[],
    options?: CallOptions & { credentials?: DecryptCredentials },
  ): Promise<void> {
    options?.signal?.throwIfAborted();
    const address = ownerAddress(owner, "erase");
    const keypair = this.#keypair(options?.credentials?.delegatePrivateKey, "erase");
    const sponsor = this.#options.sponsor;
    if (!sponsor) {
      // Not an outage: no retry helps until the relayer is configured with a sponsor.
      throw new SvcError(
        "not_implemented",
        "Cannot erase: erasing with Seal is a Sui transaction and no sponsor pays for it; " +
          "configure SVC_SPONSOR_PRIVATE_KEY",
      );
    }
    // No memory: what an erase of this caller's would need is there (a check before erasing).
    if (memoryIds.length === 0) return;
    const suffixes = new Map<string, Uint8Array>();
    for (const id of memoryIds) {
      const suffix = await memorySuffix(id);
      suffixes.set(suffix.toHex(), suffix);
    }
    const accountId = await this.#accounts.accountOf(address, "erase", options);
    // Those the account erased already (an erase sent again) cost no transaction: looked up
    // for an erase of one transaction's ids at most, a read each.
    const named = [...suffixes.values()];
    const done = named.length <= ERASE_BATCH
      ? await this.#accounts.erased(accountId, named)
      : named.map(() => false);
    this.#forget(named.filter((_, i) => done[i]).map((suffix) => identityHex(address, suffix)));
    const left = named.filter((_, i) => !done[i]);
    if (left.length === 0) return;
    const context = {
      suiClient: this.#suiClient,
      ids: { packageId: this.#options.packageId, registryId: this.#options.registryId },
      sponsor,
    };
    await eraseOnChain(context, keypair, accountId, left, (batch) => {
      this.#forget(batch.map((suffix) => identityHex(address, suffix)));
    }, options);
  }

  /** Refuses these identities from now on and drops every session holding one of their keys. */
  #forget(identities: string[]) {
    for (const id of identities) this.#erased.set(id, true);
    const ids = new Set(identities);
    for (const { decryptor } of this.#decryptors.values()) decryptor.forget(ids);
  }

  #parse(ciphertext: Uint8Array): ParsedObject {
    let object: ParsedObject;
    try {
      object = EncryptedObject.parse(ciphertext);
    } catch (cause) {
      throw malformed(cause, "not a Seal encrypted object");
    }
    if (object.version !== 0 || normalizeSuiAddress(object.packageId) !== this.#options.packageId) {
      throw malformed(undefined, "not encrypted for this service's package");
    }
    // The SDK's rule: each configured server the object names, named exactly `weight` times;
    // servers the object names beyond the configured ones (retired ones) are allowed.
    const services = object.services.map(([id]) => normalizeSuiAddress(id));
    const total = [...this.#weights.values()].reduce((a, b) => a + b, 0);
    const consistent = [...this.#weights].every(([id, weight]) => {
      const count = services.filter((s) => s === id).length;
      return count === 0 || count === weight;
    });
    if (!consistent || object.threshold < 1 || object.threshold > total) {
      throw malformed(undefined, "encrypted for other key servers or thresholds than configured");
    }
    // Checked here so that a failure of the local decryption is never the ciphertext's fault.
    const ibe = object.encryptedShares.BonehFranklinBLS12381;
    if (!ibe) throw malformed(undefined, "encrypted with a scheme other than BLS12-381 IBE");
    try {
      bls12_381.G2.Point.fromBytes(new Uint8Array(ibe.nonce));
    } catch (cause) {
      throw malformed(cause);
    }
    return object;
  }

  /**
   * The caller's delegate key, or the server key; none is `forbidden` for decrypt (as it always
   * was) and `bad_request` for erase, which cannot run without one.
   */
  #keypair(delegatePrivateKey: string | undefined, action: "decrypt" | "erase"): Ed25519Keypair {
    const seed = delegatePrivateKey ?? this.#options.serverKey;
    if (seed === undefined) {
      throw new SvcError(
        action === "decrypt" ? "forbidden" : "bad_request",
        `Cannot ${action}: Seal needs a delegate key; send x-delegate-key with the request`,
      );
    }
    if (!isKeyHex(seed)) {
      throw new SvcError(
        "bad_request",
        `Cannot ${action}: the delegate key must be 64 lowercase hex characters`,
      );
    }
    return Ed25519Keypair.fromSecretKey(Uint8Array.fromHex(seed));
  }

  #decryptor(delegatePrivateKey: string | undefined): DelegateDecryptor {
    // Keyed by the delegate's address, never by its private key.
    const keypair = this.#keypair(delegatePrivateKey, "decrypt");
    const address = keypair.toSuiAddress();
    const now = Date.now();
    this.#dropExpired(now);
    const known = this.#decryptors.get(address);
    // Re-inserted on each use, so the map's order is least recently used first.
    if (known) this.#decryptors.delete(address);
    const decryptor = known?.decryptor ?? this.#newDecryptor(keypair);
    if (!known) this.#evict();
    this.#decryptors.set(address, { decryptor, usedAt: now });
    return decryptor;
  }

  #newDecryptor(keypair: Ed25519Keypair): DelegateDecryptor {
    return new DelegateDecryptor(keypair, {
      suiClient: this.#suiClient,
      packageId: this.#options.packageId,
      keyServers: this.#options.keyServers,
      sessionTtlMinutes: this.#options.sessionTtlMinutes,
      timeoutMs: this.#options.timeoutMs,
      fetch: keyServerFetch,
      batchWindowMs: this.#options.batchWindowMs,
      accountOf: async (owner) => {
        if (this.#options.verifyKeyServers) await this.#sealClient.getKeyServers();
        return await this.#accounts.accountOf(owner);
      },
      isErased: (id) => this.#erased.has(id),
      foundErased: (ids) => ids.forEach((id) => this.#erased.set(id, true)),
      erasedOnChain: (accountId, ids) =>
        this.#accounts.erased(accountId, ids.map((id) => Uint8Array.fromHex(id).subarray(32))),
    });
  }

  /** Drops the idle decryptors unused for a session lifetime (their session is over anyway). */
  #dropExpired(now: number) {
    const expired = now - this.#options.sessionTtlMinutes * 60_000;
    for (const [address, entry] of this.#decryptors) {
      if (entry.usedAt > expired) break; // in order of use: the rest are newer
      if (entry.decryptor.idle) this.#decryptors.delete(address);
    }
  }

  /**
   * Makes room for one more decryptor: drops the least recently used idle one, or, when every
   * one is busy, the least recently used regardless (its queued decrypts still finish).
   */
  #evict() {
    if (this.#decryptors.size < this.#options.maxDelegates) return;
    for (const [address, entry] of this.#decryptors) {
      if (entry.decryptor.idle) {
        this.#decryptors.delete(address);
        return;
      }
    }
    this.#decryptors.delete(this.#decryptors.keys().next().value!);
  }
}

function ownerAddress(owner: string, action: string): string {
  if (!isValidSuiAddress(owner)) {
    throw new SvcError("bad_request", `Cannot ${action}: the owner must be a Sui address`);
  }
  return normalizeSuiAddress(owner);
}
