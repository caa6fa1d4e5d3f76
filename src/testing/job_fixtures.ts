/**
 * Fixtures the job tests share (svc's own; `mod.ts` does not export them): a manual clock that
 * decides when a job queue's leases run out, a blob store that holds uploads until the test
 * releases them, a vector store counting its writes, a remember pipeline over in-memory
 * backends, `until`, and `listening` to a queue. With them a lease test depends on the order of
 * events it drives, not on how fast a loaded machine schedules timers.
 * @module
 */
import { MemoryBlobStore, MemoryVectorStore } from "../backends/memory.ts";
import { MemoryCipher } from "./memory_cipher.ts";
import { MemoryEmbedder } from "./memory_embedder.ts";
import type {
  BlobEntry,
  BlobMeta,
  BlobStore,
  CallOptions,
  Cipher,
  Embedder,
  VectorRow,
  VectorStore,
} from "../backends/types.ts";
import type { JobQueue, ListenOptions } from "../jobs/job_queue.ts";
import { createRememberPipeline, type RememberPipeline } from "../pipeline/remember.ts";
import { VectorSeal } from "../pipeline/vector_seal.ts";
import { AttributeSeal } from "../pipeline/attributes.ts";
import { LexicalIndex } from "../ranking/lexicon.ts";
import { TermHasher } from "../ranking/terms.ts";

/** Waits until `check` holds, polling; throws naming `what` after `timeoutMs` (10 s). */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  for (const started = Date.now(); !(await check());) {
    if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Listens to `queue`, noting each job delivered (and doing nothing with it) until `stop`; for
 * `worker`, when given (`ListenOptions.worker`).
 */
export function listening(queue: JobQueue, worker?: ListenOptions["worker"]) {
  const delivered: string[] = [];
  const stopping = new AbortController();
  const listened = queue.listen(({ job_id }) => {
    delivered.push(job_id);
    return Promise.resolve();
  }, { signal: stopping.signal, worker });
  return {
    delivered,
    /** Stops listening; resolves once the listener has stopped. */
    async stop() {
      stopping.abort();
      await listened;
    },
  };
}

/**
 * A clock that moves only when the test advances it: pass `now` as a job queue's `now` option,
 * and a lease runs out when the test says, however late the worker's timers fire.
 */
export class ManualClock {
  #ms: number;

  /** A clock reading `start` (the real time by default). */
  constructor(start = Date.now()) {
    this.#ms = start;
  }

  /** The time, in Unix milliseconds. */
  readonly now = (): number => this.#ms;

  /** Moves the clock `ms` forward; returns the new time. */
  advance(ms: number): number {
    return this.#ms += ms;
  }
}

/** A vector store that counts the writes of each row. */
export class CountingVectorStore extends MemoryVectorStore {
  /** Writes so far, by row id. */
  writes = new Map<string, number>();

  override upsert(rows: VectorRow[], options?: CallOptions): Promise<void> {
    for (const row of rows) this.writes.set(row.id, (this.writes.get(row.id) ?? 0) + 1);
    return super.upsert(rows, options);
  }
}

/**
 * A blob store whose uploads wait until `release()` (or until their call's signal aborts,
 * rejecting with its reason); reads go straight to the inner store. A job held in its upload
 * stays running for as long as the test needs; disposing the store releases them, so a test
 * that fails while one is held does not leave it waiting.
 */
export class HeldBlobStore implements BlobStore, Disposable {
  readonly name: string;
  /** The store uploads reach once released. */
  readonly inner: BlobStore;
  /** Uploads so far, held, abandoned and done alike. */
  calls = 0;
  /** Uploads held now, and the most ever held at once. */
  held = 0;
  mostHeld = 0;
  #released = Promise.withResolvers<void>();

  /** Holds the uploads to `inner` (a fresh in-memory store by default). */
  constructor(inner: BlobStore = new MemoryBlobStore()) {
    this.inner = inner;
    this.name = inner.name;
  }

  /** Lets every held upload, and every later one, through. */
  release(): void {
    this.#released.resolve();
  }

  /** Releases the held uploads, as `release` does. */
  [Symbol.dispose](): void {
    this.release();
  }

  async put(
    bytes: Uint8Array<ArrayBuffer>,
    meta: BlobMeta,
    options?: CallOptions,
  ): Promise<string> {
    this.calls++;
    const signal = options?.signal;
    signal?.throwIfAborted();
    const aborted = Promise.withResolvers<never>();
    const abort = () => aborted.reject(signal!.reason);
    signal?.addEventListener("abort", abort, { once: true });
    this.mostHeld = Math.max(this.mostHeld, ++this.held);
    try {
      await Promise.race([this.#released.promise, aborted.promise]);
    } finally {
      this.held--;
      signal?.removeEventListener("abort", abort);
    }
    return await this.inner.put(bytes, meta, options);
  }

  get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.inner.get(blobId, options);
  }

  delete(blobId: string, options?: CallOptions): Promise<void> {
    return this.inner.delete(blobId, options);
  }

  list(
    owner: string,
    namespace: string,
    options?: CallOptions & { limit?: number },
  ): Promise<BlobEntry[]> {
    return this.inner.list(owner, namespace, options);
  }
}

/** The backends of {@link testPipeline}; in-memory ones stand in for those not given. */
export interface TestPipelineParts {
  cipher?: Cipher;
  blobs?: BlobStore;
  embedder?: Embedder;
  vectors?: VectorStore;
  /** The relayer's secret, which term hashes and seals derive from (random by default). */
  secret?: Uint8Array<ArrayBuffer>;
}

/**
 * A remember pipeline over `parts`; its lexical index brings a namespace up to date when
 * `vectors` tells of another writer's change, as the relayer's does.
 */
export async function testPipeline(parts: TestPipelineParts = {}): Promise<RememberPipeline> {
  const embedder = parts.embedder ?? new MemoryEmbedder();
  const vectors: VectorStore = parts.vectors ?? new MemoryVectorStore(embedder.dimensions);
  const secret = parts.secret ?? crypto.getRandomValues(new Uint8Array(32));
  const lexicon = new LexicalIndex(vectors);
  vectors.onChanged?.((owner, namespace) => lexicon.drop(owner, namespace));
  return createRememberPipeline({
    cipher: parts.cipher ?? new MemoryCipher(),
    blobs: parts.blobs ?? new MemoryBlobStore(),
    embedder,
    vectors,
    hasher: await TermHasher.fromSecret(secret),
    vectorSeal: await VectorSeal.fromSecret(secret),
    attributeSeal: await AttributeSeal.fromSecret(secret),
    lexicon,
  });
}

/**
 * A vector store two relayers share, each through a view of its own that hears of the other's
 * writes only when it revalidates a namespace (as when a notification is still on its way).
 * Only upserts count as writes.
 */
export class SharedVectorStore {
  readonly inner: MemoryVectorStore;
  /** Owner and namespace → how many upserts they had. */
  readonly versions = new Map<string, number>();

  constructor(dimensions: number) {
    this.inner = new MemoryVectorStore(dimensions);
  }

  /** One relayer's view of the store. */
  view(): VectorStore {
    const { inner, versions } = this;
    const key = (owner: string, namespace: string) => `${owner}\0${namespace}`;
    const seen = new Map<string, number>();
    const listeners: ((owner: string, namespace: string) => void)[] = [];
    return {
      name: inner.name,
      dimensions: inner.dimensions,
      async upsert(rows, options) {
        await inner.upsert(rows, options);
        for (const space of new Set(rows.map((row) => key(row.owner, row.namespace)))) {
          versions.set(space, (versions.get(space) ?? 0) + 1);
          seen.set(space, versions.get(space)!); // its own write, known
        }
      },
      search: (...args) => inner.search(...args),
      has: (...args) => inner.has(...args),
      delete: (...args) => inner.delete(...args),
      count: (...args) => inner.count(...args),
      terms: (...args) => inner.terms(...args),
      rowIds: (...args) => inner.rowIds(...args),
      namespaces: (...args) => inner.namespaces(...args),
      onChanged: (listener) => void listeners.push(listener),
      revalidate(owner, namespace) {
        const version = versions.get(key(owner, namespace)) ?? 0;
        if ((seen.get(key(owner, namespace)) ?? 0) !== version) {
          seen.set(key(owner, namespace), version);
          for (const listener of listeners) listener(owner, namespace);
        }
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
  }
}
