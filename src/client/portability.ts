/**
 * Export and import for the client SDK: `SvcClient.export()` reads `GET /api/export` as an
 * async iterable of memories, `SvcClient.import(lines)` sends lines to `POST /api/import` in
 * batches and adds up what each did, numbering failures by their place in `lines`.
 *
 * @module
 */
import { SvcError } from "../errors.ts";
import { withQuery } from "./signed_sender.ts";
import type { ExportedMemory, Provenance } from "../services/export.ts";
import type { ImportFailure, ImportSummary } from "../services/import.ts";

export type { ExportedMemory, ImportFailure, ImportSummary, Provenance };

/** A memory to import: the shape of an export's lines (other fields are ignored). */
export interface ImportLine {
  /** The memory's text. */
  text: string;
  /** Its namespace (`"default"` without one). */
  namespace?: string;
  /** Its tags (at most 16, each 1–64 characters). */
  tags?: string[];
  /** The thread it was remembered in (1–128 characters), if any. */
  thread?: string | null;
  /** When it was first remembered (ISO 8601): kept as the memory's `created_at`. */
  created_at?: string | null;
  /** When it expires (ISO 8601, in the future), if ever. */
  expires_at?: string | null;
}

/** What `import` takes: memories, or JSON lines as text (checked by the relayer). */
export type ImportSource = Iterable<ImportLine | string> | AsyncIterable<ImportLine | string>;

/** Which memories an export holds. */
export interface ExportOptions {
  /** A namespace, or several; without one, every namespace the key may use. */
  namespace?: string | string[];
}

/** How an import is sent. */
export interface ImportOptions {
  /** Lines a request carries at most (default and most: 500). */
  batchLines?: number;
  /** Bytes a request carries at most, but a single longer line (default 1 MiB). */
  batchBytes?: number;
  /** Called after each request with the totals so far. */
  onProgress?(progress: ImportProgress): void;
}

/** An import's totals so far. */
export interface ImportProgress {
  /** Lines sent (or refused before sending). */
  lines: number;
  /** Memories queued. */
  imported: number;
  /** Lines skipped as duplicates. */
  duplicates: number;
  /** Lines that failed. */
  failed: number;
  /** Lines of the request under way after `lines`: the relayer may take them, unanswered. */
  sending: number;
}

/** The most lines, and bytes, a request to `POST /api/import` takes. */
const MAX_LINES = 500;
const MAX_BYTES = 4 * 1024 * 1024;

/** The path of `GET /api/export` for `options`. */
export function exportPath(options: ExportOptions = {}): string {
  return withQuery("/api/export", { namespace: options.namespace });
}

/** The lines of a stream of UTF-8 text, without their line ends; blank lines included. */
export async function* textLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let rest = "";
  for await (const text of stream.pipeThrough(new TextDecoderStream())) {
    const lines = (rest + text).split("\n");
    rest = lines.pop()!;
    for (const line of lines) yield line.replace(/\r$/, "");
  }
  if (rest !== "") yield rest.replace(/\r$/, "");
}

/** The memories of an export's body, one per line. */
export async function* exportedMemories(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ExportedMemory> {
  for await (const line of textLines(body)) {
    if (line.trim() === "") continue;
    yield JSON.parse(line) as ExportedMemory;
  }
}

/**
 * The JSON line of an item (one line: a text with line breaks, as a file's line ends, is parsed
 * and written again), or `null` for such a text that is not JSON.
 */
function lineOf(item: ImportLine | string): string | null {
  if (typeof item !== "string") return JSON.stringify(item);
  if (item.trim() === "" || !/[\r\n]/.test(item)) return item;
  try {
    return JSON.stringify(JSON.parse(item));
  } catch {
    return null;
  }
}

/**
 * Sends `lines` to the relayer through `post` (one request body of JSON lines → its summary)
 * in batches, and adds up their summaries; a failure's `line` is its place in `lines`, from 1.
 */
export async function importMemories(
  post: (body: string) => Promise<ImportSummary>,
  lines: ImportSource,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const batchLines = Math.min(options.batchLines ?? MAX_LINES, MAX_LINES);
  const batchBytes = Math.min(options.batchBytes ?? 1024 * 1024, MAX_BYTES);
  const total: ImportSummary = { imported: 0, duplicates: 0, failed: [], job_ids: [] };
  let sent = 0;
  let batch: { line: number; text: string }[] = [];
  let bytes = 0;
  const progress = (sending = 0) =>
    options.onProgress?.({
      lines: sent,
      imported: total.imported,
      duplicates: total.duplicates,
      failed: total.failed.length,
      sending,
    });
  const flush = async () => {
    if (batch.length === 0) return;
    const numbers = batch.map(({ line }) => line);
    progress(batch.length);
    const summary = await post(batch.map(({ text }) => text).join("\n") + "\n");
    total.imported += summary.imported;
    total.duplicates += summary.duplicates;
    total.job_ids.push(...summary.job_ids);
    for (const { line, error } of summary.failed) {
      total.failed.push({ line: numbers[line - 1] ?? line, error });
    }
    sent += batch.length;
    batch = [];
    bytes = 0;
    progress();
  };
  let number = 0;
  for await (const item of lines) {
    number++;
    const text = lineOf(item);
    // A blank line carries nothing: not sent, and not a failure.
    if (text?.trim() === "") {
      sent++;
      continue;
    }
    const size = text === null ? 0 : new TextEncoder().encode(text).byteLength + 1;
    if (text === null || size > MAX_BYTES) {
      total.failed.push({
        line: number,
        error: text === null ? "not valid JSON" : "longer than an import request takes",
      });
      sent++;
      continue;
    }
    if (batch.length >= batchLines || (batch.length > 0 && bytes + size > batchBytes)) {
      await flush();
    }
    batch.push({ line: number, text });
    bytes += size;
  }
  await flush();
  total.failed.sort((a, b) => a.line - b.line);
  return total;
}

/** Reads an export through `open` (which sends the request) as it is iterated. */
export async function* exportMemories(
  open: () => Promise<Response>,
): AsyncGenerator<ExportedMemory> {
  const response = await open();
  if (!response.body) throw new SvcError("backend_unavailable", "The export had no body");
  yield* exportedMemories(response.body);
}
