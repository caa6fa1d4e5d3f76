/**
 * `process` (a job, and its owner where known), deferred while the disk is full (`disk.low`): the jobs delivered meanwhile wait in
 * memory (their records stay pending, for the next start should the process stop) and go to
 * `process` once there is room again, looked for every `checkMs`. `stop` ends the wait.
 *
 * @example
 * ```ts
 * const room = whileRoom(diskSpace, (jobId, owner) => worker.process(jobId, owner));
 * queue.listen(({ job_id, owner }) => room.take(job_id, owner));
 * ```
 */
export function whileRoom(
  disk: { readonly low: boolean } | undefined,
  process: (jobId: string, owner?: string) => Promise<void>,
  checkMs = 2_000,
): { take(jobId: string, owner?: string): Promise<void>; stop(): void } {
  /** The jobs deferred, with their owners. */
  const deferred = new Map<string, string | undefined>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const take = (jobId: string, owner?: string): Promise<void> => {
    if (!disk?.low) return process(jobId, owner);
    deferred.set(jobId, owner);
    timer ??= setInterval(() => {
      if (disk.low) return;
      stop();
      const jobs = [...deferred];
      deferred.clear();
      for (const [id, owner] of jobs) void process(id, owner);
    }, checkMs);
    return Promise.resolve();
  };
  return { take, stop };
}
