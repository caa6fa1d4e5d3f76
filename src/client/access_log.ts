/**
 * The access log, as the client reads it: who did what to which memories, newest first.
 * `SvcClient.accessLog` sends the query; `accessLogPath` builds its path.
 *
 * @module
 */
import type { AccessEntry, AccessKey, AccessLogPage } from "../services/access_log.ts";
import type { AccessOperation } from "../http/router.ts";
import { withQuery } from "./signed_sender.ts";

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
  const { since, until, key, op, namespace, memory, cursor, limit } = options;
  return withQuery("/api/access-log", { since, until, key, op, namespace, memory, cursor, limit });
}
