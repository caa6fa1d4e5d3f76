/**
 * The best `k` of a search's scored documents, without sorting them all, and the binary search a
 * search's sorted document numbers need.
 */

/** Where `value` is or would be in ascending `sorted`. */
export function lowerBound(sorted: Int32Array, value: number): number {
  let low = 0, high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The `k` highest of `scores` (of the documents `docs`), best first, without sorting them all;
 * equal scores in the order of their documents' ids (`ids`), so the answer does not depend on
 * the order entries came in.
 */
export function topK(
  docs: Int32Array,
  scores: Float64Array,
  k: number,
  ids: string[],
): [number, number][] {
  const before = (a: [number, number], b: [number, number]) =>
    a[1] > b[1] || (a[1] === b[1] && ids[a[0]] < ids[b[0]]);
  const order = (a: [number, number], b: [number, number]) => before(a, b) ? -1 : 1;
  const best: [number, number][] = [];
  if (k <= 0) return best;
  for (let j = 0; j < docs.length; j++) {
    if (best.length === k && !(scores[j] >= best[k - 1][1])) continue;
    const entry: [number, number] = [docs[j], scores[j]];
    if (best.length < k) {
      best.push(entry);
      if (best.length === k) best.sort(order);
    } else if (before(entry, best[k - 1])) {
      let i = k - 1;
      while (i > 0 && before(entry, best[i - 1])) {
        best[i] = best[i - 1];
        i--;
      }
      best[i] = entry;
    }
  }
  return best.length < k ? best.sort(order) : best;
}
