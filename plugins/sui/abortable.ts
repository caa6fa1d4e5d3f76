/**
 * Lets a caller stop waiting for work it shares with others: the shared promise runs on, the
 * caller's promise rejects with its signal's reason as soon as the signal aborts.
 *
 * @example
 * ```ts
 * const tableId = await abortable(sharedRead, options.signal);
 * ```
 * @module
 */

/** `promise`, or the signal's reason as soon as it aborts (the promise itself runs on). */
export function abortable<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
