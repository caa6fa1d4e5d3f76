/**
 * Re-drives jobs the queue lost track of: at start-up every unfinished job (only one relayer
 * serves a data directory, so none is really running), then periodically those pending or
 * running past their lease.
 */
import type { Logger } from "../log.ts";
import type { JobQueue } from "./job_queue.ts";

export async function reconcileJobs(
  queue: JobQueue,
  logger: Logger,
  options: { startup: boolean; now?: number },
): Promise<number> {
  const now = options.now ?? Date.now();
  let redriven = 0;
  for await (const record of queue.active()) {
    if (record.status === "running") {
      if (!options.startup && (record.lease_until ?? 0) >= now) continue;
      await queue.retry(record, record.error, 0);
    } else {
      if (!options.startup && Date.parse(record.updated_at) + queue.leaseMs >= now) continue;
      await queue.redrive(record.job_id);
    }
    redriven++;
  }
  if (redriven > 0) logger.info("re-drove unfinished jobs", { count: redriven });
  return redriven;
}
