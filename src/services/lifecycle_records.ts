/**
 * What the relayer keeps about memories' lives: which memories were erased (so restore never
 * brings one back from a blob that survived, a backup put back for instance, and deletes that
 * blob), and when memories expire (so the sweep finds them after a restart). The stores are
 * `@svc/denokv`'s and `@svc/postgres`'s; both seal an expiry's owner and namespace with
 * {@link ExpirySeal}.
 */
import { hkdfSync } from "node:crypto";
import { openNow, sealNow } from "@svc/util/sealing";

/** A memory due to expire. */
export interface Expiry {
  /** The memory's id. */
  memoryId: string;
  /** The owner's address. */
  owner: string;
  /** The namespace the memory is in. */
  namespace: string;
  /** Unix milliseconds. */
  expiresAt: number;
}

/**
 * Where the relayer keeps the erased memories and the expiry schedule. `@svc/denokv`
 * keeps them in Deno KV (the default); a store shared by several relayers (PostgreSQL) may lease
 * what `due` returns to one caller at a time for a while, so that relayers sweeping together
 * erase each memory once. `lifecycleRecordStoreSuite` (in the testing module) checks a store.
 */
export interface LifecycleRecordStore {
  /** Records erases, and drops the erased memories from the expiry schedule. */
  markErased(
    owner: string,
    memories: { memoryId: string; expiresAt?: number }[],
    erasedAt: number,
  ): Promise<void>;
  /** Which of `memoryIds` were erased. */
  erased(owner: string, memoryIds: string[]): Promise<Set<string>>;
  /** Adds memories to the expiry schedule. */
  schedule(expiries: Expiry[]): Promise<void>;
  /** Takes these entries off the expiry schedule (the memories are not recorded erased). */
  unschedule(expiries: Pick<Expiry, "memoryId" | "expiresAt">[]): Promise<void>;
  /** The memories expired at `now`, soonest first, at most `limit`. */
  due(now: number, limit: number): Promise<Expiry[]>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * How a store seals a scheduled expiry's owner and namespace: together, AES-256-GCM under a key
 * HKDF derives from the relayer's 32-byte secret, the expiry's time and memory id bound in.
 */
export class ExpirySeal {
  #key: Uint8Array;

  /** The seal of the relayer's 32-byte `secret`. */
  constructor(secret: Uint8Array<ArrayBuffer>) {
    this.#key = new Uint8Array(
      hkdfSync("sha256", secret, "svc-postgres-lifecycle-v1", "expiry schedule", 32),
    );
  }

  /** `expiry`'s owner and namespace, sealed. */
  seal({ owner, namespace, expiresAt, memoryId }: Expiry): Uint8Array<ArrayBuffer> {
    const plain = encoder.encode(JSON.stringify([owner, namespace]));
    return sealNow(this.#key, plain, aadOf(expiresAt, memoryId));
  }

  /** The owner and namespace `seal` sealed for that time and memory; throws otherwise. */
  open(
    expiresAt: number,
    memoryId: string,
    sealed: Uint8Array,
  ): { owner: string; namespace: string } {
    const plain = openNow(this.#key, sealed, aadOf(expiresAt, memoryId));
    const [owner, namespace] = JSON.parse(decoder.decode(plain)) as [string, string];
    return { owner, namespace };
  }
}

function aadOf(expiresAt: number, memoryId: string): Uint8Array {
  return encoder.encode(`svc-expiry:${expiresAt}:${memoryId}`);
}
