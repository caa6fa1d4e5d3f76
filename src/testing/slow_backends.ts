/**
 * Fault-injecting wrappers for tests: a blob store and an embedder that delay every call by a
 * set time and can fail the first calls, around any real or in-memory backend. With them a
 * test makes a remember job slower than its queue's lease, or makes its first attempts fail,
 * without timing anything else.
 *
 * @example A blob store taking 1 s per call, whose first upload fails
 * ```ts
 * import { MemoryBlobStore, SlowBlobStore } from "./mod.ts";
 *
 * const blobs = new SlowBlobStore(new MemoryBlobStore(), { delayMs: 1_000, failFirst: 1 });
 * ```
 * @module
 */
import type {
  BlobEntry,
  BlobMeta,
  BlobStore,
  CallOptions,
  Embedder,
  EmbedOptions,
} from "../backends/types.ts";
import { SvcError } from "../errors.ts";

/** How a wrapper slows down and fails its backend. */
export interface FaultOptions {
  /** Milliseconds every call waits before reaching the backend (default 0). */
  delayMs?: number;
  /**
   * How many calls, the first ones, fail after their delay with a `backend_unavailable`
   * error instead of reaching the backend (default 0).
   */
  failFirst?: number;
}

/** Counts calls, delays each one (giving up when its signal aborts) and fails the first. */
class Faults {
  /** Calls so far, failed ones included. */
  calls = 0;
  #delayMs: number;
  #failFirst: number;
  #what: string;

  constructor(what: string, options: FaultOptions) {
    this.#what = what;
    this.#delayMs = options.delayMs ?? 0;
    this.#failFirst = options.failFirst ?? 0;
  }

  async run<T>(options: CallOptions | undefined, call: () => Promise<T>): Promise<T> {
    const n = ++this.calls;
    await delay(this.#delayMs, options?.signal);
    if (n <= this.#failFirst) {
      throw new SvcError(
        "backend_unavailable",
        `Cannot reach the ${this.#what}: injected failure ${n} of ${this.#failFirst}`,
      );
    }
    return await call();
  }
}

/** Resolves after `ms`; rejects with the signal's reason as soon as it aborts. */
function delay(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", abort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", abort, { once: true });
  });
}

/** A blob store whose every call (put, get, list) is delayed, and whose first calls fail. */
export class SlowBlobStore implements BlobStore {
  readonly name: string;
  readonly #inner: BlobStore;
  readonly #faults: Faults;

  /** Wraps `inner`; see {@link FaultOptions}. */
  constructor(inner: BlobStore, options: FaultOptions = {}) {
    this.#inner = inner;
    this.name = inner.name;
    this.#faults = new Faults("blob store", options);
  }

  /** Calls so far, failed ones included. */
  get calls(): number {
    return this.#faults.calls;
  }

  put(bytes: Uint8Array<ArrayBuffer>, meta: BlobMeta, options?: CallOptions): Promise<string> {
    return this.#faults.run(options, () => this.#inner.put(bytes, meta, options));
  }

  get(blobId: string, options?: CallOptions): Promise<Uint8Array<ArrayBuffer> | null> {
    return this.#faults.run(options, () => this.#inner.get(blobId, options));
  }

  delete(blobId: string, options?: CallOptions): Promise<void> {
    return this.#faults.run(options, () => this.#inner.delete(blobId, options));
  }

  list(
    owner: string,
    namespace: string,
    options?: CallOptions & { limit?: number },
  ): Promise<BlobEntry[]> {
    return this.#faults.run(options, () => this.#inner.list(owner, namespace, options));
  }
}

/** An embedder whose every `embed` is delayed, and whose first calls fail. */
export class SlowEmbedder implements Embedder {
  readonly name: string;
  readonly model: string;
  readonly dimensions: number;
  readonly #inner: Embedder;
  readonly #faults: Faults;

  /** Wraps `inner`; see {@link FaultOptions}. */
  constructor(inner: Embedder, options: FaultOptions = {}) {
    this.#inner = inner;
    this.name = inner.name;
    this.model = inner.model;
    this.dimensions = inner.dimensions;
    this.#faults = new Faults("embedder", options);
  }

  /** Calls so far, failed ones included. */
  get calls(): number {
    return this.#faults.calls;
  }

  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
    return this.#faults.run(options, () => this.#inner.embed(texts, options));
  }
}
