/**
 * Reads that see every change made before they were asked for, shared between callers: each call
 * resolves to a read that started after it, the one it starts when none is under way, else the
 * one queued behind it, which the calls made meanwhile share.
 *
 * @example
 * ```ts
 * const version = freshRead(() => Promise.resolve(Date.now()));
 * const [a, b] = await Promise.all([version(), version()]); // one read under way, one queued
 * ```
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let reading: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = () => {
    const current = read();
    reading = current;
    const done = () => {
      if (reading === current) reading = undefined;
    };
    current.then(done, done);
    return current;
  };
  return () => {
    if (!reading) return start();
    queued ??= reading.catch(() => {}).then(() => {
      queued = undefined;
      return start();
    });
    return queued;
  };
}
