/**
 * Sentence-transformers pooling over a transformer's token states, and L2 normalisation: pure
 * functions on typed arrays, run inside the embedder's worker.
 *
 * @example
 * ```ts
 * // Two tokens of a 2-d state, the second one padding:
 * const [vector] = pool(new Float32Array([1, 2, 9, 9]), [1, 0], [1, 2, 2], ["mean"]);
 * // vector: [1, 2]
 * ```
 */

/**
 * The pooling modes of `1_Pooling/config.json`, in the order sentence-transformers concatenates
 * them when several are on.
 */
export const POOLING_MODES = [
  "cls",
  "max",
  "mean",
  "mean_sqrt_len",
  "weightedmean",
  "lasttoken",
] as const;
/** One pooling mode. */
export type PoolingMode = typeof POOLING_MODES[number];

/** The key of each mode in `1_Pooling/config.json`. */
export const POOLING_KEYS: Record<PoolingMode, string> = {
  cls: "pooling_mode_cls_token",
  max: "pooling_mode_max_tokens",
  mean: "pooling_mode_mean_tokens",
  mean_sqrt_len: "pooling_mode_mean_sqrt_len_tokens",
  weightedmean: "pooling_mode_weightedmean_tokens",
  lasttoken: "pooling_mode_lasttoken",
};

/**
 * One vector per sequence: `states` is `[batch, sequence, hidden]` row-major (`dims`), `mask`
 * the attention mask (`[batch, sequence]`, 1 for a token, 0 for padding, padding on the right).
 * Several modes are concatenated, each `hidden` long.
 */
export function pool(
  states: Float32Array,
  mask: ArrayLike<number | bigint>,
  dims: readonly number[],
  modes: readonly PoolingMode[],
): Float32Array[] {
  const [batch, sequence, hidden] = dims;
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const vector = new Float32Array(hidden * modes.length);
    const row = (s: number) => (b * sequence + s) * hidden;
    const on = (s: number) => Number(mask[b * sequence + s]) !== 0;
    let tokens = 0;
    let last = 0;
    for (let s = 0; s < sequence; s++) {
      if (on(s)) {
        tokens++;
        last = s;
      }
    }
    for (const [m, mode] of modes.entries()) {
      const target = vector.subarray(m * hidden, (m + 1) * hidden);
      switch (mode) {
        case "cls":
          target.set(states.subarray(row(0), row(0) + hidden));
          break;
        case "lasttoken":
          target.set(states.subarray(row(last), row(last) + hidden));
          break;
        case "max": {
          target.fill(tokens ? -Infinity : 0);
          for (let s = 0; s < sequence; s++) {
            if (!on(s)) continue;
            for (let h = 0; h < hidden; h++) target[h] = Math.max(target[h], states[row(s) + h]);
          }
          break;
        }
        default: {
          // mean, mean_sqrt_len and weightedmean: a weighted sum over the tokens.
          let total = 0;
          for (let s = 0; s < sequence; s++) {
            if (!on(s)) continue;
            const weight = mode === "weightedmean" ? s + 1 : 1;
            total += weight;
            for (let h = 0; h < hidden; h++) target[h] += weight * states[row(s) + h];
          }
          const divisor = mode === "mean_sqrt_len" ? Math.sqrt(tokens) : total;
          if (divisor > 0) { for (let h = 0; h < hidden; h++) target[h] /= divisor; }
        }
      }
    }
    out.push(vector);
  }
  return out;
}

/**
 * The vector scaled to length 1, in place; a zero vector (nothing to go by) becomes the first
 * unit vector, so every result is a valid direction for cosine distance. A vector with a NaN or
 * an infinity (a broken model) is refused.
 */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm)) throw new Error("the model produced a vector that is not finite");
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  for (let i = 0; i < vector.length; i++) vector[i] /= norm;
  return vector;
}
