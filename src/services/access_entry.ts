/**
 * What an access-log entry is: the operations it names, its shape as events come in and as
 * entries go out, the queries that read them, and the ids and cursors that order them (version 7
 * UUIDs of the entries' times).
 */
import type { AccessOperation } from "../http/router.ts";
import { cursorOf, idOfCursor } from "./cursor.ts";

/** Every access operation, in the order they are shown. */
export const ACCESS_OPERATIONS: readonly AccessOperation[] = [
  "remember",
  "recall",
  "get",
  "list",
  "update",
  "erase",
  "restore",
  "ask",
  "analyze",
  "export",
  "import",
];

/** The key a request was signed with. */
export interface AccessKey {
  /** The key's address (`0x…`). */
  address: string;
  /** Its label at the time (`"owner"` for the owner's own key; may be empty). */
  label: string;
}

/** What a request touched in one namespace, as the relayer appends it. */
export interface AccessEvent {
  owner: string;
  op: AccessOperation;
  key: AccessKey;
  namespace: string;
  memoryIds: string[];
  /** The client's address. */
  client: string;
  requestId: string;
  /** Unix milliseconds (default: now). */
  at?: number;
}

/** An entry of the access log, as `GET /api/access-log` answers it. */
export interface AccessEntry {
  /** The entry's id (a time-ordered UUID). */
  id: string;
  /** When the request was answered (ISO 8601). */
  at: string;
  /** What the request did. */
  op: AccessOperation;
  /** The key that signed it. */
  key: AccessKey;
  /** The namespace it touched (a request touching several adds an entry for each). */
  namespace: string;
  /** The memories it touched there; for recall and ask, the ids returned. */
  memory_ids: string[];
  /** The client's address, as the relayer saw it. */
  client: string;
  /** The request's `x-request-id`. */
  request_id: string;
}

/** What narrows a read of the log; the times are Unix milliseconds. */
export interface AccessLogQuery {
  /** Entries at or after. */
  since?: number;
  /** Entries before. */
  until?: number;
  /** Entries of the key of this address. */
  key?: string;
  op?: AccessOperation;
  namespace?: string;
  /** Entries that name this memory id. */
  memory?: string;
  /** Entries at most (default 50). */
  limit?: number;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
}

/** A page of the log, newest first. */
export interface AccessLogPage {
  /** The entries, newest first. */
  entries: AccessEntry[];
  /** Passed back as `cursor` for the next page; `null` when the log has no more. */
  next_cursor: string | null;
}

/** The smallest version 7 UUID of millisecond `ms`: ids of entries at or after it sort after. */
export function idFloor(ms: number): string {
  const time = Math.max(0, Math.min(ms, 2 ** 48 - 1)).toString(16).padStart(12, "0");
  return `${time.slice(0, 8)}-${time.slice(8)}-7000-8000-000000000000`;
}

/** The cursor of the page after entry `id` (older entries: before it). */
export const cursorBefore = (id: string) => cursorOf({ before: id });

/** The entry id a cursor of `cursorBefore` names; anything else is a 400. */
export const beforeOf = (cursor: string) => idOfCursor(cursor, "before", /^[0-9a-f-]{36}$/);
