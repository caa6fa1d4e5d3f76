/**
 * The texts of recently recalled or stored memories, by owner and blob id, within a budget of
 * bytes; past it the least recently used go. A blob id names its content, so an entry never goes
 * stale; the owner is part of the key because a text is what the blob decrypts to for its owner
 * (the same bytes filed by another owner do not decrypt).
 * Recall keeps texts here only when the cipher holds its own keys (`Cipher.holdsKeys`): then the
 * relayer could read them at any time anyway, and a recall need not read and decrypt the same
 * blobs again. With a cipher that decrypts with the caller's key (Seal) nothing is kept.
 *
 * @example
 * ```ts
 * const texts = new TextCache(64 * 2 ** 20);
 * texts.set(owner, blobId, "I am vegetarian");
 * texts.get(owner, blobId); // "I am vegetarian"
 * ```
 */
export class TextCache {
  /** By blob id (the owner is checked on the way out, so no key string is built per call). */
  #texts = new Map<string, { owner: string; text: string }>();
  #bytes = 0;
  #budget: number;
  #dropped?: (text: string) => void;

  /**
   * A cache holding at most `budgetBytes`, each entry counted as its text and blob id (two bytes
   * a character) and 128 bytes of bookkeeping; `dropped` hears of every text that leaves it.
   */
  constructor(budgetBytes: number, dropped?: (text: string) => void) {
    this.#budget = budgetBytes;
    this.#dropped = dropped;
  }

  /** Whether the text of `owner`'s blob `blobId` is kept (it stays where it is). */
  holds(owner: string, blobId: string): boolean {
    return this.#texts.get(blobId)?.owner === owner;
  }

  /** The text of `owner`'s blob `blobId`, if kept (it becomes the most recently used). */
  get(owner: string, blobId: string): string | undefined {
    const entry = this.#texts.get(blobId);
    if (entry?.owner !== owner) return undefined;
    this.#texts.delete(blobId);
    this.#texts.set(blobId, entry);
    return entry.text;
  }

  /** Forgets a blob's text (its memory was erased). */
  delete(blobId: string): void {
    const entry = this.#texts.get(blobId);
    if (entry) this.#drop(blobId, entry.text);
  }

  /** Keeps `text` as what `owner`'s blob `blobId` decrypts to, within the budget. */
  set(owner: string, blobId: string, text: string): void {
    const size = entryBytes(blobId, text);
    if (size > this.#budget || this.#texts.has(blobId)) return;
    this.#texts.set(blobId, { owner, text });
    this.#bytes += size;
    for (const [oldest, old] of this.#texts) {
      if (this.#bytes <= this.#budget) break;
      this.#drop(oldest, old.text);
    }
  }

  #drop(blobId: string, text: string): void {
    this.#texts.delete(blobId);
    this.#bytes -= entryBytes(blobId, text);
    this.#dropped?.(text);
  }
}

function entryBytes(blobId: string, text: string): number {
  return 2 * (blobId.length + text.length) + 128;
}
