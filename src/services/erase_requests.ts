/**
 * Erases as owners ask, as `eraser.ts` does them: a memory by id, the memories only a blob
 * holds, and a whole namespace; a signed receipt per memory.
 */
import type { BlobEntry, BlobStore, Cipher, VectorStore } from "../backends/types.ts";
import type { JobQueue } from "../jobs/job_queue.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import { blobStates } from "./erased_blobs.ts";
import type { EraseOptions, Eraser } from "./eraser.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";
import type { LocateOptions, MemoryLocator } from "./memory_locator.ts";
import type { ReadOptions } from "./reader.ts";
import type { EraseReceipt } from "./receipts.ts";
import { SvcError } from "../errors.ts";
import type { BlindLog } from "./blind_log.ts";

/** What erasing a namespace answers: one receipt per erased memory. */
export interface NamespaceErase {
  /** The erased namespace. */
  namespace: string;
  /** The owner's address. */
  owner: string;
  /** How many memories were erased. */
  erased: number;
  /** Their receipts. */
  receipts: EraseReceipt[];
}

export interface EraseRequestDependencies {
  /** Refuses a namespace's erase it cannot do for the caller, before anything is recorded. */
  cipher: Cipher;
  /**
   * Remember jobs on their way: those of an erased namespace are recorded erased first, and
   * their blobs are not erased as left behind.
   */
  queue: JobQueue;
  /** What only a blob holds, no index row, goes with its namespace. */
  blobs: BlobStore;
  vectors: VectorStore;
  records: LifecycleRecordStore;
  lexicon: LexicalIndex;
  eraser: Pick<Eraser, "eraseAsked" | "eraseBlobs" | "receiptAgain">;
  /** Finds the memory an erase by id is for. */
  locateStored: MemoryLocator["locateStored"];
  /** Unix milliseconds. */
  now: () => number;
  /**
   * The operator-blind logs: a namespace's erase erases its log, its keys and its being blind;
   * an erase by id of a memory moved into one (`svc blind move`) erases its entry there.
   */
  blind?: Pick<BlindLog, "eraseIfBlind" | "eraseOneIfBlind">;
}

/**
 * The blobs of a namespace that no index row holds (rows lost with the index, a job failed after
 * its upload): restore would bring them back after the namespace's erase. Left out: the memory
 * of a job still on its way, and one recorded erased (its blob is restore's to delete).
 */
async function blobsLeft(
  deps: Pick<EraseRequestDependencies, "queue" | "blobs" | "vectors" | "records">,
  owner: string,
  namespace: string,
): Promise<BlobEntry[]> {
  const entries = await deps.blobs.list(owner, namespace);
  // After the listing: a job that put a blob listed is active still, or indexed by now.
  const active = new Set<string>();
  for await (const job of deps.queue.active()) {
    if (job.owner === owner && job.namespace === namespace) active.add(job.job_id);
  }
  const { present, erased } = await blobStates(deps, owner, entries);
  return entries.filter(({ meta }) =>
    !present.has(meta.memoryId) && !erased.has(meta.memoryId) && !active.has(meta.memoryId)
  );
}

/** How many memories of a namespace one step of its erase takes. */
const ERASE_BATCH = 500;

/**
 * A namespace's erase that failed after `erased` of its `total` memories (more than one batch),
 * said so: the rest are as they were, or finished by the sweep (their keys erased), and an
 * erase sent again goes on.
 */
function cutShort(error: unknown, erased: number, total: number): unknown {
  if (!(error instanceof SvcError) || total <= ERASE_BATCH) return error;
  return new SvcError(
    error.code,
    `Cannot erase the whole namespace now: at least ${erased} of its ${total} memories were ` +
      `erased. ${error.message}. Send the erase again to erase the rest`,
    { cause: error, details: { ...error.details, erased }, headers: error.headers },
  );
}

/** Erases by id, by blob and by namespace (see the module documentation). */
export function createEraseRequests(deps: EraseRequestDependencies) {
  const { cipher, queue, records, lexicon, eraser, locateStored, now } = deps;
  /** The erases by id under way, by owner and id: a second asking meanwhile shares the first. */
  const erasing = new Map<string, { namespace: string; receipt: Promise<EraseReceipt> }>();
  /** The namespace erase under way or waited for last, by owner and namespace. */
  const erasingNamespaces = new Map<string, Promise<NamespaceErase>>();

  /**
   * Erases what only a blob of a namespace holds, no index row (see `blobsLeft`), `ERASE_BATCH` at a time:
   * restore would bring it back after the namespace's erase.
   */
  async function eraseLeft(
    owner: string,
    namespace: string,
    options: EraseOptions,
  ): Promise<EraseReceipt[]> {
    const left = await blobsLeft(deps, owner, namespace);
    const receipts: EraseReceipt[] = [];
    for (let i = 0; i < left.length; i += ERASE_BATCH) {
      receipts.push(
        ...await eraser.eraseBlobs(owner, namespace, left.slice(i, i + ERASE_BATCH), options),
      );
    }
    return receipts;
  }

  return {
    /**
     * Erases a memory of the owner; `null` when it has none of this id. A memory erased already
     * answers its receipt again where the record names its blob and namespace.
     */
    async erase(
      owner: string,
      id: string,
      options: LocateOptions = {},
    ): Promise<EraseReceipt | null> {
      const key = JSON.stringify([owner, id]);
      // An erase under way (its rows may be gone already) is shared, if the caller may use it.
      const shared = async () => {
        const { namespace, receipt } = erasing.get(key)!;
        options.allow?.(namespace);
        return await receipt;
      };
      if (erasing.has(key)) return await shared();
      const found = await locateStored(owner, id, "erase", options.allow);
      if (erasing.has(key)) return await shared();
      if (!found) {
        return await erasedMoved(owner, id, options) ?? eraser.receiptAgain(owner, id, options);
      }
      const { namespace } = found;
      const receipt = eraser.eraseAsked(owner, namespace, [found.entry], options)
        .then(([receipt]) => receipt)
        .finally(() => erasing.delete(key));
      erasing.set(key, { namespace, receipt });
      return await receipt;
    },

    /** Whether the owner's memory `id` was erased (its erase finished; the answer may be lost). */
    async erasedAlready(owner: string, id: string): Promise<boolean> {
      return (await records.erased(owner, [id])).has(id);
    },

    /**
     * Erases memories that only a blob holds, no index row (restore's copies of a text the
     * namespace holds again): keys, records and blobs, a receipt each.
     */
    eraseBlobs: eraser.eraseBlobs,

    /**
     * Erases every memory of a namespace (expired and replaced ones included), what only a blob
     * of it holds (its index rows lost), and its operator-blind log: no restore brings any back.
     */
    async eraseNamespace(
      owner: string,
      namespace: string,
      options: ReadOptions = {},
    ): Promise<NamespaceErase> {
      // A cipher that cannot erase for this caller refuses before anything is recorded.
      await cipher.erase(owner, [], options);
      // One under way is waited for: what it erased answers its receipts, and a pass of its own
      // erases what landed since it began. So no memory gets two receipts, and none is left.
      const key = JSON.stringify([owner, namespace]);
      const earlier = erasingNamespaces.get(key)?.catch(() => undefined);
      const erase = (async () => {
        const before = await earlier;
        const now = await eraseNamespaceNow(owner, namespace, options);
        const receipts = [...before?.receipts ?? [], ...now.receipts];
        return { ...now, erased: receipts.length, receipts };
      })();
      erasingNamespaces.set(key, erase);
      try {
        return await erase;
      } finally {
        if (erasingNamespaces.get(key) === erase) erasingNamespaces.delete(key);
      }
    },
  };

  /**
   * The memory `id` erased from its namespace as it moved into the namespace's operator-blind
   * log: erased there; `null` when the log does not hold it.
   */
  async function erasedMoved(owner: string, id: string, options: LocateOptions) {
    if (!deps.blind) return null;
    const erasure = await records.erasure(owner, id);
    if (erasure?.namespace === undefined) return null;
    options.allow?.(erasure.namespace);
    return await deps.blind.eraseOneIfBlind(owner, erasure.namespace, id);
  }

  /** `eraseNamespace`, none of the namespace's under way. */
  async function eraseNamespaceNow(
    owner: string,
    namespace: string,
    options: ReadOptions,
  ): Promise<NamespaceErase> {
    // Remembered before the erase and not stored yet: recorded erased first, so that none
    // lands after it (the worker refuses them, or erases one it was already storing).
    const pending: string[] = [];
    for await (const job of queue.active()) {
      if (job.owner === owner && job.namespace === namespace) pending.push(job.job_id);
    }
    await records.markErased(owner, pending.map((memoryId) => ({ memoryId })), now());
    // The operator-blind log first: a failure of it leaves everything else as it was.
    const receipts: EraseReceipt[] = await deps.blind?.eraseIfBlind(owner, namespace) ?? [];
    const blind = receipts.length;
    const entries = (await lexicon.namespace(owner, namespace)).entries();
    try {
      for (let i = 0; i < entries.length; i += ERASE_BATCH) {
        // What an earlier batch erased (an update that landed meanwhile) is not erased again.
        const index = await lexicon.namespace(owner, namespace);
        const batch = entries.slice(i, i + ERASE_BATCH).filter(({ id }) => index.entry(id));
        receipts.push(...await eraser.eraseAsked(owner, namespace, batch, options));
      }
    } catch (error) {
      throw cutShort(error, receipts.length, blind + entries.length);
    }
    receipts.push(...await eraseLeft(owner, namespace, options));
    return { namespace, owner, erased: receipts.length, receipts };
  }
}
