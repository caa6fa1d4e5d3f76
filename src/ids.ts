/**
 * Memory ids: UUIDs of version 7 (RFC 9562), whose first 48 bits are the time in milliseconds,
 * followed by a 12-bit counter for ids of the same millisecond and 62 random bits. Ids of one
 * process therefore sort, as strings, in the order they were made, which is the order the
 * memories were remembered in.
 *
 * @example
 * ```ts
 * const first = timeOrderedId();
 * const second = timeOrderedId();
 * first < second; // true
 * idTime(first); // the millisecond it was made in
 * ```
 */

/** A memory id (also its remember job's): a lowercase UUID. */
export const MEMORY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let lastMs = 0;
let counter = 0;

/** A new version 7 UUID, greater than every id made before it by this process. */
export function timeOrderedId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    lastMs++; // 4096 ids in one millisecond: borrow the next one
    counter = 0;
  }
  const random = crypto.getRandomValues(new Uint8Array(8));
  random[0] = 0x80 | (random[0] & 0x3f); // the variant bits
  const time = lastMs.toString(16).padStart(12, "0");
  const tail = random.toHex();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${counter.toString(16).padStart(3, "0")}-` +
    `${tail.slice(0, 4)}-${tail.slice(4)}`;
}

/** The millisecond a version 7 UUID was made in; `undefined` for other ids. */
export function idTime(id: string): number | undefined {
  const match = V7.exec(id);
  return match ? parseInt(match[1] + match[2], 16) : undefined;
}
