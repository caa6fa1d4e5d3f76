/**
 * Decryption on behalf of one delegate key: a Seal `SessionKey` signed with the delegate's
 * Ed25519 key, and a `SealClient` whose key cache lives exactly as long as that session.
 *
 * Decrypts arriving together (a recall decrypts its hits with `Promise.all`) are coalesced:
 * the first one waits `batchWindowMs` for others, then every id still missing goes into ONE
 * `seal_approve` PTB and ONE `fetchKeys` round (one request per key server); ids already
 * fetched in this session decrypt locally. While a round is in flight, new arrivals wait and
 * form the next round.
 *
 * The key servers judge a round's PTB as a whole: when they refuse it and it asked for several
 * ids, each id is asked for alone, so that one erased memory does not fail its neighbours. The
 * account's `erased` table on chain then tells a memory erased (refused with `reason: "erased"`,
 * which a recall reads as nothing rather than failing) from a key refused. Keys of identities
 * erased since they were fetched are dropped with the session that holds them.
 */
import {
  type EncryptedObject,
  ExpiredSessionKeyError,
  NoAccessError,
  SealClient,
  SessionKey,
} from "@mysten/seal";
import type { SuiJsonRpcClient } from "@mysten/sui/jsonRpc";
import type { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Transaction } from "@mysten/sui/transactions";
import { SvcError } from "@svc/relayer/kit";
import { sealApproveCall } from "@svc/sui/svc_account";
import { decryptError, erased, fetchError } from "./errors.ts";

/** A parsed Seal `EncryptedObject`. */
export type ParsedObject = ReturnType<typeof EncryptedObject.parse>;

/** What a decryptor needs from the cipher that owns it. */
export interface DecryptorContext {
  suiClient: SuiJsonRpcClient;
  packageId: string;
  keyServers: { objectId: string; weight: number }[];
  sessionTtlMinutes: number;
  timeoutMs: number;
  /** How the key servers are asked (the cipher's bounded `fetch`). */
  fetch: typeof fetch;
  /** How long the first decrypt of a round waits for others to join it, ms. */
  batchWindowMs: number;
  /** The owner's `SvcAccount` object id (forbidden when the owner has none). */
  accountOf(owner: string): Promise<string>;
  /** Whether this cipher erased an identity (hex), which is then never decrypted again. */
  isErased(id: string): boolean;
  /** Records identities (hex) found erased on chain: refused at once from then on. */
  foundErased(ids: string[]): void;
  /** Which of these identities (hex) the account erased on chain. */
  erasedOnChain(accountId: string, ids: string[]): Promise<boolean[]>;
}

interface Item {
  owner: string;
  data: Uint8Array;
  object: ParsedObject;
  resolve(plaintext: Uint8Array<ArrayBuffer>): void;
  reject(error: unknown): void;
}

interface Session {
  sessionKey: SessionKey;
  client: SealClient;
  /** Ids (hex) whose keys this session's client holds. */
  fetched: Set<string>;
  /** When to stop using it (a minute before the key servers would refuse it). */
  renewAt: number;
}

const EMPTY = new Uint8Array();

/** Decrypts for one delegate key, batching concurrent decrypts into one key-fetch round. */
export class DelegateDecryptor {
  readonly address: string;
  #keypair: Ed25519Keypair;
  #context: DecryptorContext;
  #session: Promise<Session> | null = null;
  /** The current session once it is made (what `forget` looks into). */
  #made: Session | null = null;
  #pending: Item[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #running = false;

  constructor(keypair: Ed25519Keypair, context: DecryptorContext) {
    this.#keypair = keypair;
    this.address = keypair.toSuiAddress();
    this.#context = context;
  }

  /** Queues one decryption; it joins the next key-fetch round. */
  decrypt(owner: string, data: Uint8Array, object: ParsedObject): Promise<Uint8Array<ArrayBuffer>> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ owner, data, object, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Drops the current session (and the keys it fetched) when it holds a key of one of these
   * identities (hex), so that no erased memory decrypts from this process's cache.
   */
  forget(ids: Set<string>): void {
    const made = this.#made;
    if (made && [...made.fetched].some((id) => ids.has(id))) {
      this.#session = null;
      this.#made = null;
    }
  }

  /** True while nothing is queued or running (the cipher may then drop this decryptor). */
  get idle(): boolean {
    return !this.#running && this.#pending.length === 0 && this.#timer === null;
  }

  #schedule() {
    if (this.#running || this.#timer !== null) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#drain();
    }, this.#context.batchWindowMs);
  }

  async #drain() {
    this.#running = true;
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending;
        this.#pending = [];
        const byOwner = Map.groupBy(batch, (item) => item.owner);
        await Promise.all([...byOwner].map(([owner, items]) => this.#round(owner, items)));
      }
    } finally {
      this.#running = false;
    }
  }

  #newSession(): Promise<Session> {
    const { suiClient, packageId, keyServers, sessionTtlMinutes, timeoutMs, fetch } = this.#context;
    const session = (async () => {
      const sessionKey = await SessionKey.create({
        address: this.address,
        packageId,
        ttlMin: sessionTtlMinutes,
        signer: this.#keypair,
        suiClient,
      });
      await sessionKey.getCertificate();
      const client = new SealClient({
        suiClient,
        serverConfigs: keyServers,
        // The cipher's shared client checks the proofs of possession once; sessions reuse that.
        verifyKeyServers: false,
        timeout: timeoutMs,
        fetch,
      });
      const renewAt = Date.now() + Math.max(sessionTtlMinutes * 60_000 - 60_000, 30_000);
      return { sessionKey, client, fetched: new Set<string>(), renewAt };
    })();
    session.catch(() => {
      if (this.#session === session) this.#session = null;
    });
    return session;
  }

  async #currentSession(): Promise<Session> {
    if (this.#session) {
      const session = await this.#session;
      if (Date.now() < session.renewAt) return session;
    }
    return await this.#renew();
  }

  /** A new session, made the current one. */
  async #renew(): Promise<Session> {
    const pending = this.#newSession();
    this.#session = pending;
    const session = await pending;
    if (this.#session === pending) this.#made = session;
    return session;
  }

  async #round(owner: string, items: Item[]) {
    let session: Session | undefined;
    let txBytes: Uint8Array = EMPTY;
    let refused = new Map<string, SvcError>();
    /** Why the keys the session lacked could not be fetched (the items with a held key decrypt). */
    let unfetched: SvcError | undefined;
    try {
      session = await this.#currentSession();
      const { fetched } = session;
      const missing = [...new Set(items.map((i) => i.object.id))].filter((id) => !fetched.has(id));
      if (missing.length > 0) {
        const accountId = await this.#context.accountOf(owner);
        const threshold = Math.max(...items.map((i) => i.object.threshold));
        txBytes = await this.#approvalPtb(missing, accountId);
        try {
          await this.#fetch(session, missing, txBytes, threshold);
        } catch (error) {
          if (error instanceof ExpiredSessionKeyError) {
            session = await this.#renew();
            await this.#fetch(session, missing, txBytes, threshold);
          } else if (error instanceof NoAccessError) {
            refused = missing.length > 1
              ? await this.#fetchEach(session, missing, accountId, threshold)
              : new Map([[missing[0], fetchError(error)]]);
            await this.#findErased(accountId, [...refused.keys()]);
          } else {
            throw error;
          }
        }
      }
    } catch (error) {
      unfetched = fetchError(error);
      if (!session) {
        for (const item of items) item.reject(unfetched);
        return;
      }
    }
    for (const item of items) {
      const { id } = item.object;
      const refusal = this.#context.isErased(id)
        ? erased()
        : refused.get(id) ?? (session.fetched.has(id) ? undefined : unfetched);
      if (refusal) {
        item.reject(refusal);
        continue;
      }
      try {
        const plaintext = await session.client.decrypt({
          data: item.data,
          sessionKey: session.sessionKey,
          txBytes,
        });
        item.resolve(new Uint8Array(plaintext));
      } catch (error) {
        item.reject(decryptError(error));
      }
    }
  }

  /** Records which of the refused ids the account erased on chain. */
  async #findErased(accountId: string, refused: string[]) {
    const erased = await this.#context.erasedOnChain(accountId, refused);
    this.#context.foundErased(refused.filter((_, i) => erased[i]));
  }

  /** Each id in a round of its own; returns the refused ones (any other failure is thrown). */
  async #fetchEach(
    session: Session,
    ids: string[],
    accountId: string,
    threshold: number,
  ): Promise<Map<string, SvcError>> {
    const refused = new Map<string, SvcError>();
    await Promise.all(ids.map(async (id) => {
      try {
        await this.#fetch(session, [id], await this.#approvalPtb([id], accountId), threshold);
      } catch (error) {
        if (!(error instanceof NoAccessError)) throw error;
        refused.set(id, fetchError(error));
      }
    }));
    return refused;
  }

  async #fetch(session: Session, ids: string[], txBytes: Uint8Array, threshold: number) {
    await session.client.fetchKeys({ ids, txBytes, sessionKey: session.sessionKey, threshold });
    for (const id of ids) session.fetched.add(id);
  }

  async #approvalPtb(ids: string[], accountId: string): Promise<Uint8Array> {
    const tx = new Transaction();
    // seal_approve(id, account, clock): the clock decides whether the key has expired.
    for (const id of ids) sealApproveCall(tx, this.#context, accountId, Uint8Array.fromHex(id));
    try {
      return await tx.build({ client: this.#context.suiClient, onlyTransactionKind: true });
    } catch (cause) {
      throw new SvcError(
        "backend_unavailable",
        "Cannot decrypt: Seal is unavailable (the approval transaction cannot be built)",
        { cause },
      );
    }
  }
}
