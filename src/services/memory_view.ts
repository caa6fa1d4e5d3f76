/**
 * A memory as list, get and export show it (its text read through the reader, its tags, thread
 * and provenance opened from its catalog entry), the pages of a list and their cursors, and
 * the filter list and recall take.
 */
import { MEMORY_ID } from "../ids.ts";
import { type AttributeSeal, type RememberedBy, rememberedByOf } from "../pipeline/attributes.ts";
import type { CatalogEntry, CatalogFilter } from "../ranking/lexical_index.ts";
import type { TermHasher } from "../ranking/terms.ts";
import type { MemoryReader, ReadOptions } from "./reader.ts";
import { cursorOf, idOfCursor } from "./cursor.ts";

/**
 * A memory's text as the CLI and the MCP tools show it; for one without, why: its client
 * encrypted it, or its stored copy or key is gone (the dashboard says the same).
 */
export function shownText(memory: Pick<Memory, "text" | "manual">): string {
  if (memory.text !== null) return memory.text;
  return memory.manual
    ? "(encrypted by the client that stored it)"
    : "(unreadable: its stored copy is missing or its key was erased)";
}

/** A memory as list and get answer it. */
export interface Memory {
  /** The memory's id (a time-ordered UUID). */
  id: string;
  /** Its namespace. */
  namespace: string;
  /**
   * Its text, decrypted; `null` for a manual memory, and for one the relayer can no longer read
   * (its blob lost, its key erased).
   */
  text: string | null;
  /**
   * Whether its client encrypted it (remember/manual): the relayer never reads its text. A
   * memory without text and without a text digest in its row is taken as one: older versions
   * did not mark client-encrypted memories, and every memory the relayer reads gets a digest.
   */
  manual: boolean;
  /** Its tags (none: `[]`). */
  tags: string[];
  /** The thread it was remembered in, or `null`; a new version keeps the old one's. */
  thread: string | null;
  /** When it was first remembered (ISO 8601); a new version keeps the first one's. */
  created_at: string;
  /** When this version was stored (ISO 8601). */
  updated_at: string;
  /** When it expires (ISO 8601), or `null` for never. */
  expires_at: string | null;
  /** The id of the memory this version replaced, or `null`. */
  supersedes: string | null;
  /**
   * Which key stored this version (its address and label at the time), and when; `null` for
   * memories stored before the relayer kept it.
   */
  remembered_by: RememberedBy | null;
}

/** One page of a list: newest first. */
export interface MemoryPage {
  /** The memories of the page, newest first. */
  memories: Memory[];
  /** Pass it as `cursor` for the next page; `null` on the last one. */
  next_cursor: string | null;
}

/** What list and recall filter on, as the caller gives it (tags in clear). */
export interface MemoryFilter {
  tags?: string[];
  /** Unix milliseconds. */
  since?: number;
  /** Unix milliseconds. */
  until?: number;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** The cursor of the page after memory `id`. */
export const cursorAfter = (id: string) => cursorOf({ after: id });

/** The memory id of a cursor `cursorAfter` made; anything else is a 400. */
export const afterOf = (cursor: string) => idOfCursor(cursor, "after", MEMORY_ID);

/** The catalog filter of a caller's filter: its tags hashed. */
export async function catalogFilter(
  hasher: TermHasher,
  owner: string,
  { tags, since, until }: MemoryFilter,
): Promise<CatalogFilter> {
  return { tags: tags?.length ? await hasher.tags(owner, tags) : undefined, since, until };
}

/** A memory's tags, thread and provenance in clear (none when not sealed in its row). */
export function attributesOf(
  seal: AttributeSeal,
  owner: string,
  namespace: string,
  entry: CatalogEntry,
) {
  return seal.attributes({ memoryId: entry.id, owner, namespace }, entry.info?.sealed);
}

/** What shows a namespace's catalog entry as a memory. */
export function memoryViewer(attributeSeal: AttributeSeal, reader: MemoryReader) {
  return async (
    owner: string,
    namespace: string,
    entry: CatalogEntry,
    options: ReadOptions,
  ): Promise<Memory> => {
    const [text, { tags, thread, rememberedBy }] = await Promise.all([
      reader.read(owner, entry, options),
      attributesOf(attributeSeal, owner, namespace, entry),
    ]);
    const { info } = entry;
    return {
      id: entry.id,
      namespace,
      text,
      manual: info?.manual === true || (text === null && info?.digest === undefined),
      tags,
      thread: thread ?? null,
      created_at: iso(info?.firstCreatedAt ?? entry.createdAt),
      updated_at: iso(entry.createdAt),
      expires_at: info?.expiresAt === undefined ? null : iso(info.expiresAt),
      supersedes: info?.supersedes ?? null,
      remembered_by: rememberedByOf(rememberedBy),
    };
  };
}
