/**
 * A relayer's background work: the jobs the queue delivers go to the worker (held back while
 * the disk is full), the reconciler re-drives the jobs the queue lost track of, the expiry sweep
 * erases what expired and the access log prunes its old entries.
 */
import type { JobQueue, JobRecord } from "./jobs/job_queue.ts";
import { reconcileJobs } from "./jobs/reconciler.ts";
import { whileRoom } from "./jobs/while_room.ts";
import type { Worker } from "./remember/worker.ts";
import type { Logger } from "./log.ts";
import type { RelayerMetrics } from "./metrics/relayer_metrics.ts";
import type { AccessLog } from "./services/access_log.ts";
import type { LifecycleService } from "./services/lifecycle.ts";
import type { RelayerOptions } from "./relayer_options.ts";

/** What the background work runs, and its settings. */
export interface BackgroundDependencies {
  queue: JobQueue;
  worker: Worker;
  lifecycle: LifecycleService;
  accessLog: AccessLog;
  metrics: RelayerMetrics;
  logger: Logger;
  options: Pick<
    RelayerOptions,
    "diskSpace" | "processJobs" | "reconcileIntervalMs" | "expirySweepMs"
  >;
}

/** The background work started. */
export interface BackgroundWork {
  /**
   * Stops the deliveries and the timers, then waits for the sweep and the job batches running
   * (the access log is the caller's to close).
   */
  stop(): Promise<void>;
}

type Room = ReturnType<typeof whileRoom>;

/** Whether the disk is full: the worker then takes no job. */
function diskFull(options: BackgroundDependencies["options"]): boolean {
  return options.diskSpace?.low === true;
}

/**
 * Starts the background work, unless `processJobs` is false; resolves once the jobs the last
 * run left are found, and the queue is listened to.
 */
export async function startBackgroundWork(deps: BackgroundDependencies): Promise<BackgroundWork> {
  const { worker, lifecycle, options } = deps;
  const listening = new AbortController();
  /** The worker's door, closed while the disk is full. */
  const room = whileRoom(options.diskSpace, (jobId, owner) => worker.process(jobId, owner));
  let reconciler: ReturnType<typeof setInterval> | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  if (options.processJobs ?? true) {
    // Before listening: a job the last run left `running` is given back while no worker here
    // holds it. Listening first, a delivery could lease it and this give it back from under
    // that worker, for a second delivery to run it again at the same time.
    // The jobs left pending go to the worker without a message each (see `reconcileJobs`), once
    // the pass is over: it, and so the start, does not wait on the worker's batches. The periodic
    // pass leaves the jobs the worker holds to it.
    await takeJobs(deps, room, listening.signal);
    reconciler = scheduleReconciler(deps);
    sweeper = scheduleExpirySweep(deps);
    deps.accessLog.schedulePrune(3_600_000);
  }
  return {
    async stop() {
      listening.abort();
      clearInterval(reconciler);
      room.stop();
      clearInterval(sweeper);
      await lifecycle.stopSweeping();
      await worker.stop();
    },
  };
}

/** Gives back the jobs the last run left, then listens: both go to the worker through `room`. */
async function takeJobs(deps: BackgroundDependencies, room: Room, signal: AbortSignal) {
  const { queue, worker, metrics, logger, options } = deps;
  const backlog: JobRecord[] = [];
  await reconcileJobs(queue, logger, {
    startup: true,
    counted: metrics.unfinishedJobs,
    deliver: (record) => void backlog.push(record),
  });
  const taking = {
    id: worker.id,
    ready: (jobs: number) => !diskFull(options) && worker.ready(jobs),
  };
  queue.listen(({ job_id, owner }) => room.take(job_id, owner), { signal, worker: taking })
    .catch((error) => logger.error("job queue listener stopped", { error }));
  for (const { job_id, owner } of backlog) room.take(job_id, owner);
}

/** Re-drives the jobs the queue lost track of, every `reconcileIntervalMs` the disk has room. */
function scheduleReconciler(deps: BackgroundDependencies) {
  const { queue, worker, metrics, logger, options } = deps;
  return setInterval(() => {
    if (diskFull(options)) return;
    reconcileJobs(queue, logger, {
      startup: false,
      counted: metrics.unfinishedJobs,
      holds: (jobId) => worker.holds(jobId),
    }).catch((error) => logger.error("reconciler failed", { error }));
  }, options.reconcileIntervalMs ?? 60_000);
}

/** Erases what expired now, then every `expirySweepMs`. */
function scheduleExpirySweep(deps: BackgroundDependencies) {
  const { lifecycle, logger, options } = deps;
  const sweep = () =>
    lifecycle.sweep().catch((error) => logger.error("expiry sweep failed", { error }));
  sweep();
  return setInterval(sweep, options.expirySweepMs ?? 60_000);
}
