/**
 * Re-drives jobs the queue lost track of: at start-up every unfinished job (only one relayer
 * serves a data directory, so none is really running: a running one is given back as
 * `interrupted`, the attempt the crash cut short not counted), then periodically those pending
 * or running past their lease. A periodic pass only enqueues them again: whether a running job
 * is taken over is `lease`'s decision, made atomically, so a job whose worker renewed its lease
 * in the meantime stays with that worker.
 *
 * The start-up pass can collect the pending jobs (`backlog`) instead of enqueueing them, for the
 * caller to hand to its worker once it listens: a message enqueued for each stays in an embedded
 * queue until delivered, so a relayer that crashed again before they were done would enqueue
 * them again at every start, each start's messages delivered on top of the last's.
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
 * how many unfinished jobs the pass found; `backlog`, when given at start-up, receives the
 * pending jobs' ids, not enqueued: its caller hands them to its worker.
 */
export async function reconcileJobs(
  queue: JobQueue,
  logger: Logger,
  options: {
    startup: boolean;
    now?: number;
    counted?: (unfinished: number) => void;
    backlog?: string[];
  },
): Promise<number> {
  const now = options.now ?? Date.now();
  let redriven = 0, unfinished = 0;
  for await (const record of queue.active()) {
    unfinished++;
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
      if (options.startup && options.backlog) options.backlog.push(record.job_id);
      else await queue.redrive(record.job_id);
    }
    redriven++;
  }
  options.counted?.(unfinished);
  if (redriven > 0) logger.info("re-drove unfinished jobs", { count: redriven });
  return redriven;
}
