import type { VectorStore } from "../backends/types.ts";
import { livesAsLong, type NamespaceIndex } from "../ranking/lexical_index.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { MemoryKey, MemoryText, TextPlace } from "./remember.ts";

/** What finding duplicate texts reads. */
export interface TextDuplicatesDependencies {
  vectors: VectorStore;
  /** Keyed digests of memory texts. */
  hasher: TermHasher;
  /** The namespaces' indexes, which know the memory holding each digest. */
  lexicon: LexicalIndex;
  /** Unix milliseconds: whether a memory a text repeats has expired. */
  now: () => number;
}

/** See `RememberPipeline.duplicates`. */
export async function findDuplicates(
  { vectors, hasher, lexicon, now }: TextDuplicatesDependencies,
  memories: (MemoryKey & MemoryText)[],
  options: { fresh?: boolean } = {},
): Promise<TextPlace[]> {
  if (options.fresh) {
    const spaces = new Map(memories.map((m) => [`${m.owner}\0${m.namespace}`, m]));
    for (const { owner, namespace } of spaces.values()) {
      await vectors.revalidate?.(owner, namespace);
    }
  }
  const digests = await Promise.all(
    memories.map((m) => hasher.digest(m.owner, m.text, m.attributes?.thread)),
  );
  /** The memory each place's text went to first in this batch, and when it expires. */
  const seen = new Map<string, { id: string; expiresAt?: number }>();
  // Each namespace's index once: one without memories is read from the store at each ask.
  const indexes = new Map<string, Promise<NamespaceIndex>>();
  const found: TextPlace[] = [];
  for (const [i, { memoryId, owner, namespace, attributes }] of memories.entries()) {
    const place = JSON.stringify([owner, namespace, digests[i]]);
    const space = JSON.stringify([owner, namespace]);
    let indexed = indexes.get(space);
    if (!indexed) indexes.set(space, indexed = lexicon.namespace(owner, namespace));
    const index = await indexed;
    const expiresAt = attributes?.expiresAt;
    const first = seen.get(place);
    const held = first ? undefined : index.duplicateOf(digests[i], now());
    // A text that expires sooner than this one asks is stored again (see `outlives`).
    const original = first
      ? (livesAsLong(first.expiresAt, expiresAt) ? first.id : undefined)
      : held && index.outlives(held, expiresAt)
      ? held
      : undefined;
    found.push({ original, place });
    if (!original) seen.set(place, { id: memoryId, expiresAt });
  }
  return found;
}
