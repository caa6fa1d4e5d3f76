/**
 * What a file given to `svc import` holds, told from its first record: a file of `svc export`
 * (its header line), the JSON lines of `GET /api/export`, the reference MCP memory server's
 * graph, or mem0's memories. A file given with the wrong `--from` (or none) is refused before
 * anything is sent, naming the `--from` that reads it.
 *
 * @example
 * ```ts
 * formatOfText('{"type":"entity","name":"Alice","entityType":"person","observations":[]}\n');
 * // "mcp-memory"
 * formatOfText('{"results":[{"memory":"Likes tea"}]}'); // "mem0"
 * ```
 */
import { concatBytes } from "@svc/util/sealing";
import { EXPORT_FORMAT, MAX_HEADER_BYTES } from "./portable/export_file.ts";
import { parseOrUndefined } from "./portable/foreign.ts";

/** What `svc import` reads: a file of `svc export`, or one of the `--from` formats. */
export type ImportFormat = "svc-export" | "jsonl" | "mcp-memory" | "mem0";

/** Each format as messages name it. */
export const FORMAT_NAMES: Record<ImportFormat, string> = {
  "svc-export": "a file of svc export (encrypted)",
  jsonl: "the JSON lines of GET /api/export",
  "mcp-memory": "the MCP memory server's graph (entities and relations)",
  mem0: "mem0's memories (JSON)",
};

/** The format one JSON value (a whole file, or its first line) is the shape of. */
function formatOfValue(value: unknown): ImportFormat | undefined {
  // A bare list: mem0's `getAll()` answers one (the MCP server's file is lines, not a list).
  if (Array.isArray(value)) return "mem0";
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (record.format === EXPORT_FORMAT) return "svc-export";
  if (Array.isArray(record.entities) || Array.isArray(record.relations)) return "mcp-memory";
  if (Array.isArray(record.results) || Array.isArray(record.memories)) return "mem0";
  if (record.type === "entity" || record.type === "relation") return "mcp-memory";
  if (record.type === undefined && ("observations" in record || "relationType" in record)) {
    return "mcp-memory";
  }
  if (typeof record.text === "string") return "jsonl";
  return undefined;
}

/**
 * The format of a file's text: the whole text when it is one JSON value (mem0's file, the MCP
 * server's `read_graph` answer, a file of one line), else its first line that is JSON and the
 * shape of a line (mem0's file is one value, never lines); `undefined` when that tells none.
 */
export function formatOfText(text: string): ImportFormat | undefined {
  const whole = parseOrUndefined(text);
  if (whole !== undefined) return formatOfValue(whole);
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const value = parseOrUndefined(line);
    if (value === undefined) continue;
    const format = formatOfValue(value);
    // mem0's file is one JSON value, never a line of many: a line of its shape tells nothing.
    if (format !== "mem0") return format;
  }
  return undefined;
}

/**
 * The text of a file's bytes, or the number (from 1) of its first line that is not UTF-8: the
 * relayer refuses such lines, and a lenient decoder would import U+FFFD in their place.
 */
export function utf8Text(bytes: Uint8Array): { text: string } | { badLine: number } {
  const fatal = new TextDecoder("utf-8", { fatal: true });
  try {
    return { text: fatal.decode(bytes) };
  } catch {
    let line = 1;
    for (let start = 0; start <= bytes.length; line++) {
      const end = bytes.indexOf(0x0a, start);
      const stop = end === -1 ? bytes.length : end;
      try {
        fatal.decode(bytes.subarray(start, stop));
      } catch {
        return { badLine: line };
      }
      start = stop + 1;
    }
    return { badLine: line - 1 };
  }
}

/**
 * A stream's first bytes: up to its first line break, or the most an export's header line may
 * be (with what the last read gave past them). The stream goes on after them.
 */
export async function readStart(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<Uint8Array> {
  let start: Uint8Array = new Uint8Array();
  while (start.length < MAX_HEADER_BYTES && !start.includes(0x0a)) {
    const { value, done } = await reader.read();
    if (done) break;
    start = concatBytes(start, value);
  }
  return start;
}

/** Whether a file's first bytes (from {@link readStart}) are the header line of an export. */
export function startsExport(start: Uint8Array): boolean {
  const line = new TextDecoder().decode(start.subarray(0, MAX_HEADER_BYTES)).split("\n")[0];
  return formatOfValue(parseOrUndefined(line)) === "svc-export";
}

/** Whether `file` starts with the header line of an export file. */
export async function isExportFile(file: string): Promise<boolean> {
  const reader = (await Deno.open(file)).readable.getReader();
  try {
    return startsExport(await readStart(reader));
  } finally {
    await reader.cancel();
  }
}
