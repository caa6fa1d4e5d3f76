/**
 * What the relayer keeps about memories' lives: which memories were erased (so restore never
 * brings one back from a blob that survived, a backup put back for instance, and deletes that
 * blob), and when memories expire (so the sweep finds them after a restart).
 * `StateLifecycleRecords` keeps them in the relayer's `StateStore`, an expiry's owner and
 * namespace sealed, and an erased memory's blob and namespace.
 */
import { hkdfSync } from "node:crypto";
import { openNow, sealNow } from "@svc/util/sealing";
import { tagKey, tagOf } from "../state/tags.ts";
import type { KeyStore } from "../backends/key_store.ts";
import {
  rewriteEach,
  type StateBatch,
  type StateEntry,
  type StateKey,
  type StateStore,
  writeInBatches,
} from "../state/state_store.ts";

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

/** A memory to record erased: with its blob and namespace, its receipt can be answered again. */
export interface ErasedMemory {
  /** The memory's id. */
  memoryId: string;
  /** When it was due to expire: it is taken off the schedule. */
  expiresAt?: number;
  /** Its blob: what its receipt names. */
  blobId?: string;
  /** Its namespace: who may have its receipt again. */
  namespace?: string;
}

/**
 * A recorded erase: when, and the memory's blob and namespace where the erase named them (not
 * for a memory that was never stored, nor in a record of an earlier version).
 */
export interface Erasure {
  /** Unix milliseconds: what its receipt names. */
  erasedAt: number;
  /** The erased memory's blob. */
  blobId?: string;
  /** The erased memory's namespace. */
  namespace?: string;
}

/**
 * Where the relayer keeps the erased memories and the expiry schedule (`StateLifecycleRecords`,
 * in the relayer's `StateStore`). `due` with a lease hands what it returns to one caller at a
 * time for a while, so that relayers sweeping together erase each memory once.
 * `lifecycleRecordStoreSuite` (in the testing module) checks a store.
 */
export interface LifecycleRecordStore {
  /**
   * Records erases, and drops the erased memories from the expiry schedule. A memory given with
   * its blob and namespace has them recorded too (sealed), for {@link erasure}; where a memory
   * is given more than once, the last names what is recorded.
   */
  markErased(owner: string, memories: ErasedMemory[], erasedAt: number): Promise<void>;
  /** Which of `memoryIds` were erased. */
  erased(owner: string, memoryIds: string[]): Promise<Set<string>>;
  /** The erase of the owner's memory `memoryId`, as recorded; `null` when it was not erased. */
  erasure(owner: string, memoryId: string): Promise<Erasure | null>;
  /** Adds memories to the expiry schedule. */
  schedule(expiries: Expiry[]): Promise<void>;
  /** Takes these entries off the expiry schedule (the memories are not recorded erased). */
  unschedule(expiries: Pick<Expiry, "memoryId" | "expiresAt">[]): Promise<void>;
  /**
   * The memories expired at `now`, soonest first, at most `limit`. With `leaseMs`, each is
   * handed to this caller alone for that long (relayers sweeping together erase it once).
   */
  due(now: number, limit: number, leaseMs?: number): Promise<Expiry[]>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * How the records seal what names a memory's place: a scheduled expiry's owner and namespace, an
 * erased memory's blob and namespace. A list of strings, AES-256-GCM under a key HKDF derives
 * from the relayer's 32-byte secret, with what the record's key holds bound in.
 */
class RecordSeal {
  #key: Uint8Array;

  constructor(secret: Uint8Array<ArrayBuffer>) {
    this.#key = new Uint8Array(
      hkdfSync("sha256", secret, "svc-postgres-lifecycle-v1", "expiry schedule", 32),
    );
  }

  seal(values: string[], bound: string): Uint8Array<ArrayBuffer> {
    return sealNow(this.#key, encoder.encode(JSON.stringify(values)), encoder.encode(bound));
  }

  /** What `seal` sealed with the same `bound`; throws otherwise. */
  open(sealed: Uint8Array, bound: string): string[] {
    return JSON.parse(decoder.decode(openNow(this.#key, sealed, encoder.encode(bound))));
  }
}

const expiryBound = (expiresAt: number, memoryId: string) => `svc-expiry:${expiresAt}:${memoryId}`;
const erasedBound = (owner: string, memoryId: string) => `svc-erased:${owner}:${memoryId}`;

/** An erase as stored: its time, with the memory's blob and namespace sealed where known. */
type ErasedValue = number | { at: number; sealed: Uint8Array<ArrayBuffer> };

/** An expiry as stored: sealed, or as an earlier version kept it, in clear. */
type ExpiryValue = { sealed: Uint8Array<ArrayBuffer> } | { owner: string; namespace: string };

const FAILED = "Cannot record the memories' lifecycle: a commit failed";

/** Takes an expiry off the schedule in `batch`, with its lease. */
function unschedule(
  batch: StateBatch,
  { expiresAt, memoryId }: Omit<Expiry, "owner" | "namespace">,
) {
  batch.delete(["expiry", expiresAt, memoryId]).delete(["expiry_lease", expiresAt, memoryId]);
}

/**
 * The lifecycle records in the relayer's `StateStore`. Keys: `["erased", ownerTag, memoryId]` →
 * Unix ms of the erase (what its receipt names), or `{at, sealed}` with the memory's blob and
 * namespace sealed too, the owner by a keyed hash of its address;
 * `["expiry", expiresAt, memoryId]` → `{sealed}`, the owner and namespace sealed together, in
 * expiry order; `["expiry_lease", expiresAt, memoryId]` → until when a sweep holds it. What an
 * earlier version kept in clear (an owner's address, an expiry's `{owner, namespace}`) is read as
 * it is, and sealed by `sealStored`.
 *
 * Recording memories erased also erases their keys from the key store the job queue keeps its
 * texts' keys in, when given one: what the queue still holds of their texts no longer opens.
 */
export class StateLifecycleRecords implements LifecycleRecordStore {
  readonly #state: StateStore;
  readonly #seal: RecordSeal;
  readonly #owners: Promise<CryptoKey>;
  readonly #keys?: KeyStore;

  /** The records in `state`, sealed under the relayer's `secret`; see the class documentation. */
  constructor(state: StateStore, secret: Uint8Array<ArrayBuffer>, keyStore?: KeyStore) {
    this.#state = state;
    this.#seal = new RecordSeal(secret);
    this.#owners = tagKey(secret, "erased owners");
    this.#keys = keyStore;
  }

  #sealExpiry({ owner, namespace, expiresAt, memoryId }: Expiry): Uint8Array<ArrayBuffer> {
    return this.#seal.seal([owner, namespace], expiryBound(expiresAt, memoryId));
  }

  #expiry(key: StateKey, value: ExpiryValue): Expiry {
    const [, expiresAt, memoryId] = key as [string, number, string];
    if (!("sealed" in value)) return { memoryId, ...value, expiresAt };
    const [owner, namespace] = this.#seal.open(value.sealed, expiryBound(expiresAt, memoryId));
    return { memoryId, owner, namespace, expiresAt };
  }

  async #erasedKeys(owner: string, memoryIds: string[]): Promise<StateKey[]> {
    const tag = await tagOf(await this.#owners, owner);
    return memoryIds.map((memoryId) => ["erased", tag, memoryId]);
  }

  /**
   * Seals what an earlier version kept in clear: the expiries' owners and namespaces, and the
   * erased memories' owners; resolves to how many entries.
   */
  async sealStored(): Promise<number> {
    const expiries = await rewriteEach<ExpiryValue>(this.#state, ["expiry"], (value, key) => {
      if ("sealed" in value) return undefined;
      return { sealed: this.#sealExpiry(this.#expiry(key, value)) };
    });
    let moved = 0;
    // An owner's tag is hex, never "0x…": a moved entry is not moved again.
    for await (const { key, value, version } of this.#state.list({ prefix: ["erased"] })) {
      if (!String(key[1]).startsWith("0x")) continue;
      const [tagged] = await this.#erasedKeys(String(key[1]), [String(key[2])]);
      if (await this.#state.batch().check(key, version).delete(key).set(tagged, value).commit()) {
        moved++;
      }
    }
    return expiries + moved;
  }

  async markErased(owner: string, memories: ErasedMemory[], erasedAt: number): Promise<void> {
    if (memories.length === 0) return;
    await this.#keys?.erase(owner, memories.map(({ memoryId }) => memoryId));
    const keys = await this.#erasedKeys(owner, memories.map(({ memoryId }) => memoryId));
    await writeInBatches(
      this.#state,
      memories.keys(),
      (batch, i) => {
        const { expiresAt, memoryId, blobId, namespace } = memories[i];
        batch.set(
          keys[i],
          blobId === undefined || namespace === undefined ? erasedAt : {
            at: erasedAt,
            sealed: this.#seal.seal([blobId, namespace], erasedBound(owner, memoryId)),
          } satisfies ErasedValue,
        );
        if (expiresAt !== undefined) unschedule(batch, { expiresAt, memoryId });
      },
      FAILED,
      { writesPerItem: 3 },
    );
  }

  async erased(owner: string, memoryIds: string[]): Promise<Set<string>> {
    const entries = await this.#state.getMany(await this.#erasedKeys(owner, memoryIds));
    return new Set(memoryIds.filter((_, i) => entries[i] !== null));
  }

  async erasure(owner: string, memoryId: string): Promise<Erasure | null> {
    const [key] = await this.#erasedKeys(owner, [memoryId]);
    const value = (await this.#state.get<ErasedValue>(key))?.value;
    if (value === undefined) return null;
    if (typeof value === "number") return { erasedAt: value };
    const [blobId, namespace] = this.#seal.open(value.sealed, erasedBound(owner, memoryId));
    return { erasedAt: value.at, blobId, namespace };
  }

  async schedule(expiries: Expiry[]): Promise<void> {
    await writeInBatches(this.#state, expiries, (batch, expiry) => {
      batch.set(["expiry", expiry.expiresAt, expiry.memoryId], {
        sealed: this.#sealExpiry(expiry),
      });
    }, FAILED);
  }

  async unschedule(expiries: Pick<Expiry, "memoryId" | "expiresAt">[]): Promise<void> {
    await writeInBatches(this.#state, expiries, unschedule, FAILED);
  }

  async due(now: number, limit: number, leaseMs?: number): Promise<Expiry[]> {
    const due: Expiry[] = [];
    const selector = { start: ["expiry"], end: ["expiry", now + 1] };
    for await (const entry of this.#state.list<ExpiryValue>(selector)) {
      if (due.length === limit) break;
      const expiry = this.#expiry(entry.key, entry.value);
      if (leaseMs === undefined || await this.#lease(entry, now, leaseMs)) due.push(expiry);
    }
    return due;
  }

  /**
   * Hands the expiry `entry` to this caller until `now + leaseMs`, unless another holds it or it
   * is gone (erased) since it was listed.
   */
  async #lease(entry: StateEntry<ExpiryValue>, now: number, leaseMs: number): Promise<boolean> {
    const [, expiresAt, memoryId] = entry.key;
    const key = ["expiry_lease", expiresAt, memoryId];
    const held = await this.#state.get<number>(key);
    if (held && held.value > now) return false;
    return await this.#state.batch().check(entry.key, entry.version)
      .check(key, held?.version ?? null).set(key, now + leaseMs, { expireIn: leaseMs }).commit();
  }
}
