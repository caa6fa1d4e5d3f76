/**
 * How long the texts of requests may be, in bytes of UTF-8: the routes refuse longer ones, and
 * the MCP tools check the same before they send a request.
 */

/** A memory's text (remember, update, import): 1 MiB. */
export const MAX_TEXT_BYTES = 1024 * 1024;
/** A recall's query: 64 KiB. */
export const MAX_QUERY_BYTES = 64 * 1024;
/** The text analyze extracts facts from: 64 KiB. */
export const MAX_ANALYZE_BYTES = 64 * 1024;
/** The most facts one text gives (analyze); extraction keeps the first ones. */
export const MAX_FACTS = 20;
/** A manual memory's ciphertext named by `blob_id`: 2 MiB, what a request body may hold. */
export const MAX_MANUAL_BLOB_BYTES = 2 * 1024 * 1024;

/**
 * The memory texts one answer holds at most, in bytes of UTF-8: a page of a listing, a recall's
 * results, a batch of an export. A page ends early past it (its cursor goes on); a recall answers
 * its best results up to it; each answer holds one memory at least.
 */
export const MAX_ANSWER_TEXT_BYTES = 4 * 1024 * 1024;

/** How many memory texts a request reads and decrypts at once. */
export const TEXT_READS = 16;

/**
 * `read` of `items`, `TEXT_READS` at a time and in order, until the texts read (`bytesOf` what
 * one gave) pass `MAX_ANSWER_TEXT_BYTES`: the first one past it is left out, unless it is the
 * first.
 */
export async function readWithin<T, R>(
  items: T[],
  read: (item: T) => Promise<R>,
  bytesOf: (read: R) => number,
): Promise<R[]> {
  const out: R[] = [];
  let bytes = 0;
  for (let at = 0; at < items.length; at += TEXT_READS) {
    for (const one of await Promise.all(items.slice(at, at + TEXT_READS).map(read))) {
      bytes += bytesOf(one);
      if (out.length > 0 && bytes > MAX_ANSWER_TEXT_BYTES) return out;
      out.push(one);
    }
  }
  return out;
}

/**
 * What a re-ranker and the answer-type check read of each memory's text: its first 12 Ki characters
 * (about 2,000 English words, far more than a sentence model reads). The lexical index counts a
 * text's first 1,024 content words (`MAX_TERMS` of `ranking/terms.ts`). A longer memory is stored
 * and returned whole; ranking it costs no more than ranking one of this length.
 */
const RANKED_TEXT_CHARS = 12 * 1024;

/** What ranking reads of a memory's text (see `RANKED_TEXT_CHARS`). */
export function rankedText(text: string): string {
  return text.length > RANKED_TEXT_CHARS ? text.slice(0, RANKED_TEXT_CHARS) : text;
}

/** Whether `rankedText` gives `text` whole: what ranking read of it is all of it. */
export function rankedWhole(text: string): boolean {
  return text.length < RANKED_TEXT_CHARS;
}

/** The bytes of `text` in UTF-8, counted without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    // A surrogate pair is one code point of 4 bytes; a lone surrogate is written as U+FFFD (3).
    else if (unit >= 0xd800 && unit < 0xdc00 && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit < 0xe000;
}
