/**
 * What the memory tools are, as `tools/list` shows them: each one's title, description, input
 * schema and hints, for the remote MCP server (`tools.ts`) and the stdio package's list.
 */
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { MAX_TAG_CHARS, MAX_TAGS } from "../validate.ts";
import { MEMORY_ID } from "../ids.ts";

const namespaceField = z.string().min(1).max(256);
const tagField = z.string().min(1).max(MAX_TAG_CHARS);
const tagsField = z.array(tagField).max(MAX_TAGS);
const idField = z.string().regex(
  MEMORY_ID,
  "must be a memory id (a lowercase UUID, as svc_recall shows it)",
);

/** Tool descriptions and schemas, shared with the stdio package's `tools/list`. */
export const MEMORY_TOOLS = {
  svc_remember: {
    title: "Remember",
    description: "Save a fact about the user to their private, encrypted long-term memory. " +
      "Call this only when the user explicitly asks you to remember or save something. Pass " +
      "the complete statement in the user's words, without summarising or shortening it.",
    inputSchema: {
      text: z.string().min(1).describe("The complete fact to remember, unsummarised."),
      namespace: namespaceField.optional().describe(
        "Memory namespace (bucket); defaults to the session's namespace.",
      ),
      tags: tagsField.optional().describe(
        'Short labels to file the memory under, such as "diet" (at most 16, 1-64 characters).',
      ),
      thread: z.string().min(1).max(128).optional().describe(
        "An id of the conversation this text is a turn or excerpt of (1-128 characters), when " +
          "saving the turns of one conversation one by one; leave it out for standalone facts.",
      ),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
  svc_recall: {
    title: "Recall",
    description: "Search the user's memories by meaning, for example before answering a " +
      "question that may depend on their preferences, habits or history. Returns the " +
      "matching memories ranked by relevance.",
    inputSchema: {
      query: z.string().min(1).describe("A natural-language query."),
      limit: z.number().int().min(1).max(100).default(10).describe(
        "How many memories to return (1-100).",
      ),
      namespace: namespaceField.optional().describe("The namespace to search."),
      tags: tagsField.optional().describe("Only memories carrying every one of these tags."),
      min_score: z.number().min(0).max(1).optional().describe(
        "Leave out memories scoring below this (0-1; the relayer's default is 0.2).",
      ),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  },
  svc_analyze: {
    title: "Analyze and remember",
    description: "Extract memorable facts about the user (preferences, habits, biographical " +
      "details, constraints) from a longer text such as a transcript or note, and save each " +
      "as a separate memory. Use it when the user asks you to remember what matters in a text.",
    inputSchema: {
      text: z.string().min(1).describe("A transcript, note or any text."),
      namespace: namespaceField.optional().describe("The namespace for the extracted facts."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  },
  svc_restore: {
    title: "Restore",
    description: "Re-index one namespace from the encrypted blobs in the blob store into the " +
      "search index, for example after the index was lost. Returns counts only (restored, " +
      "skipped, total, remaining), never memory texts; while remaining is above 0, call it " +
      "again; call svc_recall afterwards.",
    inputSchema: {
      namespace: namespaceField.describe("The namespace to restore."),
      limit: z.number().int().min(1).max(500).default(10).describe(
        "How many missing memories to restore at most (1-500).",
      ),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  },
  svc_list: {
    title: "List memories",
    description: "List the user's memories in a namespace, newest first, with their ids, " +
      "dates and tags, for example when the user asks what is remembered about them. Pass " +
      "the cursor a page ends with to read the next page.",
    inputSchema: {
      namespace: namespaceField.optional().describe(
        "The namespace to list; defaults to the session's namespace.",
      ),
      limit: z.number().int().min(1).max(100).default(20).describe(
        "How many memories per page (1-100).",
      ),
      cursor: z.string().min(1).max(1024).optional().describe(
        "The cursor the previous page ended with.",
      ),
      tag: tagField.optional().describe("Only memories carrying this tag."),
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  },
  svc_namespaces: {
    title: "List namespaces",
    description: "List the namespaces (buckets) the user's memories are kept in, with how " +
      "many memories each holds, for example before listing or searching one other than " +
      "the session's.",
    inputSchema: {},
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  },
  svc_get: {
    title: "Get a memory",
    description: "Read one memory by its id (as svc_recall and svc_list show it): its text, " +
      "namespace, tags and dates.",
    inputSchema: { id: idField.describe("The memory's id.") },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  },
  svc_forget: {
    title: "Forget a memory",
    description: "Permanently erase one memory by its id, when the user asks you to forget " +
      "something. Find the id with svc_recall first (every result shows its id) and erase only " +
      "the memory the user meant: an erased memory cannot be recovered. Returns the erase " +
      "receipt signed by the memory service.",
    inputSchema: {
      id: idField.describe("The id of the memory to erase, as svc_recall shows it."),
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  },
  svc_update: {
    title: "Correct a memory",
    description: "Correct a memory that is wrong or out of date: the new text (and tags) is " +
      "saved as a new version that replaces the memory with this id, and the old version is " +
      "erased. Find the id with svc_recall first. Pass the complete corrected statement.",
    inputSchema: {
      id: idField.describe("The id of the memory to correct, as svc_recall shows it."),
      text: z.string().min(1).describe("The complete corrected fact."),
      tags: tagsField.optional().describe(
        "Tags for the new version; without them it keeps the old version's tags.",
      ),
    },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  },
};

/** The memory tools as `tools/list` describes them, for a server that does not run them. */
export function memoryToolList(): Tool[] {
  return Object.entries(MEMORY_TOOLS).map(([name, tool]) => ({
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: toJsonSchemaCompat(z.object(tool.inputSchema), {
      strictUnions: true,
      pipeStrategy: "input",
    }) as Tool["inputSchema"],
    annotations: tool.annotations,
  }));
}
