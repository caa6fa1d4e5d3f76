/**
 * An in-memory index of one owner's namespace (`NamespaceIndex`; every namespace's are
 * `lexicon.ts`): BM25 over keyed term hashes, the order the memories were remembered in (their
 * ids are time-ordered, see `ids.ts`), overall and within each thread (where a corrected memory
 * keeps its first version's place), and the namespace's catalog (each memory's blob, time and
 * `MemoryInfo`: what list, get, filters and duplicates read). It is built from the vector store's
 * rows the first time a namespace is used and kept up to date as memories are indexed and erased.
 *
 * What it answers depends only on the memories it holds, never on the order they were added
 * in or on memories erased before: a namespace built again from the store (after a restart, a
 * reload or compaction of the vector store) ranks exactly as the one kept up to date did.
 */

import type { MemoryInfo, TermsRow } from "../backends/types.ts";
import { MAX_TERMS } from "./terms.ts";
import { lowerBound, topK } from "./top_k.ts";

export interface LexicalHit {
  id: string;
  score: number;
}

/** A memory as the catalog knows it. */
export interface CatalogEntry {
  id: string;
  blobId: string;
  /** Unix milliseconds this version was remembered. */
  createdAt: number;
  info?: MemoryInfo;
}

/** Which memories list and recall keep, besides those hidden (expired, replaced). */
export interface CatalogFilter {
  /** Keyed tag hashes a memory must all carry. */
  tags?: string[];
  /** Unix milliseconds: remembered at or after. */
  since?: number;
  /** Unix milliseconds: remembered before. */
  until?: number;
}

export interface LexicalMatches {
  /** The best `k` memories, best first. */
  hits: LexicalHit[];
  /** The BM25 score of any memory of the namespace (0 when no query term is in it). */
  scoreOf(id: string): number;
  /**
   * The score of a memory of average length holding each query term once: the sum of the
   * query terms' IDF (0 when none is in the namespace).
   */
  ideal: number;
}

// Tuned on LoCoMo's tuning split (bench/retrieval.ts): short memories favour a low b.
const K1 = 0.7;
const B = 0.3;

/**
 * Removed documents an index keeps before it compacts (and no more than it has live ones); an
 * index emptied compacts at once.
 */
const COMPACT_AFTER = 1024;

/**
 * A term's documents and its frequency in each; `removed` is the index's count of removals when
 * the lists last held live documents only.
 */
interface Postings {
  docs: number[];
  counts: number[];
  removed: number;
}

/** Counts of a term in one document are below this: a document has at most `MAX_TERMS` terms. */
const COUNTS = MAX_TERMS + 1;

/** A term in one document only, as one number. */
const single = (doc: number, count: number) => doc * COUNTS + count;

/** The document and count of a `single`. */
const unpack = (packed: number): [number, number] => [Math.floor(packed / COUNTS), packed % COUNTS];

/**
 * About the bytes of V8 heap an index takes per document, per distinct term and per posting:
 * measured on random words (a term in one document: about 116 B) and on short facts.
 */
const BYTES_PER = { document: 750, term: 100, posting: 16 };

/** Terms an index reads in before it lets other work run, while it is built (`build`). */
const TERMS_PER_TURN = 65_536;

/** How much later a text remembered again may expire and still be the memory holding it. */
const EXPIRY_SLACK_MS = 60_000;

/**
 * Whether what expires at `held` lives about as long as what expires at `asked` (Unix
 * milliseconds; absent: never): it never expires, or not a minute before (`EXPIRY_SLACK_MS`).
 */
export function livesAsLong(held: number | undefined, asked: number | undefined): boolean {
  return held === undefined || (asked !== undefined && held >= asked - EXPIRY_SLACK_MS);
}

/** One namespace's index. */
export class NamespaceIndex {
  #ids: string[] = [];
  /** Live document numbers, sorted by id: the order the memories were remembered in. */
  #order: number[] = [];
  /** Thread hash → its live document numbers, in thread order (see `#beforeInThread`). */
  #threads = new Map<string, number[]>();
  #lengths: number[] = [];
  #live: boolean[] = [];
  #entries: CatalogEntry[] = [];
  /** Digest → the live memory with that text. */
  #digests = new Map<string, string>();
  /** Id of a replaced memory → the id of the version that replaced it. */
  #replacedBy = new Map<string, string>();
  /** The reverse of `#replacedBy`: the versions each memory stands for. */
  #replacing = new Map<string, Set<string>>();
  #byId = new Map<string, number>();
  /**
   * term → its postings: a term in one document only (most terms) as one number (`single`),
   * others as parallel lists of document numbers and term frequencies.
   */
  #terms = new Map<string, Postings | number>();
  /**
   * How many (term, document) pairs were indexed since the last compaction, removed documents'
   * included: about what `#terms` holds (searches drop some of them earlier).
   */
  #postings = 0;
  #totalLength = 0;
  /** Documents removed so far. */
  #removed = 0;
  /** A search's score of each document, all 0 between searches. */
  #scratch = new Float64Array(0);
  /** The documents a search scored, in the order it first scored them. */
  #touched = new Int32Array(0);
  /** 1 for a document the current search has scored. */
  #seen = new Uint8Array(0);

  /** An index of a namespace's stored rows, in any order. */
  static of(rows: TermsRow[]): NamespaceIndex {
    const index = new NamespaceIndex();
    for (const row of rows) index.#index(row);
    return index.#ordered();
  }

  /**
   * As `of`, letting other work run between every `TERMS_PER_TURN` terms, so that reading a
   * large namespace does not hold up the relayer's other requests.
   */
  static async build(rows: TermsRow[]): Promise<NamespaceIndex> {
    const index = new NamespaceIndex();
    let read = 0;
    for (const row of rows) {
      index.#index(row);
      read += row.terms.length;
      if (read < TERMS_PER_TURN) continue;
      read = 0;
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    return index.#ordered();
  }

  /** Puts the documents indexed (by `of` or `build`) in order, overall and in each thread. */
  #ordered(): NamespaceIndex {
    const byId = (a: number, b: number) => this.#ids[a] < this.#ids[b] ? -1 : 1;
    this.#order = [...this.#byId.values()].sort(byId);
    for (const docs of this.#threads.values()) {
      docs.sort((a, b) => this.#beforeInThread(a, b) ? -1 : 1);
    }
    return this;
  }

  /** Adds a memory, or replaces it. */
  add(row: TermsRow): void {
    const doc = this.#index(row);
    this.#order.splice(this.#position(this.#order, row.id), 0, doc);
    const docs = this.#threadDocs(doc);
    if (docs) {
      docs.pop(); // `#index` put it last
      docs.splice(this.#threadPosition(docs, doc), 0, doc);
    }
  }

  /** The live documents of `doc`'s thread; `undefined` for a memory without a thread. */
  #threadDocs(doc: number): number[] | undefined {
    const thread = this.#entries[doc].info?.thread;
    return thread === undefined ? undefined : this.#threads.get(thread);
  }

  #index({ id, terms: stored, blobId, createdAt, info }: TermsRow): number {
    if (this.#byId.has(id)) this.remove(id);
    // A row stored before terms were capped counts as one stored since.
    const terms = stored.length > MAX_TERMS ? stored.slice(0, MAX_TERMS) : stored;
    const doc = this.#ids.length;
    this.#ids.push(id);
    this.#lengths.push(terms.length);
    this.#live.push(true);
    this.#entries.push({ id, blobId, createdAt, info });
    if (info?.digest) this.#digests.set(info.digest, id);
    if (info?.supersedes) this.#link(info.supersedes, id);
    if (info?.thread !== undefined) {
      let docs = this.#threads.get(info.thread);
      if (!docs) this.#threads.set(info.thread, docs = []);
      docs.push(doc); // in its place: see `of` and `add`
    }
    this.#byId.set(id, doc);
    this.#totalLength += terms.length;
    for (let i = 0; i < terms.length; i++) this.#post(terms[i], doc);
    return doc;
  }

  /** Counts `term` once more in `doc`, the document being indexed (the last one). */
  #post(term: string, doc: number): void {
    const list = this.#terms.get(term);
    if (list === undefined) {
      this.#terms.set(term, single(doc, 1));
      this.#postings++;
    } else if (typeof list === "number") {
      const [first, count] = unpack(list);
      if (first === doc) this.#terms.set(term, list + 1); // seen before in this row
      else if (!this.#live[first]) this.#terms.set(term, single(doc, 1));
      else {
        this.#terms.set(term, { docs: [first, doc], counts: [count, 1], removed: this.#removed });
        this.#postings++;
      }
    } else {
      const last = list.docs.length - 1;
      if (list.docs[last] === doc) list.counts[last]++;
      else {
        list.docs.push(doc);
        list.counts.push(1);
        this.#postings++;
      }
    }
  }

  remove(id: string): void {
    const doc = this.#byId.get(id);
    if (doc === undefined) return;
    const { info } = this.#entries[doc];
    if (info?.digest && this.#digests.get(info.digest) === id) this.#digests.delete(info.digest);
    // The versions it stood for: handed on to the one that replaced it where erased already,
    // so that an erase of any earlier version finds the current one; else no longer replaced,
    // as a whole read of the index sees them.
    const next = this.#replacedBy.get(id);
    for (const from of [...this.#replacing.get(id) ?? []]) {
      if (next !== undefined && !this.#byId.has(from)) this.#link(from, next);
      else this.#unlink(from);
    }
    this.#byId.delete(id);
    this.#live[doc] = false;
    this.#removed++;
    this.#totalLength -= this.#lengths[doc];
    const at = this.#position(this.#order, id);
    if (this.#order[at] === doc) this.#order.splice(at, 1);
    const docs = this.#threadDocs(doc);
    if (docs) {
      const inThread = this.#threadPosition(docs, doc);
      if (docs[inThread] === doc) docs.splice(inThread, 1);
      if (docs.length === 0) this.#threads.delete(this.#entries[doc].info!.thread!);
    }
    const removed = this.#ids.length - this.#byId.size;
    if ((removed >= COMPACT_AFTER && removed >= this.#byId.size) || this.#byId.size === 0) {
      this.#compact();
    }
  }

  /** How many memories it holds (removed ones not counted). */
  get size(): number {
    return this.#byId.size;
  }

  /** What the index holds: documents (removed ones until it compacts), terms and postings. */
  held(): { documents: number; terms: number; postings: number } {
    return { documents: this.#ids.length, terms: this.#terms.size, postings: this.#postings };
  }

  /** About the bytes of memory the index takes (see `BYTES_PER`). */
  get bytes(): number {
    return this.#ids.length * BYTES_PER.document + this.#terms.size * BYTES_PER.term +
      this.#postings * BYTES_PER.posting;
  }

  /** About the bytes its memories take: `bytes` less the share of those removed since. */
  get liveBytes(): number {
    return this.#ids.length === 0 ? 0 : this.bytes * this.#byId.size / this.#ids.length;
  }

  /**
   * Drops the removed documents and the terms only they had, numbering the rest anew in the
   * same order. A search's `scoreOf` keeps the numbers it was made with (`#byId` is replaced,
   * not changed).
   */
  #compact(): void {
    const renumbered = new Int32Array(this.#ids.length).fill(-1);
    let next = 0;
    for (let doc = 0; doc < this.#ids.length; doc++) if (this.#live[doc]) renumbered[doc] = next++;
    const kept = <T>(values: T[]) => values.filter((_, doc) => this.#live[doc]);
    this.#ids = kept(this.#ids);
    this.#lengths = kept(this.#lengths);
    this.#entries = kept(this.#entries);
    this.#live = this.#ids.map(() => true);
    this.#byId = new Map(this.#ids.map((id, doc) => [id, doc]));
    this.#order = this.#order.map((doc) => renumbered[doc]);
    for (const docs of this.#threads.values()) docs.forEach((doc, i) => docs[i] = renumbered[doc]);
    this.#postings = 0;
    for (const [term, list] of this.#terms) {
      if (typeof list === "number") {
        const [doc, count] = unpack(list);
        if (renumbered[doc] < 0) this.#terms.delete(term);
        else {
          this.#terms.set(term, single(renumbered[doc], count));
          this.#postings++;
        }
        continue;
      }
      let at = 0;
      for (let i = 0; i < list.docs.length; i++) {
        const doc = renumbered[list.docs[i]];
        if (doc < 0) continue;
        list.docs[at] = doc;
        list.counts[at++] = list.counts[i];
      }
      if (at === 0) this.#terms.delete(term);
      list.docs.length = list.counts.length = at;
      this.#postings += at;
      list.removed = this.#removed;
    }
    this.#scratch = new Float64Array(0);
    this.#touched = new Int32Array(0);
    this.#seen = new Uint8Array(0);
  }

  /**
   * Whether `a` comes before `b` in their thread: by the time its first version was remembered
   * (a correction keeps its place in the conversation), then by id.
   */
  #beforeInThread(a: number, b: number): boolean {
    const first = (doc: number) => {
      const { info, createdAt } = this.#entries[doc];
      return info?.firstCreatedAt ?? createdAt;
    };
    const at = first(a), bt = first(b);
    return at !== bt ? at < bt : this.#ids[a] < this.#ids[b];
  }

  /** Where `doc` is or would be in `docs`, a thread's documents in thread order. */
  #threadPosition(docs: number[], doc: number): number {
    let low = 0, high = docs.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.#beforeInThread(docs[middle], doc)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Where `id` is or would be in `docs` (document numbers sorted by id). */
  #position(docs: number[], id: string): number {
    let low = 0, high = docs.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.#ids[docs[middle]] < id) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The memory `id`, while it is in the namespace. */
  entry(id: string): CatalogEntry | undefined {
    const doc = this.#byId.get(id);
    return doc === undefined ? undefined : this.#entries[doc];
  }

  /** Records that `to` replaced `from`. */
  #link(from: string, to: string): void {
    this.#unlink(from);
    this.#replacedBy.set(from, to);
    let versions = this.#replacing.get(to);
    if (!versions) this.#replacing.set(to, versions = new Set());
    versions.add(from);
  }

  /** Forgets what replaced `from`. */
  #unlink(from: string): void {
    const to = this.#replacedBy.get(from);
    if (to === undefined) return;
    this.#replacedBy.delete(from);
    const versions = this.#replacing.get(to)!;
    versions.delete(from);
    if (versions.size === 0) this.#replacing.delete(to);
  }

  /** The id of the indexed version that replaced memory `id`, if any. */
  replacedBy(id: string): string | undefined {
    return this.#replacedBy.get(id);
  }

  /** The memory shown at `now` whose text has this digest (see `TermHasher.digest`). */
  duplicateOf(digest: string, now: number): string | undefined {
    const id = this.#digests.get(digest);
    return id !== undefined && !this.hidden(id, now) ? id : undefined;
  }

  /**
   * Whether memory `id` lives about as long as a new one expiring at `expiresAt` would (Unix
   * milliseconds; absent: never): it never expires, or not a minute before. A text remembered
   * again for longer is stored anew rather than lost when the memory holding it expires; one
   * sent again (its `ttl_seconds` a moment later) is the same memory.
   */
  outlives(id: string, expiresAt: number | undefined): boolean {
    return livesAsLong(this.entry(id)?.info?.expiresAt, expiresAt);
  }

  /**
   * Whether a memory is hidden from every read: gone, expired at `now`, or replaced by a newer
   * version that is indexed (it is erased soon after).
   */
  hidden(id: string, now: number): boolean {
    const doc = this.#byId.get(id);
    if (doc === undefined || this.#replacedBy.has(id)) return true;
    const expiresAt = this.#entries[doc].info?.expiresAt;
    return expiresAt !== undefined && expiresAt <= now;
  }

  /** Whether a visible memory passes `filter`. */
  matches(id: string, filter: CatalogFilter): boolean {
    const entry = this.entry(id);
    if (!entry) return false;
    if (filter.since !== undefined && entry.createdAt < filter.since) return false;
    if (filter.until !== undefined && entry.createdAt >= filter.until) return false;
    const tags = entry.info?.tags ?? [];
    return (filter.tags ?? []).every((tag) => tags.includes(tag));
  }

  /**
   * The visible memories that pass `filter`, newest first, starting after the memory `after`
   * (a cursor: the last id of the previous page); at most `limit`.
   */
  list(filter: CatalogFilter, now: number, limit: number, after?: string): CatalogEntry[] {
    const out: CatalogEntry[] = [];
    let at = after === undefined ? this.#order.length : this.#position(this.#order, after);
    while (--at >= 0 && out.length < limit) {
      const id = this.#ids[this.#order[at]];
      if (!this.hidden(id, now) && this.matches(id, filter)) out.push(this.entry(id)!);
    }
    return out;
  }

  /** Every memory of the namespace, hidden ones included, oldest first. */
  entries(): CatalogEntry[] {
    return this.#order.map((doc) => this.#entries[doc]);
  }

  /** The ids of the visible memories that pass `filter`. */
  select(filter: CatalogFilter, now: number): string[] {
    return [...this.#byId.keys()].filter((id) => !this.hidden(id, now) && this.matches(id, filter));
  }

  /**
   * The memories of `id`'s thread remembered up to `span` places before and after it in that
   * thread, in thread order; none for a memory without a thread.
   */
  neighbours(id: string, span: number): string[] {
    const doc = this.#byId.get(id);
    const docs = doc === undefined ? undefined : this.#threadDocs(doc);
    if (!docs) return [];
    const at = this.#threadPosition(docs, doc!);
    const near: string[] = [];
    for (let i = Math.max(0, at - span); i <= at + span && i < docs.length; i++) {
      if (i !== at) near.push(this.#ids[docs[i]]);
    }
    return near;
  }

  /**
   * The BM25 matches of the query's term hashes; `weights`, when given, weigh each term (in the
   * order of `query`) on top of its IDF (a repeated term counts with its first weight).
   */
  search(query: string[], k: number, weights?: number[]): LexicalMatches {
    const live = this.#byId.size;
    if (live === 0) return { hits: [], scoreOf: () => 0, ideal: 0 };
    const average = this.#totalLength / live || 1;
    let ideal = 0;
    const weightOf = new Map<string, number>();
    query.forEach((term, i) => weightOf.has(term) || weightOf.set(term, weights?.[i] ?? 1));
    // Scores add up in a scratch array kept between searches (no object per matched memory):
    // the documents touched are listed, copied out below, and their slots zeroed again.
    const total = this.#ids.length;
    if (this.#scratch.length < total) {
      this.#scratch = new Float64Array(Math.max(total, Math.ceil(this.#scratch.length * 1.5)));
      this.#touched = new Int32Array(this.#scratch.length);
      this.#seen = new Uint8Array(this.#scratch.length);
    }
    const scratch = this.#scratch, touched = this.#touched, seen = this.#seen;
    let matched = 0;
    for (const [term, weight] of weightOf) {
      const list = this.#liveList(term);
      if (!list) continue;
      const rarity = Math.log(1 + (live - list.docs.length + 0.5) / (list.docs.length + 0.5));
      if (rarity < 0.05) continue; // in nearly every memory: it cannot tell them apart
      const idf = rarity * weight;
      ideal += idf;
      for (let i = 0; i < list.docs.length; i++) {
        const doc = list.docs[i];
        const tf = list.counts[i];
        const norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * this.#lengths[doc] / average));
        if (seen[doc] === 0) {
          seen[doc] = 1;
          touched[matched++] = doc;
        }
        scratch[doc] += idf * norm;
      }
    }
    const docs = touched.slice(0, matched).sort();
    const scores = new Float64Array(matched);
    for (let i = 0; i < matched; i++) {
      scores[i] = scratch[docs[i]];
      scratch[docs[i]] = 0;
      seen[docs[i]] = 0;
    }
    const byId = this.#byId;
    const scoreOf = (id: string) => {
      const doc = byId.get(id);
      if (doc === undefined) return 0;
      const at = lowerBound(docs, doc);
      return docs[at] === doc ? scores[at] : 0;
    };
    const hits = topK(docs, scores, k, this.#ids).map(([doc, score]) => ({
      id: this.#ids[doc],
      score,
    }));
    return { hits, scoreOf, ideal };
  }

  /**
   * A term's postings, the removed documents dropped from them first (so its document
   * frequency counts only the memories the namespace holds); `undefined` when no memory has it.
   */
  #liveList(term: string): Postings | undefined {
    const list = this.#terms.get(term);
    if (typeof list === "number") {
      const [doc, count] = unpack(list);
      if (this.#live[doc]) return { docs: [doc], counts: [count], removed: this.#removed };
      this.#terms.delete(term);
      return undefined;
    }
    if (!list || list.removed === this.#removed) return list;
    let kept = 0;
    for (let i = 0; i < list.docs.length; i++) {
      if (!this.#live[list.docs[i]]) continue;
      list.docs[kept] = list.docs[i];
      list.counts[kept++] = list.counts[i];
    }
    list.docs.length = kept;
    list.counts.length = kept;
    list.removed = this.#removed;
    if (kept > 0) return list;
    this.#terms.delete(term);
    return undefined;
  }
}
