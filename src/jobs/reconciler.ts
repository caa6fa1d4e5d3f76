/**
 * Re-drives jobs the queue lost track of: at start-up every unfinished job (only one relayer
 * serves a data directory, so none is really running: a running one is given back as
 * `interrupted`, the attempt the crash cut short not counted), then periodically those pending
 * or running past their lease. A periodic pass only enqueues them again: whether a running job
 * is taken over is `lease`'s decision, made atomically, so a job whose worker renewed its lease
 * in the meantime stays with that worker.
 *
 * The relayer's worker can take the jobs re-driven without a message: `deliver` gets the pending
 * jobs of the start-up pass, and the periodic pass leaves alone those its worker `holds`. A
 * message stays in an embedded queue until delivered, so one for each of a backlog the worker
 * already holds would pile up, over the passes of a long backlog and over crashes in a row.
 *
 * A queue other relayers share (`JobQueue.shared`) delivers each pending job at its own due time
 * and loses none, so its pending jobs are left alone (a retry's backoff holds); the start-up pass
 * gives back only the running jobs whose lease ran out (their relayer died; the others are live
 * on another relayer).
 */
import type { Logger } from "../log.ts";
import { type JobQueue, type JobRecord, LeaseLost } from "./job_queue.ts";

/**
 * Gives a running job back to the queue, its attempt cut short by the crash not counted;
 * `false` when it moved on since it was listed.
 */
async function giveBack(queue: JobQueue, record: JobRecord): Promise<boolean> {
  try {
    await queue.interrupted(record);
    return true;
  } catch (error) {
    if (error instanceof LeaseLost) return false;
    throw error;
  }
}

/**
 * Re-drives unfinished jobs (see the module's comment); resolves to how many. `counted` hears
 * how many unfinished jobs the pass found; `deliver`, at start-up, takes the pending jobs instead
 * of a message each; `holds` tells the jobs the periodic pass leaves alone (its worker has them).
 */
export async function reconcileJobs(
  queue: JobQueue,
  logger: Logger,
  options: {
    startup: boolean;
    now?: number;
    counted?: (unfinished: number) => void;
    deliver?: (record: JobRecord) => void;
    holds?: (jobId: string) => boolean;
  },
): Promise<number> {
  const now = options.now ?? Date.now();
  let redriven = 0, unfinished = 0;
  for await (const record of queue.active()) {
    unfinished++;
    if (!options.startup && options.holds?.(record.job_id)) continue;
    if (record.status === "running" && options.startup) {
      // As `lease` sees it: a lease runs out at `lease_until`.
      if (queue.shared && (record.lease_until ?? 0) > now) continue;
      if (!await giveBack(queue, record)) continue;
    } else if (record.status === "running") {
      if ((record.lease_until ?? 0) >= now) continue;
      await queue.redrive(record.job_id);
    } else {
      const recent = Date.parse(record.updated_at) + queue.leaseMs >= now;
      if (queue.shared || (!options.startup && recent)) continue;
      if (options.startup && options.deliver) options.deliver(record);
      else await queue.redrive(record.job_id);
    }
    redriven++;
  }
  options.counted?.(unfinished);
  if (redriven > 0) logger.info("re-drove unfinished jobs", { count: redriven });
  return redriven;
}
