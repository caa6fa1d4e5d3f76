/**
 * Builds a new index from the stored memories, then switches to it (see `index_switch.ts`):
 *
 * 1. **Copy.** For each owner's namespace of the active index (in owner, then namespace order),
 *    its rows are read without their vectors (id, blob, time, term hashes, `MemoryInfo`), taken
 *    in id order from the namespace's cursor on, in batches: each memory's blob is read and
 *    decrypted and its text embedded by the new embedder (one call per batch), and the rows are
 *    written to the new index with everything else as it was: id, namespace, time, blob, term
 *    hashes and info. A client-encrypted (manual) memory has no text the relayer can read: its
 *    vector, sealed in its blob's metadata, is kept when it has the new index's dimensions, and
 *    the memory is left out (skipped, logged) when not. After each batch the namespace's cursor
 *    is persisted (`state.ts`), so a reindex cut short resumes where it stopped.
 * 2. **Catch up.** Every namespace of either index is compared, by memory ids: what the old
 *    index holds and the new lacks is copied, what the new holds and the old no longer does
 *    (erased meanwhile) is deleted. Writes made while the relayer was serving are already in
 *    both (the switch writes both); this pass finds what a restart without `SVC_REINDEX` let
 *    through, and what raced with the copy.
 * 3. **Switch.** With writes held back, the comparison is made once more, the new index is
 *    made active (a persisted pointer), and the switch moves to it.
 * 4. **Retire.** After a grace period for the recalls under way, the old index is closed and
 *    removed, and the state forgotten.
 *
 * Memories the old index lacks (a blob whose indexing never finished; restore brings those
 * back) are not added: the new index holds what the old one served.
 */
import type {
  BlobStore,
  CallOptions,
  Cipher,
  IndexPartition,
  ListedBlobMeta,
  MemoryInfo,
  TermsRow,
  VectorIndexSet,
  VectorRow,
} from "../backends/types.ts";
import { sleep } from "@svc/util/sleep";
import { SvcError } from "../errors.ts";
import { type Logger, silentLogger } from "../log.ts";
import type { VectorSeal } from "../pipeline/vector_seal.ts";
import type { TermHasher } from "../ranking/terms.ts";
import { createReader, type MemoryReader, NO_BLOB } from "../services/reader.ts";
import type { IndexGeneration, IndexSwitch } from "./index_switch.ts";
import type { PartitionCursor, ReindexState } from "./state.ts";

/** What a reindex works with. */
export interface ReindexerOptions {
  /** The indexes of the vector store: the pointer `activate` moves, and `remove`. */
  indexes: VectorIndexSet;
  /** The active index (the source) and the one being built (`IndexSwitch.build`). */
  switch: IndexSwitch;
  /** Where the cursors are kept. */
  state: ReindexState;
  /** Decrypts the memories' blobs; it must hold its own keys (`holdsKeys`). */
  cipher: Cipher;
  blobs: BlobStore;
  /** Opens the vectors of client-encrypted memories sealed in their blobs' metadata. */
  vectorSeal: VectorSeal;
  /**
   * Digests the texts of rows indexed before duplicates were found by digest, so that the new
   * index finds them (`MemoryInfo.digest`).
   */
  hasher: TermHasher;
  logger?: Logger;
  /** Memories per batch: one embedding call and one write (default 64). */
  batchSize?: number;
  /** At most this many memories a second (default 0: no limit). */
  ratePerSecond?: number;
  /** How often progress is logged (default 5 s). */
  progressMs?: number;
  /** How long the old index serves the recalls that began on it after the switch (default 10 s). */
  graceMs?: number;
  /** Clock (Unix ms). */
  now?: () => number;
}

/** How far a reindex got. */
export interface ReindexProgress {
  /** What it does now. */
  phase: "copying" | "catching up" | "switching" | "retiring" | "done";
  /** Namespaces of the old index, and those copied. */
  namespaces: number;
  /** Namespaces copied. */
  namespacesDone: number;
  /** Memories of the old index, and those copied or left out so far (before a restart too). */
  memories: number;
  /** Memories copied or left out so far. */
  done: number;
}

/** What a finished reindex did. */
export interface ReindexSummary {
  /** The index replaced and the one now active, with their embedders. */
  from: { index: string; model: string; dimensions: number };
  /** The index now active, with its embedder. */
  to: { index: string; model: string; dimensions: number };
  /** Memories in the new index. */
  memories: number;
  /** Memories of the old index left out, by reason (their ids are logged). */
  skipped: { manualDimensions: number; unreadable: number };
  /** Memories done before this run began (by a run that was cut short). */
  resumed: number;
  /** Memories written to the new index by this run. */
  written: number;
  /** Seconds this run took. */
  seconds: number;
}

type SkipReason = "manualDimensions" | "unreadable";

const byId = (a: { id: string }, b: { id: string }) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
const placeOf = (p: { owner: string; namespace: string }) => JSON.stringify([p.owner, p.namespace]);

/** Rebuilds the index for a new embedder; see the module documentation. */
export class Reindexer {
  #options: ReindexerOptions;
  #logger: Logger;
  #reader: MemoryReader;
  #now: () => number;
  /** Memories left out during this run, and why (so that catching up does not try them again). */
  #skipped = new Map<string, SkipReason>();
  #written = 0;

  /** A reindex as `options` set it up (the plan, both indexes, the stores, the keys). */
  constructor(options: ReindexerOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#now = options.now ?? Date.now;
    // A blob gone while a live reindex runs is mostly a memory erased meanwhile: not said here,
    // but of those still held when it ends. What else goes wrong with a blob is said at once.
    const logger = this.#logger;
    this.#reader = createReader({
      cipher: options.cipher,
      blobs: options.blobs,
      logger: {
        ...logger,
        warn: (message, fields) => message === NO_BLOB ? undefined : logger.warn(message, fields),
      },
      textCacheBytes: 0,
    });
  }

  /**
   * Runs the reindex to its end (or until `signal` aborts: it then resumes from its cursors
   * when run again). `onProgress` hears after every batch and phase.
   */
  async run(
    { signal, onProgress }: {
      signal?: AbortSignal;
      onProgress?: (progress: ReindexProgress) => void;
    } = {},
  ): Promise<ReindexSummary> {
    const { switch: indexes, state, cipher } = this.#options;
    if (!cipher.holdsKeys) {
      throw new SvcError(
        "conflict",
        `Cannot reindex: the cipher "${cipher.name}" decrypts only with each caller's own key, ` +
          `so the relayer cannot read the memories to embed them again`,
      );
    }
    const source = indexes.active, target = indexes.target;
    if (!target) throw new SvcError("internal", "Cannot reindex: no index is being built");
    const started = this.#now();
    this.#written = 0;
    const partitions = await this.#partitions(source, signal);
    const progress: ReindexProgress = {
      phase: "copying",
      namespaces: partitions.length,
      namespacesDone: 0,
      memories: partitions.reduce((n, p) => n + p.count, 0),
      done: 0,
    };
    let resumed = 0;
    for (const p of partitions) {
      const cursor = await state.cursor(p.owner, p.namespace);
      if (cursor) resumed += cursor.copied + cursor.skipped;
    }
    // Memories erased since a run cut short copied them, or remembered since this one counted
    // them, would take `done` past `memories`.
    const count = (done: number) => Math.min(done, progress.memories);
    progress.done = count(resumed);
    this.#logger.info("reindex started", {
      from: source.name,
      from_model: source.embedder.model,
      to: target.name,
      to_model: target.embedder.model,
      namespaces: progress.namespaces,
      memories: progress.memories,
      resumed,
    });
    const report = this.#reporter(progress, onProgress);
    report(true);
    let handled = 0;
    for (const p of partitions) {
      let cursor: PartitionCursor = await state.cursor(p.owner, p.namespace) ??
        { after: "", copied: 0, skipped: 0, done: false };
      if (!cursor.done) {
        const rows = (await source.store.terms(p.owner, p.namespace, { signal }))
          .filter((row) => row.id > cursor.after).sort(byId);
        const size = this.#options.batchSize ?? 64;
        for (let at = 0; at < rows.length; at += size) {
          const batch = rows.slice(at, at + size);
          const { written, skipped } = await this.#copy(p, batch, target, { signal });
          cursor = {
            after: batch.at(-1)!.id,
            copied: cursor.copied + written,
            skipped: cursor.skipped + skipped,
            done: false,
          };
          await state.setCursor(p.owner, p.namespace, cursor);
          progress.done = count(progress.done + batch.length);
          handled += batch.length;
          report();
          await this.#pace(started, handled, signal);
        }
        await state.setCursor(p.owner, p.namespace, { ...cursor, done: true });
      }
      progress.namespacesDone++;
      report();
    }
    progress.phase = "catching up";
    report(true);
    await this.#reconcile(source, target, { signal });
    progress.phase = "switching";
    report(true);
    const { indexes: set } = this.#options;
    const old = await indexes.complete(
      (source, target) => this.#reconcile(source, target, { signal, direct: true }),
      async () => {
        signal?.throwIfAborted();
        await set.activate(target.name);
      },
    );
    const memories = await target.store.count();
    const skipped = { manualDimensions: 0, unreadable: 0 };
    for (const reason of this.#skipped.values()) skipped[reason]++;
    const unreadable = [...this.#skipped].flatMap(([id, reason]) =>
      reason === "unreadable" ? [id] : []
    );
    if (unreadable.length > 0) {
      this.#logger.warn("reindex: memories whose blob is missing or does not decrypt; left out", {
        count: unreadable.length,
        memory_ids: unreadable.slice(0, 100),
      });
    }
    const summary: ReindexSummary = {
      from: { index: old.name, model: old.embedder.model, dimensions: old.store.dimensions },
      to: { index: target.name, model: target.embedder.model, dimensions: target.store.dimensions },
      memories,
      skipped,
      resumed,
      written: this.#written,
      seconds: Math.round((this.#now() - started) / 100) / 10,
    };
    this.#logger.info("reindex complete: the new index is active", { ...summary });
    progress.phase = "retiring";
    report(true);
    try {
      await indexes.retire(old, { graceMs: this.#options.graceMs ?? 10_000, signal });
      await set.remove(old.name);
      await state.clear();
      this.#logger.info("removed the old index", { index: old.name });
    } catch (error) {
      // The switch is done; the next start removes what is left (`settleLeftovers`).
      this.#logger.warn("the old index was not removed; the next start removes it", {
        index: old.name,
        error,
      });
    }
    progress.phase = "done";
    report(true);
    return summary;
  }

  async #partitions(generation: IndexGeneration, signal?: AbortSignal): Promise<IndexPartition[]> {
    const { store } = generation;
    if (!store.partitions) {
      throw new SvcError(
        "conflict",
        `Cannot reindex: the ${store.name} vector store cannot list its namespaces`,
      );
    }
    return await store.partitions({ signal });
  }

  /** Calls `onProgress` every time, and logs at most every `progressMs` (or when `now`). */
  #reporter(progress: ReindexProgress, onProgress?: (progress: ReindexProgress) => void) {
    const every = this.#options.progressMs ?? 5_000;
    let logged = this.#now();
    return (now = false) => {
      onProgress?.({ ...progress });
      if (!now && this.#now() - logged < every) return;
      logged = this.#now();
      this.#logger.info("reindex progress", {
        phase: progress.phase,
        namespaces: progress.namespaces,
        namespaces_done: progress.namespacesDone,
        memories: progress.memories,
        done: progress.done,
      });
    };
  }

  /** Waits as long as `ratePerSecond` asks, after `handled` memories since `started`. */
  async #pace(started: number, handled: number, signal?: AbortSignal): Promise<void> {
    const rate = this.#options.ratePerSecond ?? 0;
    const wait = rate > 0 ? started + (handled * 1000) / rate - this.#now() : 0;
    if (wait > 0) await sleep(wait, signal);
    signal?.throwIfAborted();
  }

  /**
   * Makes `target` hold the memories `source` does (see the module documentation); `direct`
   * once writes are held back, when the rows go straight to the new index.
   */
  async #reconcile(
    source: IndexGeneration,
    target: IndexGeneration,
    options: CallOptions & { direct?: boolean },
  ): Promise<void> {
    const { signal } = options;
    const places = new Map<string, IndexPartition>();
    for (const p of await this.#partitions(target, signal)) places.set(placeOf(p), p);
    for (const p of await this.#partitions(source, signal)) places.set(placeOf(p), p);
    const allHeld = new Set<string>();
    for (const p of places.values()) {
      // The new index first: a memory written since is in the old one before the new.
      const present = new Set(
        (await target.store.terms(p.owner, p.namespace, { signal })).map((row) => row.id),
      );
      const rows = await source.store.terms(p.owner, p.namespace, { signal });
      const held = new Set(rows.map((row) => row.id));
      for (const id of held) allHeld.add(id);
      const extra = [...present].filter((id) => !held.has(id));
      if (extra.length > 0) await target.store.delete(extra, { signal });
      const missing = rows.filter((row) => !present.has(row.id) && !this.#skipped.has(row.id))
        .sort(byId);
      const size = this.#options.batchSize ?? 64;
      for (let at = 0; at < missing.length; at += size) {
        await this.#copy(p, missing.slice(at, at + size), target, options);
      }
    }
    // What was left out and erased since is not reported.
    if (options.direct) {
      for (const id of this.#skipped.keys()) if (!allHeld.has(id)) this.#skipped.delete(id);
    }
  }

  /** Reads, embeds and writes a batch of a namespace's rows; resolves to what it did. */
  async #copy(
    place: { owner: string; namespace: string },
    rows: TermsRow[],
    target: IndexGeneration,
    options: CallOptions & { direct?: boolean },
  ): Promise<{ written: number; skipped: number }> {
    const { signal } = options;
    const { owner, namespace } = place;
    const skip = (id: string, reason: SkipReason) => this.#skipped.set(id, reason);
    let metas: Promise<Map<string, ListedBlobMeta>> | undefined;
    const texts: { row: TermsRow; text: string }[] = [];
    const given: { row: TermsRow; vector: number[] }[] = [];
    const read = await Promise.all(rows.map(async (row) => {
      // A memory the relayer embedded has a text digest (or terms); one without may be manual.
      const meta = row.info?.digest !== undefined || row.terms.length > 0
        ? undefined
        : (await (metas ??= this.#metas(place, signal))).get(row.id);
      if (meta?.sealedVector !== undefined) {
        const place = { memoryId: row.id, owner, namespace };
        return { row, vector: await this.#options.vectorSeal.open(place, meta.sealedVector) };
      }
      if (meta?.legacyVector) return { row, vector: meta.legacyVector };
      return { row, text: await this.#reader.read(owner, row, { signal }) };
    }));
    for (const { row, vector, text } of read) {
      if (text !== undefined) {
        if (text === null) skip(row.id, "unreadable");
        else texts.push({ row, text });
      } else if (vector === null || vector === undefined) {
        this.#logger.warn("reindex: a client-encrypted memory's vector does not open; left out", {
          memory_id: row.id,
        });
        skip(row.id, "unreadable");
      } else if (vector.length !== target.store.dimensions) {
        this.#logger.warn(
          "reindex: a client-encrypted memory's vector is not of the new index's size; left out",
          {
            memory_id: row.id,
            dimensions: vector.length,
            index_dimensions: target.store.dimensions,
          },
        );
        skip(row.id, "manualDimensions");
      } else given.push({ row, vector });
    }
    const vectors = texts.length > 0
      ? await target.embedder.embed(texts.map((t) => t.text), { signal })
      : [];
    // Rows from before digests and the manual mark gain them (see `MemoryInfo`), and every
    // row its text's terms as they are indexed today (relations included).
    const { hasher } = this.#options;
    const embedded = await Promise.all(texts.map(async ({ row, text }, i) => {
      const thread = row.info?.thread !== undefined;
      const terms = await hasher.hash(owner, text, { at: row.createdAt, thread });
      const info = row.info?.digest === undefined
        ? { digest: await hasher.digest(owner, text) }
        : {};
      return this.#row(place, { ...row, terms }, vectors[i], info);
    }));
    const out: VectorRow[] = [
      ...embedded,
      ...given.map(({ row, vector }) => this.#row(place, row, vector, { manual: true })),
    ];
    let written = out.length;
    if (out.length > 0) {
      if (options.direct) await target.store.upsert(out, { signal });
      else written = await this.#options.switch.copy(out, { signal });
    }
    this.#written += written;
    // Left out, or erased meanwhile: done all the same.
    return { written, skipped: rows.length - written };
  }

  #row(
    { owner, namespace }: { owner: string; namespace: string },
    { id, blobId, createdAt, terms, info: had }: TermsRow,
    vector: Float32Array | number[],
    added: MemoryInfo = {},
  ): VectorRow {
    const info = { ...had, ...added };
    const kept = Object.keys(info).length > 0 ? { info } : {};
    return { id, owner, namespace, blobId, createdAt, vector, terms, ...kept };
  }

  /** The namespace's blobs' metadata by memory id. */
  async #metas(
    { owner, namespace }: { owner: string; namespace: string },
    signal?: AbortSignal,
  ): Promise<Map<string, ListedBlobMeta>> {
    const entries = await this.#options.blobs.list(owner, namespace, { signal });
    return new Map(entries.map((entry) => [entry.meta.memoryId, entry.meta]));
  }
}
