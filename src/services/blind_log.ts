/**
 * Operator-blind namespaces. For each one the relayer keeps an append-only log of entries its
 * clients sealed (a memory's text, vector and index terms, which it cannot open), numbered from 1,
 * and the namespace's content key wrapped for each device key let in. It never holds a key that
 * opens them. An erase deletes the entry and appends a tombstone that tells clients to drop it.
 *
 * Entries live in the relayer's `StateStore` under a keyed hash of the owner and namespace
 * (`tags.ts`), so neither name is in clear at rest:
 * - `["blind", tag, "head"]`: the last sequence number and the namespace's manifest;
 * - `["blind", tag, "log", seq]`: an entry, or a tombstone;
 * - `["blind", tag, "id", memoryId]`: the sequence number of a memory's entry, or once erased,
 *   `{erased, at}`: what its receipt names, so that an erase sent again answers it;
 * - `["blind", tag, "wrap", publicKey]`: the content key, wrapped for that key;
 * - `["blind-names", ownerTag, tag]`: the namespace's name, sealed for the owner, so the owner's
 *   operator-blind namespaces can be listed.
 */
import { LruMap } from "@svc/util/lru_map";
import { SvcError } from "../errors.ts";
import {
  STATE_LIMITS,
  type StateBatch,
  type StateEntry,
  type StateKey,
  type StateStore,
} from "../state/state_store.ts";
import { tagKey, tagOf } from "../state/tags.ts";
import { deriveAesKey, hkdfMaster, openBytes, sealBytes } from "@svc/util/sealing";
import type { EraseReceipt, RelayerIdentity } from "./receipts.ts";

/** What an operator-blind namespace is made with: the embedder every client must run. */
export interface BlindManifest {
  /** The embedder's model id, as clients report it. */
  model: string;
}

/**
 * The content key sealed by a client with a cipher of its own (Seal), which every key the cipher
 * lets read can open: a new device needs no device let in before it.
 */
export interface SealedContentKey {
  /** The memory id the cipher bound it to, so that an erase can destroy its key. */
  id: string;
  /** What the client's cipher made of the content key. */
  sealed: Uint8Array;
}

/** A namespace's log head. */
export interface BlindHead {
  /** The sequence number of the newest entry or tombstone; 0 before the first. */
  seq: number;
  manifest: BlindManifest;
  /** Unix milliseconds. */
  createdAt: number;
  /** Set while the namespace is erased: it takes nothing more, and reads as not blind. */
  erasing?: true;
  /** While it is erased, once the memories its log held are listed: in how many parts. */
  listed?: number;
  /** The entries the log holds (tombstones aside); absent in heads written before it was kept. */
  count?: number;
  /** The content key as the enabling client sealed it, if it did. */
  sealedKey?: SealedContentKey;
}

/** An operator-blind namespace of an owner, as `namespaces` lists it. */
export interface BlindNamespace {
  /** Its name. */
  namespace: string;
  /** The memories its log holds. */
  count: number;
  /** Unix milliseconds. */
  createdAt: number;
  /** Its erase was cut short: it refuses everything until erased again. */
  erasing?: true;
}

/** One record of the log: a sealed entry, or a tombstone for an erased one. */
export type BlindRecord =
  | { seq: number; id: string; sealed: Uint8Array }
  | { seq: number; id: string; erased: number };

/** A sealed entry a client appends. */
export interface BlindEntry {
  /** The memory's id (a lowercase UUID), chosen by the client. */
  id: string;
  /** What the client sealed; the relayer stores it as it is. */
  sealed: Uint8Array;
}

/**
 * The bytes of a content key wrapped for a key (`blind_keys.ts`'s `wrapFor`): an X25519 key, then
 * the 32-byte key sealed with ChaCha20-Poly1305 (nonce, tag).
 */
export const WRAPPED_KEY_BYTES = 32 + 12 + 32 + 16;
/** The bytes of one sealed entry at most: a state value, less room for its id. */
export const MAX_BLIND_ENTRY_BYTES = 59_000;
/** The bytes of the entries of one append together at most (one atomic batch). */
export const MAX_BLIND_APPEND_BYTES = 300_000;
/** The entries of one append at most. */
export const MAX_BLIND_APPEND = 100;
/** The sealed bytes one read of the log answers with at most (one record past it at least). */
export const MAX_BLIND_PAGE_BYTES = 4_000_000;
/** The memories one namespace's log holds at most. */
export const MAX_BLIND_ENTRIES = 100_000;
/** The namespaces whose tags are kept. */
const TAGS_KEPT = 10_000;
/** Commit attempts of one append or erase racing others on the same namespace. */
const ATTEMPTS = 20;

type Stored = { id: string; sealed?: Uint8Array; erased?: number };
/** Memories a namespace's erase gives receipts for: their ids and sequence numbers. */
type Listed = [string, number][];
/** Memories listed in one state entry, and entries written in one batch (of about 240 KB). */
const LISTED_PART = 500;
const LISTED_PARTS_A_BATCH = 8;
/** `items` in parts of `size`, in order. */
const inParts = <T>(items: T[], size: number): T[][] =>
  Array.from(
    { length: Math.ceil(items.length / size) },
    (_, n) => items.slice(n * size, (n + 1) * size),
  );
/** A memory's erase: its entry's sequence number, and when (Unix ms). */
type Erase = { erased: number; at: number };
/** A memory's place in the log: its entry's sequence number, or its erase. */
type Place = number | Erase;
const encoder = new TextEncoder();

const busy = () =>
  new SvcError("backend_unavailable", "The namespace's log is busy; try again", {
    headers: { "retry-after": "1" },
  });
const notBlind = () =>
  new SvcError("not_found", "This namespace is not operator-blind (enable it first)");
/** What every call answers about a namespace whose erase was cut short. */
const erasing = (namespace?: string) =>
  new SvcError(
    "conflict",
    `${namespace === undefined ? "This namespace" : `Namespace ${JSON.stringify(namespace)}`} ` +
      "is being erased: erase it again (svc blind erase, or DELETE /api/blind) to finish",
    { details: { reason: "erasing" } },
  );

/** Operator-blind namespaces over a `StateStore`; see the module documentation. */
export class BlindLog {
  #state: StateStore;
  #names: Promise<CryptoKey>;
  #owners: Promise<CryptoKey>;
  #nameSeal: Promise<CryptoKey>;
  #tags = new LruMap<string, string>(TAGS_KEPT);
  #identity: RelayerIdentity;
  #now: () => number;

  constructor(
    state: StateStore,
    secret: Uint8Array<ArrayBuffer>,
    identity: RelayerIdentity,
    now: () => number = Date.now,
  ) {
    this.#state = state;
    this.#names = tagKey(secret, "blind namespaces");
    this.#owners = tagKey(secret, "blind owners");
    this.#nameSeal = hkdfMaster(secret).then((master) =>
      deriveAesKey(master, "svc-blind-names-v1", "blind namespace names")
    );
    this.#identity = identity;
    this.#now = now;
  }

  /** Where the namespace's entries are filed; the tags of recent namespaces are kept. */
  async #prefix(owner: string, namespace: string): Promise<StateKey> {
    const name = `${owner}\n${namespace}`;
    let tag = this.#tags.get(name);
    if (tag === undefined) this.#tags.set(name, tag = await tagOf(await this.#names, name));
    return ["blind", tag];
  }

  /** Where the sealed name of the namespace at `at` is filed, and what its seal is bound to. */
  async #nameKey(owner: string, at: StateKey) {
    const ownerTag = await tagOf(await this.#owners, owner);
    return { key: ["blind-names", ownerTag, at[1]], aad: encoder.encode(`${owner}\n${at[1]}`) };
  }

  /**
   * The owner's operator-blind namespaces, with their counts, sorted by name; one whose erase was
   * cut short says so.
   */
  async namespaces(owner: string): Promise<BlindNamespace[]> {
    const key = await this.#nameSeal;
    const prefix = ["blind-names", await tagOf(await this.#owners, owner)];
    const found: BlindNamespace[] = [];
    for await (const entry of this.#state.list<Uint8Array<ArrayBuffer>>({ prefix })) {
      const at = ["blind", entry.key[2]];
      const head = await this.#state.get<BlindHead>([...at, "head"]);
      if (!head) continue;
      const aad = encoder.encode(`${owner}\n${at[1]}`);
      const namespace = new TextDecoder().decode(await openBytes(key, entry.value, aad));
      const count = head.value.count ?? await this.#held(at);
      const { createdAt, erasing } = head.value;
      found.push({ namespace, count, createdAt, ...(erasing && { erasing }) });
    }
    return found.sort((a, b) => a.namespace < b.namespace ? -1 : 1);
  }

  /** How many memories the log at `at` holds (its erased ids left out), counted one by one. */
  async #held(at: StateKey): Promise<number> {
    let held = 0;
    for await (const { value } of this.#state.list<Place>({ prefix: [...at, "id"] })) {
      if (typeof value === "number") held++;
    }
    return held;
  }

  /**
   * Makes `namespace` operator-blind with `manifest`, and lets in the key `publicKey` with its
   * wrapped content key (and every key `sealedKey`'s cipher lets read, when given); 409
   * `conflict` when it is already.
   */
  async enable(
    owner: string,
    namespace: string,
    manifest: BlindManifest,
    wrap: { publicKey: string; wrapped: Uint8Array },
    sealedKey?: SealedContentKey,
  ): Promise<BlindHead> {
    const at = await this.#prefix(owner, namespace);
    const head: BlindHead = {
      seq: 0,
      manifest,
      createdAt: this.#now(),
      count: 0,
      ...(sealedKey && { sealedKey }),
    };
    const name = await this.#nameKey(owner, at);
    const sealed = await sealBytes(await this.#nameSeal, encoder.encode(namespace), name.aad);
    const done = await this.#state.batch()
      .check([...at, "head"], null)
      .set([...at, "head"], head)
      .set([...at, "wrap", wrap.publicKey], wrap.wrapped)
      .set(name.key, sealed)
      .commit();
    if (done) return head;
    if ((await this.#state.get<BlindHead>([...at, "head"]))?.value.erasing) throw erasing();
    throw new SvcError("conflict", "This namespace is operator-blind already");
  }

  /** The namespace's head, and the content key wrapped for `publicKey` (absent: not let in). */
  async head(
    owner: string,
    namespace: string,
    publicKey: string,
  ): Promise<{ head: BlindHead; wrapped?: Uint8Array } | null> {
    const at = await this.#prefix(owner, namespace);
    const [head, wrap] = await this.#state.getMany<unknown>([
      [...at, "head"],
      [...at, "wrap", publicKey],
    ]);
    if (!head) return null;
    if ((head.value as BlindHead).erasing) throw erasing();
    const wrapped = wrap?.value as Uint8Array | undefined;
    return { head: head.value as BlindHead, ...(wrapped && { wrapped }) };
  }

  /** Those of the owner's `namespaces` that are operator-blind. */
  async blindAmong(owner: string, namespaces: string[]): Promise<string[]> {
    const heads = await this.#heads(owner, namespaces);
    return namespaces.filter((_, i) => heads[i] !== null);
  }

  /** The heads of the owner's `namespaces` (`null`: not operator-blind), in order. */
  async #heads(owner: string, namespaces: string[]) {
    const keys = await Promise.all(
      namespaces.map(async (namespace) => [...await this.#prefix(owner, namespace), "head"]),
    );
    return await this.#state.getMany<BlindHead>(keys);
  }

  /**
   * Throws 409 `conflict` (`reason: "operator_blind"`) when one of `namespaces` is
   * operator-blind: the relayer can neither take nor read its text (`reason: "erasing"` while
   * an erase of it is unfinished).
   */
  async refuseBlind(owner: string, namespaces: string[]): Promise<void> {
    const heads = await this.#heads(owner, namespaces);
    const at = heads.findIndex((head) => head !== null);
    if (at < 0) return;
    const blind = namespaces[at];
    if (heads[at]!.value.erasing) throw erasing(blind);
    throw new SvcError(
      "conflict",
      `Namespace ${JSON.stringify(blind)} is operator-blind: the relayer cannot read or take its ` +
        "text. Use a client that reads it on your machine: svc-mcp --blind, svc blind or " +
        "BlindMemory",
      { details: { reason: "operator_blind" } },
    );
  }

  /**
   * Lets in `publicKey` with its wrapped content key. Only the key `caller` may replace its own
   * wrapped key; another key's is never replaced (409), so no key of the account can take the
   * namespace from the devices let in.
   */
  async letIn(
    owner: string,
    namespace: string,
    publicKey: string,
    wrapped: Uint8Array,
    caller: string,
  ) {
    const at = await this.#prefix(owner, namespace);
    const key = [...at, "wrap", publicKey];
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const head = await this.#existing(at);
      if (publicKey !== caller && await this.#state.get(key)) {
        throw new SvcError("conflict", "This key is let in already; it keeps the key it has");
      }
      const batch = this.#state.batch().check([...at, "head"], head.version);
      if (publicKey !== caller) batch.check(key, null);
      if (await batch.set(key, wrapped).commit()) return;
    }
    throw busy();
  }

  /**
   * Appends `entries` in one atomic batch, numbered after the head; an entry whose id the log
   * holds already (a retried append), or held once and erased, is skipped. Resolves to the new
   * head's sequence number.
   */
  async append(owner: string, namespace: string, entries: BlindEntry[]): Promise<number> {
    const at = await this.#prefix(owner, namespace);
    return await this.#committed(at, async (head, batch) => {
      const held = await this.#state.getMany<Place>(entries.map(({ id }) => [...at, "id", id]));
      let seq = head.seq;
      const fresh = new Set<string>();
      entries.forEach(({ id, sealed }, i) => {
        // Held, or erased: an erased memory stays erased, whatever is sent again.
        if (held[i]?.value !== undefined || fresh.has(id)) return;
        fresh.add(id);
        seq++;
        batch.set([...at, "log", seq], { id, sealed } satisfies Stored)
          .set([...at, "id", id], seq);
      });
      if ((head.count ?? 0) + fresh.size > MAX_BLIND_ENTRIES) {
        throw new SvcError(
          "insufficient_storage",
          `An operator-blind namespace holds at most ${MAX_BLIND_ENTRIES} memories. Erase ` +
            "some or use another namespace",
          { details: { reason: "namespace_full" } },
        );
      }
      return { seq, added: fresh.size };
    });
  }

  /**
   * Appends `entry`, a new version of the memory `id`, and erases `id`'s entry in the same batch
   * (a tombstone after it); resolves to the head's sequence number and the erase's receipt. Of two
   * versions of one memory only one lands: 409 when `id` was erased or replaced meanwhile, and
   * nothing is appended; 404 when the log never held it. Sent again once it landed, it answers
   * the same receipt.
   */
  async replace(
    owner: string,
    namespace: string,
    entry: BlindEntry,
    id: string,
  ): Promise<{ seq: number; receipt: EraseReceipt }> {
    const at = await this.#prefix(owner, namespace);
    let erase: Erase | undefined;
    const seq = await this.#committed(at, async (head, batch) => {
      const places = await this.#state.getMany<Place>([[...at, "id", entry.id], [...at, "id", id]]);
      const [held, place] = places.map((found) => found?.value);
      if (place === undefined) throw new SvcError("not_found", "No such memory");
      if (held !== undefined && typeof place !== "number") {
        erase = place; // landed already: this is the same replace sent again
        return { seq: head.seq, added: 0 };
      }
      if (held !== undefined || typeof place !== "number") {
        throw new SvcError(
          "conflict",
          `Cannot update memory ${id}: it was erased or updated meanwhile`,
        );
      }
      erase = { erased: place, at: this.#now() };
      const added: Stored = { id: entry.id, sealed: entry.sealed };
      batch.set([...at, "log", head.seq + 1], added).set([...at, "id", entry.id], head.seq + 1)
        .delete([...at, "log", place])
        .set([...at, "id", id], erase satisfies Place)
        .set([...at, "log", head.seq + 2], { id, erased: erase.at } satisfies Stored);
      return { seq: head.seq + 2, added: 0 };
    });
    return { seq, receipt: await this.#receipt(owner, id, erase!) };
  }

  /**
   * The records after `after`, at most `limit` and about `MAX_BLIND_PAGE_BYTES`, oldest first, and
   * the head.
   */
  async read(
    owner: string,
    namespace: string,
    after: number,
    limit: number,
  ): Promise<{ head: BlindHead; records: BlindRecord[] }> {
    const at = await this.#prefix(owner, namespace);
    const head = (await this.#existing(at)).value;
    const records: BlindRecord[] = [];
    const selector = { prefix: [...at, "log"], start: [...at, "log", after + 1] };
    let bytes = 0;
    for await (const { key, value } of this.#state.list<Stored>(selector, { limit })) {
      if (bytes > MAX_BLIND_PAGE_BYTES) break;
      bytes += value.sealed?.byteLength ?? 0;
      const seq = key[key.length - 1] as number;
      records.push(
        value.sealed
          ? { seq, id: value.id, sealed: value.sealed }
          : { seq, id: value.id, erased: value.erased! },
      );
    }
    return { head, records };
  }

  /**
   * Erases the memory `id`: its entry is deleted and a tombstone appended in one batch, and the
   * relayer signs a receipt (`blob_id` names the log entry). Erased already, it answers that
   * erase's receipt again. `null`: the log never held such an entry.
   */
  async erase(owner: string, namespace: string, id: string): Promise<EraseReceipt | null> {
    const at = await this.#prefix(owner, namespace);
    let erase: Erase | undefined;
    await this.#committed(at, async (head, batch) => {
      const place = (await this.#state.get<Place>([...at, "id", id]))?.value;
      if (typeof place !== "number") {
        erase = place;
        return { seq: head.seq, added: 0 };
      }
      erase = { erased: place, at: this.#now() };
      batch.delete([...at, "log", place])
        .set([...at, "id", id], erase satisfies Place)
        .set([...at, "log", head.seq + 1], { id, erased: erase.at } satisfies Stored);
      return { seq: head.seq + 1, added: -1 };
    });
    return erase ? await this.#receipt(owner, id, erase) : null;
  }

  /** The relayer's signed receipt for the erase of the memory `id`, whose entry was `erased`. */
  #receipt(owner: string, id: string, { erased, at }: Erase): Promise<EraseReceipt> {
    return this.#identity.receipt({
      memory_id: id,
      owner,
      blob_id: `blind-log:${erased}`,
      erased_at: new Date(at).toISOString(),
    });
  }

  /** `eraseNamespace` where the namespace is operator-blind; no receipt where it is not. */
  eraseIfBlind(owner: string, namespace: string): Promise<EraseReceipt[]> {
    return unlessNotBlind(this.eraseNamespace(owner, namespace), []);
  }

  /** `erase` where the namespace is operator-blind; `null` where it is not. */
  eraseOneIfBlind(owner: string, namespace: string, id: string): Promise<EraseReceipt | null> {
    return unlessNotBlind(this.erase(owner, namespace, id), null);
  }

  /**
   * Erases the namespace: its head is marked first, so it takes nothing more, and the memories
   * the log holds are listed beside it; then every entry, tombstone and wrapped key is deleted,
   * and the list and the head last. Run again after an interruption, it goes on. Resolves to a
   * receipt for each memory listed; 404 when not blind.
   */
  async eraseNamespace(owner: string, namespace: string): Promise<EraseReceipt[]> {
    const at = await this.#prefix(owner, namespace);
    const head = await this.#listed(at);
    const keys: StateKey[] = [];
    const last: StateKey[] = [];
    const live: Listed = [];
    for await (const { key, value } of this.#state.list<Stored | Listed>({ prefix: at })) {
      // A part past the list's end is another erase's, which finished meanwhile.
      if (key[2] === "listed" && (key[3] as number) < head.value.listed!) {
        live.push(...value as Listed);
      }
      if (key[2] !== "head") (key[2] === "listed" ? last : keys).push(key);
    }
    last.push((await this.#nameKey(owner, at)).key, head.key);
    // Each batch checks the head this erase marked: a namespace made again meanwhile (after
    // another erase finished) keeps everything. The list goes with the head, in one batch.
    const room = STATE_LIMITS.batchWrites - 1;
    for (const batch of [...inParts(keys, room), last]) {
      const write = this.#state.batch().check(head.key, head.version);
      for (const key of batch) write.delete(key);
      if (!await write.commit()) break;
    }
    const erasedAt = this.#now();
    const receipts: EraseReceipt[] = [];
    for (const [id, seq] of live) {
      receipts.push(await this.#receipt(owner, id, { erased: seq, at: erasedAt }));
    }
    return receipts;
  }

  /**
   * The head at `at` marked as being erased, with the memories its log holds listed under
   * `[...at, "listed", n]` (once: a head that says `listed` has its list); 404 when not blind.
   */
  async #listed(at: StateKey): Promise<StateEntry<BlindHead>> {
    const head = await this.#marked(at);
    if (head.value.listed !== undefined) return head;
    const live: Listed = [];
    for await (const { key, value } of this.#state.list<Stored>({ prefix: [...at, "log"] })) {
      if (value.sealed) live.push([value.id, key[3] as number]);
    }
    const parts = inParts(live, LISTED_PART);
    // Each part checks the head: once another erase listed the log (and may have deleted some
    // of it since), its list is the one kept.
    for (let n = 0; n < parts.length; n += LISTED_PARTS_A_BATCH) {
      const batch = this.#state.batch().check(head.key, head.version);
      parts.slice(n, n + LISTED_PARTS_A_BATCH).forEach((part, i) =>
        batch.set([...at, "listed", n + i], part)
      );
      if (!await batch.commit()) return await this.#listedAlready(head.key);
    }
    const listed = { ...head.value, listed: parts.length };
    await this.#state.batch().check(head.key, head.version).set(head.key, listed).commit();
    return await this.#listedAlready(head.key);
  }

  /** The head at `key` as an erase listed it; 503 when it is not listed yet, 404 when gone. */
  async #listedAlready(key: StateKey): Promise<StateEntry<BlindHead>> {
    const head = await this.#state.get<BlindHead>(key);
    if (head?.value.listed === undefined) throw head ? busy() : notBlind();
    return head;
  }

  /** The head at `at` marked as being erased (it takes nothing more); 404 when not blind. */
  async #marked(at: StateKey): Promise<StateEntry<BlindHead>> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const head = await this.#state.get<BlindHead>([...at, "head"]);
      if (!head) throw notBlind();
      if (head.value.erasing) return head;
      await this.#state.batch().check(head.key, head.version)
        .set(head.key, { ...head.value, erasing: true }).commit();
    }
    throw busy();
  }

  /** The head entry of the namespace at `at`; 404 when it is not operator-blind (or erased). */
  async #existing(at: StateKey) {
    const entry = await this.#state.get<BlindHead>([...at, "head"]);
    if (!entry) throw notBlind();
    if (entry.value.erasing) throw erasing();
    return entry;
  }

  /**
   * Commits what `write` adds to a batch that checks the head and moves it to the sequence
   * number `write` returns (unchanged: nothing is written), with the entries it `added` counted,
   * again while another writer races. Every change moves the head, so its check alone keeps
   * what `write` read current.
   */
  async #committed(
    at: StateKey,
    write: (head: BlindHead, batch: StateBatch) => Promise<{ seq: number; added: number }>,
  ): Promise<number> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const { value: head, version } = await this.#existing(at);
      const batch = this.#state.batch().check([...at, "head"], version);
      const { seq, added } = await write(head, batch);
      if (seq === head.seq) return seq;
      const count = head.count === undefined ? undefined : head.count + added;
      if (await batch.set([...at, "head"], { ...head, seq, count }).commit()) return seq;
    }
    throw busy();
  }
}

/** What `work` resolves to, or `none` where its namespace is not operator-blind (404). */
async function unlessNotBlind<T>(work: Promise<T>, none: T): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SvcError && error.code === "not_found") return none;
    throw error;
  }
}
