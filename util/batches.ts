/**
 * Items of an async iterable in arrays, and counted: what a long copy walks through, telling its
 * progress.
 *
 * @example
 * ```ts
 * for await (const batch of batches(items(), 200)) await write(batch);
 * ```
 * @module
 */

/** Told of a long task's progress: items done, of `total`. */
export type Tell = (done: number, total: number) => void;

/** `items` in arrays of `size` (the last one shorter). */
export async function* batches<T>(items: AsyncIterable<T>, size: number): AsyncIterable<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** How many items `items` lists. */
export async function count(items: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of items) n++;
  return n;
}
