/**
 * A pause that ends early when asked to.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * setTimeout(() => stop.abort(), 10);
 * await sleep(60_000, stop.signal); // resolves after about 10 ms
 * ```
 * @module
 */

/** Resolves after `ms`, or as soon as `signal` aborts (at once if it has). Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal?.addEventListener("abort", wake, { once: true });
  });
}
