/**
 * What keeps a running batch's jobs its own (see `batch.ts`): their leases renewed, and the
 * texts they claimed claimed again, every third of the queue's `leaseMs`.
 */
import { sleep } from "@svc/util/sleep";
import { LeaseLost } from "../jobs/job_queue.ts";
import type { BatchJob } from "./batch_job.ts";
import type { TextClaims } from "./text_claims.ts";
import type { WorkerDependencies } from "./worker.ts";

/** What the heartbeat renews with, and where it tells of renewals that fail. */
export interface HeartbeatDependencies extends Pick<WorkerDependencies, "queue" | "logger"> {
  textClaims: TextClaims;
}

/**
 * Renews the leases of the batch's unfinished jobs every third of `leaseMs` until `stop`
 * aborts; aborts a job's `lost` when a renewal finds its lease gone. A renewal that fails
 * (the job store is down) is tried again at the next beat.
 */
export async function heartbeat(
  deps: HeartbeatDependencies,
  jobs: BatchJob[],
  stop: AbortSignal,
): Promise<void> {
  const { queue, logger, textClaims } = deps;
  const beatMs = Math.max(1, Math.floor(queue.leaseMs / 3));
  while (!stop.aborted) {
    await sleep(beatMs, stop);
    if (stop.aborted) return;
    await Promise.all(
      jobs.filter((job) => !job.over).map(async (job) => {
        try {
          if (!(await queue.renew(job.record)) && !job.over) {
            job.lost.abort(new LeaseLost(job.record.job_id));
          }
        } catch (error) {
          logger.warn("cannot renew a job's lease", { job_id: job.record.job_id, error });
        }
      }),
    );
    // The texts the jobs claimed, held as long as their leases.
    const held = jobs.filter((job) => job.claimed && !job.over && !job.lost.signal.aborted)
      .map((job) => ({ place: job.claimed!, job: job.record.job_id }));
    await textClaims.claim(held, Date.now()).catch((error) => {
      logger.warn("cannot renew the texts a batch stores", { error });
    });
  }
}
