/**
 * The expiry sweep: the memories whose expiry came are erased, a batch at a time, by one sweep
 * at a time; it stops once the relayer closes.
 */
import type { VectorStore } from "../backends/types.ts";
import type { Logger } from "../log.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { Eraser } from "./eraser.ts";
import type { Expiry, LifecycleRecordStore } from "./lifecycle_records.ts";

/**
 * Batches one expiry sweep erases at most: a schedule that keeps filling faster than a sweep
 * empties it still lets the sweep end (the next goes on a minute later).
 */
const MAX_SWEEP_BATCHES = 200;

/** How long a sweep holds the expiries it took (a minute: the next sweep's turn). */
const SWEEP_LEASE_MS = 60_000;

export interface ExpirySweepDependencies {
  /** The expiry schedule. */
  records: LifecycleRecordStore;
  lexicon: LexicalIndex;
  vectors: VectorStore;
  eraser: Pick<Eraser, "eraseEntries" | "eraseUnindexed">;
  logger: Logger;
  /** Unix milliseconds. */
  now: () => number;
}

/** Sweeps expired memories (see the module documentation). */
export function createExpirySweep(deps: ExpirySweepDependencies) {
  const { records, lexicon, vectors, eraser, logger, now } = deps;
  /** The expiry sweep under way; `stopped` once the relayer closes (no batch starts after). */
  let sweeping: Promise<number> | undefined;
  let stopped = false;

  /** Erases expired memories of one namespace, held by its index or not; resolves to how many. */
  async function eraseExpired(expiries: Expiry[]): Promise<number> {
    const { owner, namespace } = expiries[0];
    const held = async () => {
      const index = await lexicon.namespace(owner, namespace);
      return expiries.flatMap(({ memoryId }) => index.entry(memoryId) ?? []);
    };
    let entries = await held();
    if (entries.length < expiries.length && vectors.revalidate) {
      // Another relayer's memory this one has not heard of yet is not gone: look again.
      await vectors.revalidate(owner, namespace);
      entries = await held();
    }
    const erased = (await eraser.eraseEntries(owner, namespace, entries)).length;
    const own = new Map(entries.map((entry) => [entry.id, entry.info?.expiresAt]));
    // Done with: the entries due that were not the memories' own expiries (the erase took those
    // off), but an erase cut short's.
    await records.unschedule(
      expiries.filter((e) => own.has(e.memoryId) && own.get(e.memoryId) !== e.expiresAt),
    );
    const unindexed = expiries.filter((e) => !own.has(e.memoryId));
    return erased + await eraser.eraseUnindexed(owner, unindexed);
  }

  /** Erases the expired memories (see `sweep`). */
  async function sweepAll(batch: number): Promise<number> {
    let erased = 0;
    for (let round = 0; round < MAX_SWEEP_BATCHES && !stopped; round++) {
      const due = await records.due(now(), batch, SWEEP_LEASE_MS);
      const groups = Map.groupBy(due, ({ owner, namespace }) => JSON.stringify([owner, namespace]));
      for (const expiries of groups.values()) erased += await eraseExpired(expiries);
      if (due.length < batch) break;
    }
    if (erased > 0) logger.info("expired memories erased", { count: erased });
    return erased;
  }

  return {
    /**
     * Erases the memories expired at `now`, `batch` at a time until none is left (or
     * `MAX_SWEEP_BATCHES` have run); resolves to how many. A sweep asked for while one runs
     * shares it.
     */
    sweep(batch = 500): Promise<number> {
      sweeping ??= sweepAll(batch).finally(() => sweeping = undefined);
      return sweeping;
    },

    /** Lets the sweep under way finish its batch, and starts no more; resolves once it has. */
    async stopSweeping(): Promise<void> {
      stopped = true;
      await sweeping?.catch(() => {});
    },
  };
}
