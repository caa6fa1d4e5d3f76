/**
 * Operator-blind memory: the client embeds, indexes, ranks and decrypts; the relayer keeps only
 * entries it cannot open (`/api/blind`). A `BlindMemory` serves one namespace. It syncs the
 * namespace's log into an index in memory, then recalls with the relayer's own recall
 * (`createRecall`) over it, so the ranking is the relayer's in normal mode. Before each recall it
 * asks for the log's head: one signed request when nothing changed.
 *
 * @example
 * ```ts
 * const memory = await BlindMemory.open({ baseUrl, privateKey, embedder, namespace: "private" });
 * await memory.enable(); // once, on the first device
 * await memory.remember([{ text: "I am vegetarian", tags: ["diet"] }]);
 * const { results } = await memory.recall("what do I eat?");
 * await memory.letIn(otherDevicePublicKey); // another key of the account may read it too
 * ```
 * @module
 */
import { addressOf, sha256Hex, timingSafeEqual } from "@svc/util/keys";
import { inTurn } from "@svc/util/in_turn";
import { chachaOpen, chachaSeal, concatBytes } from "@svc/util/sealing";
import type { Cipher, Embedder, MemoryInfo, Reranker, VectorStore } from "../backends/types.ts";
import { MemoryVectorStore } from "../backends/memory.ts";
import { SvcError } from "../errors.ts";
import { integerValue, newTagsValue, textValue, threadValue, timeValue } from "../validate.ts";
import { MAX_TEXT_BYTES } from "../text_limits.ts";
import { timeOrderedId } from "../ids.ts";
import { AttributeSeal, type MemoryAttributes } from "../pipeline/attributes.ts";
import { MemoryIndexer } from "../pipeline/memory_indexer.ts";
import { textHeldBy } from "../pipeline/remember.ts";
import { LexicalIndex } from "../ranking/lexicon.ts";
import { TermHasher } from "../ranking/terms.ts";
import type { RecallResults } from "../services/memory_answers.ts";
import type { MemoryPage } from "../services/memory_view.ts";
import { MAX_BLIND_APPEND, MAX_BLIND_APPEND_BYTES } from "../services/blind_log.ts";
import type { EraseReceipt } from "../services/receipts.ts";
import type { NamespaceErase as NamespaceErasure } from "../services/lifecycle.ts";
import type { MemoryReader } from "../services/reader.ts";
import { createRecall } from "../services/recall.ts";
import { BlindCache, type LogRecord } from "./blind_cache.ts";
import { type BlindKeys, blindKeys, unwrapWith, wrapFor } from "./blind_keys.ts";
import { segment, SignedSender, type SvcClientOptions } from "./signed_sender.ts";
import type { RecallOptions } from "./types.ts";
import type { ExportedMemory, ImportLine } from "./portability.ts";

export type { EraseReceipt, ExportedMemory, ImportLine, NamespaceErasure, RecallResults };

/** How to reach the relayer, sign for it and embed. */
export interface BlindMemoryOptions extends SvcClientOptions {
  /**
   * The embedder every client of the namespace runs: its model id is pinned in
   * the namespace's manifest when it is enabled, and checked at each open.
   */
  embedder: Embedder;
  /** The namespace (`"default"` without one). */
  namespace?: string;
  /** The label recorded as `remembered_by.label` of what this client remembers. */
  label?: string;
  /**
   * Where the namespace's vectors are kept on this device (default a `MemoryVectorStore`). The
   * relayer's own encrypted index (`@svc/encrypted-index`), opened in memory, searches ten
   * thousand memories several times faster and ranks exactly as the relayer does.
   */
  vectors?: VectorStore;
  /**
   * A file that keeps the namespace's log on this device, sealed under a key derived from the
   * device's private key: a restart then reads only the log's tail from the relayer.
   */
  cacheFile?: string;
  /**
   * The re-ranker the relayer would use with this embedder, for the same ranking: a relayer
   * puts the GloVe word re-ranker (`@svc/glove-embedder`'s `reranker()`) on sentence models.
   */
  reranker?: Reranker;
  /**
   * A cipher that also seals the namespace's content key when it is enabled (`SealCipher` in
   * network mode): every key of the account the cipher lets read then opens the namespace
   * without being let in, a key removed from the account no longer can, and `forgetAll` has
   * the cipher destroy the content key's key. Devices given it read such a namespace; others
   * need `letIn` as before.
   */
  seal?: Cipher;
}

/** A memory to remember. */
export interface BlindItem {
  /** What to remember. */
  text: string;
  /** Up to 16 tags. */
  tags?: string[];
  /**
   * The conversation or session it comes from: recall lifts a memory with the memories
   * remembered next to it in the same thread, as in normal mode.
   */
  thread?: string;
}

/** The relayer's answer to `GET /api/blind`. */
interface HeadAnswer {
  blind: boolean;
  seq?: number;
  manifest?: { model: string };
  wrapped?: string | null;
  /** The content key as the `seal` cipher sealed it (to a key not let in). */
  sealed_key?: string;
  /** The memory id the sealed content key is bound to. */
  key_id?: string;
}

/** A memory of the namespace, as this device holds it. */
export interface BlindMemoryEntry {
  /** Its id. */
  id: string;
  /** Its text. */
  text: string;
  /** Unix milliseconds. */
  createdAt: number;
  /** Its tags (none: `[]`). */
  tags: string[];
  /** Its thread, if it has one. */
  thread?: string;
  /** The memory it is a new version of (`update`), if any. */
  supersedes?: string;
}

/** What `update` answers. */
export interface BlindUpdate {
  /** The new version's id. */
  id: string;
  /** The memory it replaced. */
  supersedes: string;
  /** The relayer's signed receipt for the replaced memory's entry. */
  receipt: EraseReceipt;
}

/** What an entry holds besides its vector. */
interface EntryHeader {
  text: string;
  createdAt: number;
  tags?: string[];
  thread?: string;
  supersedes?: string;
  terms: string[];
  info: MemoryInfo;
}

/** A memory to seal and append. */
interface Sealable {
  id: string;
  text: string;
  createdAt: number;
  attributes: MemoryAttributes;
  supersedes?: string;
}

/** The owner every keyed derivation of the client uses: the content key is the namespace's own. */
const OWNER = "blind";
const PAGE = 1000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The index of one namespace, in memory, and recall over it. */
class LocalIndex {
  /** Each memory's text, time and tags, by id. */
  readonly memories = new Map<string, BlindMemoryEntry>();
  readonly vectors: VectorStore;
  readonly lexicon: LexicalIndex;
  readonly indexer: MemoryIndexer;
  readonly recall: ReturnType<typeof createRecall>["recall"];
  readonly #hasher: TermHasher;

  constructor(
    embedder: Embedder,
    vectors: VectorStore,
    hasher: TermHasher,
    attributeSeal: AttributeSeal,
    reranker?: Reranker,
  ) {
    this.vectors = vectors;
    this.#hasher = hasher;
    const lexicon = this.lexicon = new LexicalIndex(vectors);
    const memories = this.memories;
    this.indexer = new MemoryIndexer({ embedder, vectors, hasher, lexicon, attributeSeal });
    const reader: MemoryReader = {
      read: (_owner, memory) => Promise.resolve(memories.get(memory.id)?.text ?? null),
      keep: () => {},
      forget: () => {},
      holds: (_owner, id) => memories.has(id),
    };
    const deps = { embedder, reader, vectors, hasher, lexicon, attributeSeal, now: Date.now };
    this.recall = createRecall({ ...deps, reranker: () => reranker }).recall;
  }

  /**
   * The digest of `text` in `thread` (the duplicate rule's, `TermHasher.digest`), and the memory
   * of `namespace` that holds it, if any.
   */
  async holder(namespace: string, text: string, thread?: string) {
    const digest = await this.#hasher.digest(OWNER, text, thread);
    const index = await this.lexicon.namespace(OWNER, namespace);
    return { digest, id: index.duplicateOf(digest, Date.now()) };
  }

  async drop(namespace: string, ids: string[]) {
    await this.vectors.delete(ids);
    await this.lexicon.remove(OWNER, namespace, ids);
    for (const id of ids) this.memories.delete(id);
  }
}

/**
 * A namespace opened: its content key (as `wrapped` for this client; `null`: opened through the
 * `seal` cipher alone), the keys derived from it, its index, and the last record read.
 */
interface Opened {
  wrapped: string | null;
  contentKey: Uint8Array<ArrayBuffer>;
  keys: BlindKeys;
  index: LocalIndex;
  seq: number;
  /** The memories erased or replaced, whose entries are never taken again. */
  gone: Set<string>;
  /** The record taken last: the log must still hold it, or its erase (see `#sameLast`). */
  last?: LogRecord;
  cache?: BlindCache;
}

/** One operator-blind namespace, read and written on this client; see the module docs. */
export class BlindMemory {
  /** The namespace it serves. */
  readonly namespace: string;
  #sender: SignedSender;
  #options: BlindMemoryOptions;
  #vectors: VectorStore;
  #owner?: string;
  #opened?: Opened;
  /** Runs the syncs one after another (see `sync`). */
  readonly #syncs = inTurn();

  private constructor(options: BlindMemoryOptions, sender: SignedSender) {
    this.namespace = options.namespace ?? "default";
    this.#sender = sender;
    this.#options = options;
    this.#vectors = options.vectors ?? new MemoryVectorStore(options.embedder.dimensions);
  }

  /** A client of the namespace; nothing is sent until it is used. */
  static async open(options: BlindMemoryOptions): Promise<BlindMemory> {
    return new BlindMemory(options, await SignedSender.open(options));
  }

  /** The public key of this client's delegate key (64 hex characters). */
  get publicKey(): string {
    return this.#sender.publicKey;
  }

  async #json<T>(method: "GET" | "POST" | "PUT" | "DELETE", path: string, body?: unknown) {
    const content = body === undefined ? undefined : { body: JSON.stringify(body) };
    return await (await this.#sender.send(method, path, content)).json() as T;
  }

  #query(extra: Record<string, string> = {}) {
    return new URLSearchParams({ namespace: this.namespace, ...extra }).toString();
  }

  /**
   * Makes the namespace operator-blind, with a fresh content key wrapped for this client's key;
   * 409 `conflict` when it is already. Its manifest pins this client's embedder.
   */
  async enable(): Promise<void> {
    const contentKey = crypto.getRandomValues(new Uint8Array(32));
    const wrapped = (await wrapFor(contentKey, this.publicKey, this.namespace)).toBase64();
    const keyId = timeOrderedId();
    const { seal } = this.#options;
    const sealed = seal &&
      await seal.encrypt(await this.#ownerAddress(), contentKey, { memoryId: keyId });
    await this.#json("POST", "/api/blind", {
      namespace: this.namespace,
      model: this.#options.embedder.model,
      wrapped,
      ...(sealed && { sealed_key: sealed.toBase64(), key_id: keyId }),
    });
    this.#opened = await this.#openWith(contentKey, wrapped);
  }

  /** The keys of the content key `contentKey`, and the index of what the cache holds. */
  async #openWith(contentKey: Uint8Array<ArrayBuffer>, wrapped: string | null): Promise<Opened> {
    const keys = await blindKeys(contentKey);
    const hasher = await TermHasher.fromSecret(keys.terms);
    const seal = await AttributeSeal.fromSecret(keys.attributes);
    const { cacheFile, reranker } = this.#options;
    const index = new LocalIndex(this.#options.embedder, this.#vectors, hasher, seal, reranker);
    const cache = cacheFile === undefined ? undefined : await BlindCache.open(
      cacheFile,
      this.#options.privateKey,
      this.namespace,
      await sha256Hex(keys.entries),
    );
    const opened: Opened = {
      wrapped,
      contentKey,
      keys,
      index,
      seq: 0,
      gone: new Set(),
      ...(cache && { cache }),
    };
    const cached = await cache?.read() ?? [];
    if (cached.length > 0) await this.#take(opened, cached);
    return opened;
  }

  /** Opens the namespace with the content key `head` gives this client's key. */
  async #open(head: HeadAnswer) {
    const { contentKey, wrapped } = await this.#contentKeyOf(head);
    return await this.#openWith(contentKey, wrapped ?? await this.#wrapForSelf(contentKey));
  }

  /**
   * The content key `head` gives this client's key: unwrapped, or opened with the `seal` cipher
   * (then `wrapped` is absent). 404 when the namespace is not blind, 409 for another embedder,
   * 403 for a key not let in.
   */
  async #contentKeyOf(head: HeadAnswer) {
    if (!head.blind) {
      throw new SvcError("not_found", `Namespace "${this.namespace}" is not operator-blind`);
    }
    const { model } = head.manifest!;
    if (model !== this.#options.embedder.model) {
      throw new SvcError(
        "conflict",
        `Namespace "${this.namespace}" is read with the embedder "${model}", not ` +
          `"${this.#options.embedder.model}"`,
      );
    }
    if (head.wrapped) {
      const wrapped = Uint8Array.fromBase64(head.wrapped);
      const contentKey = await unwrapWith(wrapped, this.#options.privateKey, this.namespace)
        .catch((cause) => {
          throw new SvcError(
            "conflict",
            "The content key the relayer holds for this key does not open: it was altered, or " +
              "wrapped for another key. Use another delegate key, let in from a device that " +
              "holds the content key",
            { cause },
          );
        });
      return { contentKey, wrapped: head.wrapped };
    }
    const { seal } = this.#options;
    if (!head.sealed_key || !seal) {
      throw new SvcError(
        "forbidden",
        "This key is not let in to the namespace: let it in from a device that is (letIn)" +
          (head.sealed_key ? ", or open it with the cipher that sealed its key (seal)" : ""),
      );
    }
    const contentKey = await seal.decrypt(
      await this.#ownerAddress(),
      Uint8Array.fromBase64(head.sealed_key),
      { credentials: { delegatePrivateKey: this.#options.privateKey }, memoryId: head.key_id },
    );
    return { contentKey, wrapped: undefined };
  }

  /**
   * Checks that `head`, whose wrapped key changed, still gives the content key `opened` holds:
   * 409 otherwise. A device never takes another content key for a namespace it holds (the
   * relayer could offer one of its own making); it keeps the one it has.
   */
  async #sameKey(opened: Opened, head: HeadAnswer) {
    const { contentKey } = await this.#contentKeyOf(head);
    if (!timingSafeEqual(contentKey.toHex(), opened.contentKey.toHex())) {
      throw new SvcError(
        "conflict",
        `The relayer offers namespace "${this.namespace}" a content key this device never held: ` +
          "the namespace was erased and made again, or the relayer substituted the key. Nothing " +
          "was read or written with it. Only if you made it again yourself, open it anew (a new " +
          "client, without the old cache file)",
      );
    }
    opened.wrapped = head.wrapped ?? null;
  }

  /**
   * Lets this key in with `contentKey`, so that later opens need no cipher; resolves to the
   * wrapped key, or `null` for a key whose scope may not write (it opens through the cipher).
   */
  async #wrapForSelf(contentKey: Uint8Array<ArrayBuffer>): Promise<string | null> {
    try {
      return await this.#wrapAndLetIn(contentKey, this.publicKey);
    } catch (error) {
      if (error instanceof SvcError && error.code === "forbidden") return null;
      throw error;
    }
  }

  /** The address of the account's owner, which the `seal` cipher binds the content key to. */
  async #ownerAddress(): Promise<string> {
    return this.#owner ??= (await this.#json<{ owner: string }>("GET", "/api/whoami")).owner;
  }

  /**
   * Brings the local index up to the log's head: one signed request when nothing changed, then
   * the records after the last one read, a page at a time. Resolves to the head's number. Syncs
   * run one after another, so no record is taken twice.
   */
  sync(): Promise<number> {
    return this.#syncs(() => this.#syncOnce());
  }

  async #syncOnce(): Promise<number> {
    const headOf = () => this.#json<HeadAnswer>("GET", `/api/blind?${this.#query()}`);
    let head = await headOf();
    const held = this.#opened;
    if (held && held.wrapped !== (head.wrapped ?? null)) await this.#sameKey(held, head);
    const opened = this.#opened ??= await this.#open(head);
    // Just opened from a cache file another process wrote to after the head was read: read anew.
    if (!held && head.seq! < opened.seq) head = await headOf();
    if (head.seq! < opened.seq) {
      throw new SvcError(
        "conflict",
        `The log of namespace "${this.namespace}" went back from record ${opened.seq} to ` +
          `${head.seq}: the relayer lost or holds back memories this device has read. Nothing ` +
          "was changed",
      );
    }
    // The first page starts at the record taken last, to find it again (see `#sameLast`).
    let last = opened.last;
    while (opened.seq < head.seq!) {
      const after = String(last ? last.seq - 1 : opened.seq);
      const page = await this.#json<{ records: LogRecord[] }>(
        "GET",
        `/api/blind/entries?${this.#query({ after, limit: String(PAGE) })}`,
      );
      const records = last ? this.#sameLast(last, page.records, head.seq!) : page.records;
      last = undefined;
      if (records.length === 0) break;
      await this.#take(opened, records);
      await opened.cache?.append(records);
    }
    return opened.seq;
  }

  /**
   * `records`, read from the record taken last (`last`) on, without it once checked: the log must
   * hold it as it was, or, for an entry erased since, its tombstone (in these records, unless
   * they stop short of the head `seq`). A log rolled back and then written past where this
   * device had read (a relayer restored from a backup) holds another record there: 409, rather
   * than devices that disagree for good.
   */
  #sameLast(last: LogRecord, records: LogRecord[], seq: number): LogRecord[] {
    if (records.length === 0) return records; // held back: nothing to take
    const [first] = records;
    const same = first.seq === last.seq && first.id === last.id &&
      first.sealed === last.sealed && first.erased_at === last.erased_at;
    if (same) return records.slice(1);
    const erased = first.seq !== last.seq && last.sealed !== undefined &&
      (records.at(-1)!.seq < seq || records.some((r) => r.id === last.id && !r.sealed));
    if (erased) return records;
    throw new SvcError(
      "conflict",
      `The log of namespace "${this.namespace}" no longer holds record ${last.seq} as this ` +
        "device read it: the relayer went back and took other memories in its place (a " +
        "restore from a backup?). Nothing was changed",
    );
  }

  /**
   * Takes `records` in log order. Every memory they erase (a tombstone) is dropped first, then
   * the entries held are indexed. A memory erased stays so: an entry of it the log holds again
   * later (sent again by a relayer that lies) is not taken. A new version's `supersedes` hides
   * nothing by itself: only the log's erase of the old entry does, which needs the erase scope.
   */
  async #take(opened: Opened, records: LogRecord[]) {
    const { index, keys } = opened;
    const held = new Map<string, ReturnType<typeof openEntry>>();
    const erased = new Set<string>();
    for (const { id, sealed } of records) {
      if (!sealed) {
        held.delete(id);
        erased.add(id);
        opened.gone.add(id);
      } else if (!opened.gone.has(id)) held.set(id, openEntry(keys, this.namespace, id, sealed));
    }
    await index.drop(this.namespace, [...erased]);
    const rows = [...held].map(([id, { header, vector }]) => {
      const { text, createdAt, tags = [], thread, supersedes } = header;
      index.memories.set(id, {
        id,
        text,
        createdAt,
        tags,
        ...(thread !== undefined && { thread }),
        ...(supersedes && { supersedes }),
      });
      return {
        memoryId: id,
        owner: OWNER,
        namespace: this.namespace,
        blobId: id,
        createdAt,
        prepared: { vector, terms: header.terms, info: header.info },
      };
    });
    await index.indexer.indexMany(rows);
    opened.last = records[records.length - 1];
    opened.seq = opened.last.seq;
  }

  /**
   * A memory this client remembers at `createdAt`, with `tags`, `thread`, and this key as who
   * remembered it.
   */
  #sealable(text: string, createdAt: number, tags?: string[], thread?: string | null): Sealable {
    // Checked as the relayer checks a normal memory's, so that every device can read it back.
    text = textValue(text, "text", MAX_TEXT_BYTES);
    tags = newTagsValue(tags);
    thread = threadValue(thread ?? undefined);
    const rememberedBy = { address: addressOf(this.publicKey), label: this.#options.label ?? "" };
    const attributes = {
      ...(tags?.length && { tags }),
      ...(thread !== undefined && { thread }),
      rememberedBy,
    };
    return { id: timeOrderedId(createdAt), text, createdAt, attributes };
  }

  /**
   * Embeds, seals and appends `items`; resolves to their memory ids, in order. As in normal
   * mode, a text the namespace holds in the same thread is a duplicate: its memory's id answers,
   * and nothing is appended (a remember sent again adds nothing).
   */
  async remember(items: BlindItem[]): Promise<string[]> {
    const createdAt = Date.now();
    return await this.#appendNew(
      items.map(({ text, tags, thread }) => this.#sealable(text, createdAt, tags, thread)),
    );
  }

  /** Appends the memories whose text is not a duplicate; each one's id, or its holder's. */
  async #appendNew(memories: Sealable[]): Promise<string[]> {
    await this.sync();
    const { index } = this.#opened!;
    const taken = new Map<string, string>();
    const fresh: Sealable[] = [];
    const ids: string[] = [];
    for (const memory of memories) {
      const { text, attributes: { thread } } = memory;
      const { digest, id } = await index.holder(this.namespace, text, thread);
      const holder = id ?? taken.get(digest);
      ids.push(holder ?? memory.id);
      if (holder) continue;
      fresh.push(memory);
      taken.set(digest, memory.id);
    }
    if (fresh.length) await this.#append(fresh);
    return ids;
  }

  /**
   * Moves the namespace's memories stored before it was operator-blind into its log. Each is
   * read through the relayer once, sealed here under its own id with its tags, time and
   * provenance, and erased from the relayer's index only once appended. Run again after an
   * interruption, it goes on where it stopped. Resolves to how many it moved; a memory whose
   * client encrypted it (manual remember) stays where it is.
   */
  async moveIn(): Promise<number> {
    await this.sync();
    let moved = 0;
    let cursor: string | null = null;
    do {
      const query = this.#query({ limit: "100", ...(cursor && { cursor }) });
      const page: MemoryPage = await this.#json("GET", `/api/memories?${query}`);
      const movable = page.memories.filter((memory) => memory.text !== null);
      await this.#append(movable.map((memory) => ({
        id: memory.id,
        text: memory.text!,
        createdAt: Date.parse(memory.created_at),
        attributes: {
          ...(memory.tags.length && { tags: memory.tags }),
          ...(memory.thread !== null && { thread: memory.thread }),
          ...(memory.remembered_by && {
            rememberedBy: {
              ...memory.remembered_by,
              at: Date.parse(memory.remembered_by.at),
            },
          }),
        },
      })));
      for (const { id } of movable) await this.#json("DELETE", `/api/memories/${segment(id)}`);
      moved += movable.length;
      cursor = page.next_cursor;
    } while (cursor);
    return moved;
  }

  /**
   * Embeds and seals `memories`, appends them in as few requests as the relayer's limits allow,
   * and syncs. The caller synced before. With `replaces` (one memory, its new version), that
   * memory's entry is erased in the same write, and its receipt answers.
   */
  async #append(memories: Sealable[], replaces?: string): Promise<EraseReceipt | undefined> {
    const opened = this.#opened!;
    const keyed = memories.map(({ id, supersedes: _, ...memory }) => ({
      ...memory,
      memoryId: id,
      owner: OWNER,
      namespace: this.namespace,
    }));
    const prepared = await opened.index.indexer.prepare(keyed);
    const entries = keyed.map((memory, i) => ({
      id: memory.memoryId,
      sealed: sealEntry(opened.keys, this.namespace, memory.memoryId, {
        text: memory.text,
        createdAt: memory.createdAt,
        ...(memory.attributes.tags?.length && { tags: memory.attributes.tags }),
        ...(memory.attributes.thread !== undefined && { thread: memory.attributes.thread }),
        ...(memories[i].supersedes && { supersedes: memories[i].supersedes }),
        terms: prepared[i].terms,
        info: prepared[i].info,
      }, prepared[i].vector).toBase64(),
    }));
    let receipt: EraseReceipt | undefined;
    for (const batch of appendBatches(entries)) {
      ({ receipt } = await this.#json<{ receipt?: EraseReceipt }>("POST", "/api/blind/entries", {
        namespace: this.namespace,
        entries: batch,
        ...(replaces && { replaces }),
      }));
    }
    await this.sync();
    return receipt;
  }

  /**
   * The memories that best match `query`, ranked as the relayer ranks in normal mode. The sync
   * check runs while the query is embedded and ranked; when it brought changes, the recall runs
   * again on the index brought up to date.
   */
  async recall(
    query: string,
    options: Omit<RecallOptions, "namespace"> = {},
  ): Promise<RecallResults> {
    const { tags, since, until, minScore, explain } = options;
    // As the relayer's recall takes it.
    const limit = integerValue(options.limit, "limit", 10, 1, 100);
    // As the relayer reads them: ISO 8601, a time without an offset in UTC.
    const time = (at: Date | string | undefined, field: string) =>
      at instanceof Date ? at.getTime() : timeValue(at, field);
    const filter = { tags, since: time(since, "since"), until: time(until, "until") };
    const ask = () =>
      this.#opened!.index.recall(OWNER, query, limit, this.namespace, {
        filter,
        minScore,
        explain,
      });
    const known = this.#opened?.seq;
    if (known === undefined) return await this.sync().then(ask);
    const early = ask().then((answer) => ({ answer }), () => undefined);
    if (await this.sync() === known) {
      const ranked = await early;
      if (ranked) return ranked.answer;
    }
    return await ask();
  }

  /** Erases the memory `id`; the relayer's signed receipt. */
  async forget(id: string): Promise<EraseReceipt> {
    const path = `/api/blind/entries/${segment(id)}?${this.#query()}`;
    const receipt = await this.#json<EraseReceipt>("DELETE", path);
    await this.sync();
    return receipt;
  }

  /**
   * Stores a new version of the memory `id`: its new text, and its tags when given (else the old
   * version's). Every device drops the old version when it takes the new one, and the relayer
   * erases the old entry with a signed receipt. 404 for an id the namespace does not hold.
   */
  async update(id: string, change: { text: string; tags?: string[] }): Promise<BlindUpdate> {
    await this.sync();
    const { index } = this.#opened!;
    const old = index.memories.get(id);
    if (!old) throw new SvcError("not_found", "No such memory");
    // As in normal mode: a text another memory holds in the thread is not taken.
    const holder = (await index.holder(this.namespace, change.text, old.thread)).id;
    if (holder !== undefined && holder !== id) throw new SvcError("conflict", textHeldBy(holder));
    const memory = this.#sealable(change.text, Date.now(), change.tags ?? old.tags, old.thread);
    // The old entry is erased in the same write: of two updates at once, one lands (409). A
    // relayer of an earlier version appends only: the old entry is erased after.
    const receipt = await this.#append([{ ...memory, supersedes: id }], id);
    return { id: memory.id, supersedes: id, receipt: receipt ?? await this.forget(id) };
  }

  /** The memories this device holds after a sync, newest first. */
  async memories(): Promise<BlindMemoryEntry[]> {
    await this.sync();
    return [...this.#opened!.index.memories.values()].sort((a, b) =>
      b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)
    );
  }

  /**
   * The namespace's memories as an export's lines (`svc import` and `importLines` take them),
   * newest first. They hold the texts in clear: keep them as safe as the memories.
   */
  async exportLines(): Promise<ExportedMemory[]> {
    return (await this.memories()).map((memory) => {
      const at = new Date(memory.createdAt).toISOString();
      return {
        text: memory.text,
        tags: memory.tags,
        namespace: this.namespace,
        thread: memory.thread ?? null,
        created_at: at,
        updated_at: at,
        expires_at: null,
        remembered_by: null,
        id: memory.id,
      };
    });
  }

  /**
   * Remembers an export's lines here, with their tags, threads and times (their namespace and
   * expiry are not kept); resolves to each line's memory id. A line whose text the namespace
   * holds in its thread is a duplicate, as in normal mode: that memory's id answers.
   */
  async importLines(lines: ImportLine[]): Promise<string[]> {
    const now = Date.now();
    const memories = lines.map((line, i) => {
      try {
        if (typeof line !== "object" || line === null || Array.isArray(line)) {
          throw new SvcError("bad_request", "a line must be a JSON object");
        }
        const createdAt = timeValue(line.created_at ?? undefined, "created_at") ?? now;
        if (createdAt > now) throw new SvcError("bad_request", "created_at is in the future");
        return this.#sealable(line.text, createdAt, line.tags, line.thread);
      } catch (error) {
        if (!(error instanceof SvcError)) throw error;
        throw new SvcError("bad_request", `line ${i + 1}: ${error.message}`);
      }
    });
    return await this.#appendNew(memories);
  }

  /**
   * Erases the namespace: the relayer deletes its log and its wrapped keys, and it is no longer
   * operator-blind; this device forgets its index and its cache file. A receipt per memory.
   */
  async forgetAll(): Promise<NamespaceErasure> {
    // An erase cut short goes on: it destroyed its sealed key first.
    const head = await this.#json<HeadAnswer>("GET", `/api/blind?${this.#query()}`).catch(
      (error) => {
        if (error instanceof SvcError && error.details.reason === "erasing") return undefined;
        throw error;
      },
    );
    const { seal, cacheFile } = this.#options;
    if (head?.key_id && seal) {
      await seal.erase(await this.#ownerAddress(), [head.key_id], {
        credentials: { delegatePrivateKey: this.#options.privateKey },
      });
    }
    const query = this.#query({ confirm: this.namespace });
    const erased = await this.#json<NamespaceErasure>("DELETE", `/api/blind?${query}`);
    // This device forgets the namespace opened: its index, and its keys.
    const index = this.#opened?.index;
    this.#opened = undefined;
    await index?.drop(this.namespace, [...index.memories.keys()]);
    if (cacheFile) await Deno.remove(cacheFile).catch(() => {});
    return erased;
  }

  /** Lets the account's key `publicKey` (hex) read and write the namespace. */
  async letIn(publicKey: string): Promise<void> {
    if (!/^[0-9a-f]{64}$/i.test(publicKey)) {
      throw new SvcError("bad_request", "The public key must be 64 hex characters");
    }
    await this.sync();
    await this.#wrapAndLetIn(this.#opened!.contentKey, publicKey);
  }

  /** Wraps `contentKey` for the key `publicKey` and stores it; resolves to the wrapped key. */
  async #wrapAndLetIn(contentKey: Uint8Array<ArrayBuffer>, publicKey: string): Promise<string> {
    const wrapped = (await wrapFor(contentKey, publicKey, this.namespace)).toBase64();
    await this.#json("PUT", "/api/blind/keys", {
      namespace: this.namespace,
      public_key: publicKey,
      wrapped,
    });
    return wrapped;
  }
}

/** `entries` in batches the relayer takes in one append (`MAX_BLIND_APPEND` …). */
function appendBatches<E extends { sealed: string }>(entries: E[]): E[][] {
  const batches: E[][] = [];
  let bytes = Infinity;
  for (const entry of entries) {
    const size = entry.sealed.length * 3 / 4;
    const last = batches.at(-1);
    if (!last || last.length === MAX_BLIND_APPEND || bytes + size > MAX_BLIND_APPEND_BYTES) {
      batches.push([entry]);
      bytes = size;
    } else {
      last.push(entry);
      bytes += size;
    }
  }
  return batches;
}

/** The associated data of an entry: its namespace and id. */
const entryData = (namespace: string, id: string) => encoder.encode(`${namespace}\n${id}`);

/** An entry sealed: its header's length (4 bytes), the header as JSON, then the vector. */
function sealEntry(
  keys: BlindKeys,
  namespace: string,
  id: string,
  header: EntryHeader,
  vector: Float32Array,
): Uint8Array<ArrayBuffer> {
  const json = encoder.encode(JSON.stringify(header));
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, json.byteLength);
  const floats = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
  return chachaSeal(keys.entries, concatBytes(length, json, floats), entryData(namespace, id));
}

/**
 * What {@link sealEntry} sealed; 409 when it does not open: the entry was altered or moved, or
 * the content key this device was given is not the one the log was written with.
 */
function openEntry(keys: BlindKeys, namespace: string, id: string, sealed: string) {
  let plain: Uint8Array<ArrayBuffer>;
  try {
    plain = chachaOpen(keys.entries, Uint8Array.fromBase64(sealed), entryData(namespace, id));
  } catch (cause) {
    throw new SvcError(
      "conflict",
      `Entry ${id} of namespace "${namespace}" does not open with the content key this device ` +
        "was given: the relayer altered the log or the key. Nothing was read from it",
      { cause },
    );
  }
  const length = new DataView(plain.buffer).getUint32(0);
  const header = JSON.parse(decoder.decode(plain.subarray(4, 4 + length))) as EntryHeader;
  const vector = new Float32Array(plain.slice(4 + length).buffer);
  return { header, vector };
}
