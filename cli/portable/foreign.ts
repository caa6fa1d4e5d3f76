/**
 * Other memory services' files as import lines:
 *
 * - **mcp-memory**, the reference MCP memory server (`@modelcontextprotocol/server-memory`):
 *   its `memory.jsonl` (legacy name `memory.json`) holds one JSON object per line,
 *   `{"type":"entity","name","entityType","observations":[...]}` or
 *   `{"type":"relation","from","to","relationType"}`; its `read_graph` tool answers the same
 *   as one object `{entities, relations}`, taken too. Each observation becomes a memory
 *   `"<name>: <observation>"` tagged with the entity's name and type (an entity without
 *   observations, `"<name> is a(n) <type>"`); each relation becomes `"<from> <relationType>
 *   <to>"` tagged with both names.
 * - **mem0**: what `Memory.getAll()` (OSS, TypeScript or Python) or the platform's
 *   `get_all` answers, `{"results": [...]}` or a bare list: each item's `memory` is the text,
 *   `created_at`/`createdAt` kept, and `metadata` (`key:value` for each scalar or list of
 *   scalars), `categories` and the `user_id`/`agent_id`/`run_id` it belongs to become tags.
 *
 * Each line keeps where it came from (`origin`: "line 3", "memory 12") so that failures are
 * reported against the file the user has.
 */
import { SvcError } from "@svc/relayer/kit";
import { parseIsoTime } from "@svc/relayer/rules";

/** A memory to import (the shape of an export's lines). */
export interface ForeignLine {
  text: string;
  tags?: string[];
  created_at?: string;
}

/** A foreign file read as import lines, with what could not be read. */
export interface ForeignImport {
  lines: { origin: string; line: ForeignLine }[];
  failed: { origin: string; error: string }[];
}

/** The foreign formats `svc import --from` reads. */
export const FOREIGN_FORMATS = ["mcp-memory", "mem0"] as const;
export type ForeignFormat = typeof FOREIGN_FORMATS[number];

const MAX_TAGS = 16;
const MAX_TAG_CHARS = 64;
// deno-lint-ignore no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/g;

/** Values as tags the relayer takes: strings of 1–64 characters, at most 16, no repeats. */
function tagsOf(values: unknown[]): string[] {
  const tags = values.flatMap((value) => {
    if (!["string", "number", "boolean"].includes(typeof value)) return [];
    const tag = [...String(value).replace(CONTROL_CHARS, " ").trim()].slice(0, MAX_TAG_CHARS)
      .join("").trim();
    return tag ? [tag] : [];
  });
  return [...new Set(tags)].slice(0, MAX_TAGS);
}

const isText = (value: unknown): value is string =>
  typeof value === "string" && value.trim() !== "";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** What one record made: its lines, and what of it was left out, if anything. */
type Made = ForeignLine[] | string | { lines: ForeignLine[]; left: string };

/** Adds what the record at `origin` `made`: its lines, and why it made none or left some out. */
function take(out: ForeignImport, origin: string, made: Made): void {
  if (typeof made === "string") return void out.failed.push({ origin, error: made });
  const { lines, left } = Array.isArray(made) ? { lines: made, left: undefined } : made;
  for (const line of lines) out.lines.push({ origin, line });
  if (left) out.failed.push({ origin, error: left });
}

/** One entity or relation of the reference MCP memory server as lines. */
function graphItem(item: Record<string, unknown>): Made {
  if (item.type === "entity" || (item.type === undefined && "observations" in item)) {
    const { name, entityType, observations = [] } = item;
    if (!isText(name)) return "an entity needs a name";
    if (!Array.isArray(observations)) return "an entity's observations must be a list of texts";
    const tags = tagsOf([name, entityType]);
    const said = observations.filter(isText);
    if (said.length === 0 && !isText(entityType)) {
      return "an entity needs observations or an entityType: it says nothing";
    }
    const lines = said.length > 0
      ? said.map((observation) => ({ text: `${name}: ${observation}`, tags }))
      : [{
        text: `${name} is ${/^[aeiou]/i.test(entityType as string) ? "an" : "a"} ${entityType}`,
        tags,
      }];
    const skipped = observations.length - said.length;
    return skipped === 0 ? lines : {
      lines,
      left: `${skipped} of its observations ${skipped === 1 ? "is" : "are"} not text: left out`,
    };
  }
  if (item.type === "relation" || (item.type === undefined && "relationType" in item)) {
    const { from, to, relationType } = item;
    if (!isText(from) || !isText(to) || !isText(relationType)) {
      return "a relation needs from, to and relationType";
    }
    return [{ text: `${from} ${relationType} ${to}`, tags: tagsOf([from, to]) }];
  }
  return `unknown type ${JSON.stringify(item.type ?? null)}`;
}

/** The reference MCP memory server's file (JSON lines, or one `{entities, relations}`). */
export function fromMcpMemory(text: string): ForeignImport {
  const out: ForeignImport = { lines: [], failed: [] };
  const add = (origin: string, value: unknown) =>
    take(out, origin, isObject(value) ? graphItem(value) : "not a JSON object");
  const whole = parseOrUndefined(text);
  const graph = whole as { entities?: unknown; relations?: unknown } | undefined;
  if (graph && (Array.isArray(graph.entities) || Array.isArray(graph.relations))) {
    const listOf = (field: "entities" | "relations") => {
      const value = graph[field];
      if (value !== undefined && !Array.isArray(value)) {
        out.failed.push({ origin: field, error: `${field} must be a list: left out` });
      }
      return Array.isArray(value) ? value : [];
    };
    const entities = listOf("entities");
    const relations = listOf("relations");
    entities.forEach((e, i) => add(`entities[${i}]`, { type: "entity", ...e }));
    relations.forEach((r, i) => add(`relations[${i}]`, { type: "relation", ...r }));
    return out;
  }
  text.split("\n").forEach((raw, i) => {
    if (raw.trim() === "") return;
    const value = parseOrUndefined(raw);
    if (value === undefined) take(out, `line ${i + 1}`, "not valid JSON");
    else add(`line ${i + 1}`, value);
  });
  return out;
}

/** The JSON value of `text`, or `undefined` when it is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A time mem0 wrote (ISO 8601, without an offset UTC, or Unix seconds or milliseconds) as
 * ISO 8601.
 */
function timeOf(value: unknown): string | undefined {
  let ms = NaN;
  if (typeof value === "number") ms = value < 1e12 ? value * 1000 : value;
  else if (typeof value === "string") {
    ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : parseIsoTime(value);
  }
  // Outside ±8.64e15 ms a Date is invalid.
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : undefined;
}

/** One mem0 memory as its one line, or why it cannot be one. */
function mem0Item(memory: unknown): ForeignLine[] | string {
  if (!isObject(memory)) return "not a JSON object";
  const data = memory.data as Record<string, unknown> | undefined;
  const text = [memory.memory, memory.text, data?.memory].find(isText);
  if (text === undefined) return "it has no memory text";
  const metadata = memory.metadata;
  const pairs = isObject(metadata)
    ? Object.entries(metadata).flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value])
        .filter((v) => ["string", "number", "boolean"].includes(typeof v))
        .map((v) => `${key}:${v}`)
    )
    : [];
  const owners = [["user", memory.user_id], ["agent", memory.agent_id], ["run", memory.run_id]]
    .flatMap(([kind, id]) => isText(id) ? [`${kind}:${id}`] : []);
  const categories = Array.isArray(memory.categories) ? memory.categories : [];
  const tags = tagsOf([...categories, ...pairs, ...owners]);
  const when = memory.created_at ?? memory.createdAt;
  const created = timeOf(when);
  if (when != null && created === undefined) {
    return `created_at ${JSON.stringify(when).slice(0, 40)} is not a time`;
  }
  return [{
    text,
    ...(tags.length > 0 && { tags }),
    ...(created !== undefined && { created_at: created }),
  }];
}

/** mem0's memories as JSON: `{"results": [...]}`, `{"memories": [...]}` or a bare list. */
export function fromMem0(text: string): ForeignImport {
  const value = parseOrUndefined(text) as Record<string, unknown> | unknown[] | undefined;
  const items = Array.isArray(value)
    ? value
    : Array.isArray(value?.results)
    ? value.results
    : Array.isArray(value?.memories)
    ? value.memories
    : undefined;
  if (!items) {
    throw new SvcError(
      "bad_request",
      'Cannot import this file as mem0\'s: it is not JSON with a "results" list of memories',
    );
  }
  const out: ForeignImport = { lines: [], failed: [] };
  items.forEach((item, i) => take(out, `memory ${i + 1}`, mem0Item(item)));
  return out;
}
