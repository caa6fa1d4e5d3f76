/** Constant-time comparison of secrets. */

const encoder = new TextEncoder();

/** Whether `a` equals `b`, in time that does not depend on where they differ. */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a), y = encoder.encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
