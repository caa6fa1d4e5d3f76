/**
 * Writes asked for one at a time, made together (a group commit): the items handed in while a
 * group is being written wait, and the next group writes them at once, so that many callers cost
 * one write (one commit, one round trip) per group rather than one each. The calls made in one
 * turn of the event loop join the first group.
 *
 * A group takes the waiting items in order while each of its sums of `weigh` stays within
 * `limits`; its first item always goes, alone when it is over them. Each call resolves with its
 * item's result once the write of its group resolved, and rejects with that write's error.
 *
 * @example
 * ```ts
 * const kv = await Deno.openKv(":memory:");
 * const put = writeTogether(async (keys: string[]) => {
 *   const op = kv.atomic();
 *   for (const key of keys) op.set([key], true);
 *   await op.commit();
 * }, { limits: [100] });
 * await Promise.all([put("a"), put("b")]); // one commit
 * ```
 */
export function writeTogether<T, R = void>(
  write: (items: T[]) => Promise<R[] | void>,
  { limits = [Infinity], weigh = () => [1] }: {
    limits?: readonly number[];
    weigh?: (item: T) => readonly number[];
  } = {},
): (item: T) => Promise<R> {
  const waiting: { item: T; done: PromiseWithResolvers<R> }[] = [];
  let writing = false;
  const fitting = () => {
    const sums = limits.map(() => 0);
    let count = 0;
    for (const { item } of waiting) {
      const weights = weigh(item);
      if (count > 0 && weights.some((weight, i) => sums[i] + weight > limits[i])) break;
      weights.forEach((weight, i) => sums[i] += weight);
      count++;
    }
    return waiting.splice(0, count);
  };
  const drain = async () => {
    while (waiting.length > 0) {
      const group = fitting();
      try {
        const results = await write(group.map(({ item }) => item));
        group.forEach(({ done }, i) => done.resolve(results?.[i] as R));
      } catch (error) {
        for (const { done } of group) done.reject(error);
      }
    }
    writing = false;
  };
  return (item) => {
    const done = Promise.withResolvers<R>();
    waiting.push({ item, done });
    if (!writing) {
      writing = true;
      queueMicrotask(drain);
    }
    return done.promise;
  };
}
