/**
 * Runs `task` with a signal that aborts when `signal` does or when `ms` run out; when they run
 * out it rejects with "<what> timed out after <ms> ms", whether or not the task stops. A call
 * costs one controller, one listener and one timer: `AbortSignal.any` would add a dependent
 * signal held weakly by its source, work for the collector on every backend call of every job.
 */
export function withTimeout<T>(
  ms: number,
  what: string,
  task: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new Error(`${what} timed out after ${ms} ms`);
      controller.abort(error);
      reject(error);
    }, ms);
    try {
      task(controller.signal).then(resolve, reject).finally(() => clearTimeout(timer));
    } catch (error) {
      clearTimeout(timer);
      reject(error);
    }
  });
}
