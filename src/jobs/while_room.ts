/**
 * `process`, deferred while the disk is full (`disk.low`): the jobs delivered meanwhile wait in
 * memory (their records stay pending, for the next start should the process stop) and go to
 * `process` once there is room again, looked for every `checkMs`. `stop` ends the wait.
 *
 * @example
 * ```ts
 * const room = whileRoom(diskSpace, (jobId) => worker.process(jobId));
 * queue.listen(({ job_id }) => room.take(job_id));
 * ```
 */
export function whileRoom(
  disk: { readonly low: boolean } | undefined,
  process: (jobId: string) => Promise<void>,
  checkMs = 2_000,
): { take(jobId: string): Promise<void>; stop(): void } {
  const deferred = new Set<string>();
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const take = (jobId: string): Promise<void> => {
    if (!disk?.low) return process(jobId);
    deferred.add(jobId);
    timer ??= setInterval(() => {
      if (disk.low) return;
      stop();
      const jobs = [...deferred];
      deferred.clear();
      for (const id of jobs) void process(id);
    }, checkMs);
    return Promise.resolve();
  };
  return { take, stop };
}
