/**
 * Reads asked for one at a time, sent together: the calls made in one turn of the event loop
 * go to `readMany` in groups of at most `size`, all groups at once, and each call is answered
 * with its own result. A group that fails fails each of its calls with that error.
 *
 * @example
 * ```ts
 * const kv = await Deno.openKv(":memory:");
 * const get = readTogether(10, async (keys: Deno.KvKey[]) =>
 *   (await kv.getMany(keys)).map((entry) => entry.value));
 * const [a, b] = await Promise.all([get(["a"]), get(["b"])]); // one getMany
 * ```
 */
export function readTogether<T, R>(
  size: number,
  readMany: (items: T[]) => Promise<R[]>,
): (item: T) => Promise<R> {
  let waiting: { item: T; read: PromiseWithResolvers<R> }[] = [];
  async function send(group: typeof waiting): Promise<void> {
    try {
      const results = await readMany(group.map(({ item }) => item));
      group.forEach(({ read }, i) => read.resolve(results[i]));
    } catch (error) {
      for (const { read } of group) read.reject(error);
    }
  }
  return (item) => {
    const read = Promise.withResolvers<R>();
    // The calls made in the same turn join the first.
    if (waiting.push({ item, read }) === 1) {
      queueMicrotask(() => {
        const all = waiting;
        waiting = [];
        for (let at = 0; at < all.length; at += size) send(all.slice(at, at + size));
      });
    }
    return read.promise;
  };
}
