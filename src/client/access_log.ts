/**
 * The access log, as the client reads it: who did what to which memories, newest first.
 * `SvcClient.accessLog` sends the query; `accessLogPath` builds its path.
 *
 * @module
 */
import type { AccessEntry, AccessKey, AccessLogPage } from "../services/access_log.ts";
import type { AccessOperation } from "../http/router.ts";

export type { AccessEntry, AccessKey, AccessLogPage, AccessOperation };

/** What narrows a read of the access log. */
export interface AccessLogOptions {
  /** Only entries at or after this time. */
  since?: Date | string;
  /** Only entries before this time. */
  until?: Date | string;
  /** Only entries of the key of this address (`0x…`). */
  key?: string;
  /** Only entries of this operation. */
  op?: AccessOperation;
  /** Only entries of this namespace. */
  namespace?: string;
  /** Only entries naming this memory id: which keys read or changed it. */
  memory?: string;
  /** The page size, 1..500 (50 unless given). */
  limit?: number;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
}

/** The path of `GET /api/access-log` for `options`, with its query string. */
export function accessLogPath(options: AccessLogOptions = {}): string {
  const query = new URLSearchParams();
  const time = (value: Date | string) => value instanceof Date ? value.toISOString() : value;
  if (options.since !== undefined) query.set("since", time(options.since));
  if (options.until !== undefined) query.set("until", time(options.until));
  for (const name of ["key", "op", "namespace", "memory", "cursor"] as const) {
    if (options[name] !== undefined) query.set(name, options[name]);
  }
  if (options.limit !== undefined) query.set("limit", String(options.limit));
  const text = query.toString();
  return `/api/access-log${text ? `?${text}` : ""}`;
}
