/**
 * The lifecycle of memories after remember: list and get (`memory_catalog.ts`), erase
 * (`erase_requests.ts`, as `eraser.ts` does it; a signed receipt per memory), update (a new
 * version queued by `update_requests.ts`, that replaces the old one once indexed:
 * `remember/landing.ts`) and expiry (a sweep erases what expired: `expiry_sweep.ts`). Callers pass
 * values that are already validated.
 */
import type { BlobStore, Cipher, VectorStore } from "../backends/types.ts";
import type { JobQueue } from "../jobs/job_queue.ts";
import type { Logger } from "../log.ts";
import type { AttributeSeal } from "../pipeline/attributes.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import { createEraseRequests } from "./erase_requests.ts";
import type { Eraser } from "./eraser.ts";
import { createExpirySweep } from "./expiry_sweep.ts";
import type { LifecycleRecordStore } from "./lifecycle_records.ts";
import { createMemoryCatalog } from "./memory_catalog.ts";
import { createMemoryLocator } from "./memory_locator.ts";
import type { MemoryReader } from "./reader.ts";
import type { BlindLog } from "./blind_log.ts";
import { createUpdateRequests } from "./update_requests.ts";

export type { NamespaceErase } from "./erase_requests.ts";

export interface LifecycleDependencies {
  queue: JobQueue;
  cipher: Cipher;
  blobs: BlobStore;
  vectors: VectorStore;
  lexicon: LexicalIndex;
  hasher: TermHasher;
  attributeSeal: AttributeSeal;
  reader: MemoryReader;
  records: LifecycleRecordStore;
  /** Erases memories, as owners ask and as they expire. */
  eraser: Eraser;
  logger: Logger;
  /** Unix milliseconds (default `Date.now`). */
  now?: () => number;
  /** Throws 409 when a namespace is operator-blind: an update would hand the relayer its text. */
  refuseBlind?: (owner: string, namespaces: string[]) => Promise<void>;
  /** The operator-blind logs an erase reaches too (`EraseRequestDependencies.blind`). */
  blind?: Pick<BlindLog, "eraseIfBlind" | "eraseOneIfBlind">;
}

/**
 * The lifecycle service: reads of the catalog, erases and updates as owners ask, and the expiry
 * sweep (see the module documentation).
 */
export function createLifecycleService(deps: LifecycleDependencies) {
  const now = deps.now ?? Date.now;
  const { locate, locateStored } = createMemoryLocator({ ...deps, now });
  return {
    ...createMemoryCatalog({ ...deps, locate, now }),
    ...createEraseRequests({ ...deps, locateStored, now }),
    ...createUpdateRequests({ ...deps, locateStored, now }),
    ...createExpirySweep({ ...deps, now }),
  };
}

export type LifecycleService = ReturnType<typeof createLifecycleService>;
