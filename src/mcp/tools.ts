/**
 * The remote MCP server: the four memory tools of the specification (§4.1) and those that
 * list, read, correct and erase single memories. Every call goes through the session's signed
 * client to the relayer's own routes, so authentication, encryption, blobs and the index are
 * exactly those of a direct SDK call.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { Memory, RecallResult, SvcClient } from "../client/mod.ts";
import { SvcError } from "../errors.ts";
import { MAX_TAG_CHARS, MAX_TAGS, textValue } from "../http/validate.ts";
import { MEMORY_ID } from "../ids.ts";
import { shownText } from "../services/memory_view.ts";
import { MAX_ANALYZE_BYTES, MAX_QUERY_BYTES, MAX_TEXT_BYTES } from "../text_limits.ts";
import { scopeRefusal } from "./refusals.ts";
import { VERSION } from "../version.ts";

export interface ToolSession {
  client: Pick<
    SvcClient,
    | "remember"
    | "waitForJob"
    | "jobs"
    | "recall"
    | "analyze"
    | "restore"
    | "list"
    | "get"
    | "forget"
    | "update"
  >;
  /** The session's default namespace (`x-svc-namespace`); the relayer's "default" otherwise. */
  namespace?: string;
  /** The namespaces the session's key may use (`null`: all), to name them in refusals. */
  namespaces?: string[] | null;
  /** How long `svc_remember` waits for its job before answering "accepted". */
  waitMs: number;
}

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
export function memoryToolList() {
  return Object.entries(MEMORY_TOOLS).map(([name, tool]) => ({
    name,
    title: tool.title,
    description: tool.description,
    inputSchema: toJsonSchemaCompat(z.object(tool.inputSchema), {
      strictUnions: true,
      pipeStrategy: "input",
    }) as { type: "object"; properties?: Record<string, object> },
    annotations: tool.annotations,
  }));
}

function done(text: string, structuredContent: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent };
}

/** A failure as a tool error an agent can act on; never a stack trace. */
function failed(error: unknown, namespaces?: string[] | null): CallToolResult {
  let text = "The memory service failed unexpectedly; try again later.";
  if (error instanceof SvcError) {
    // An unknown key's message names the header the relayer was sent, not the MCP client's.
    const why = error.details.reason === "unknown_key"
      ? "the delegate key is not a key of this account"
      : error.message;
    text = error.code === "unauthorized"
      ? `The relayer refused the credentials (${why}). The delegate key may have ` +
        "been revoked or belong to another environment: sign in again."
      : scopeRefusal(error, namespaces) ?? error.message;
  }
  return { content: [{ type: "text", text }], isError: true };
}

/** ` (id …, tags: …)`: what a listed or recalled memory is known by besides its text. */
function labels(memory: { id: string; tags?: string[] }): string {
  const tags = memory.tags?.length ? `; tags: ${memory.tags.join(", ")}` : "";
  return ` (id ${memory.id}${tags})`;
}

/** A recall result as one numbered line. */
function recalledLine(result: RecallResult, index: number): string {
  return `${index + 1}. [score ${result.score.toFixed(2)}] ${result.text}${labels(result)}`;
}

/** A memory with everything known about it, its text last. */
function describeMemory(memory: Memory): string {
  const facts = [
    `namespace "${memory.namespace}"`,
    `created ${memory.created_at}`,
    ...(memory.updated_at !== memory.created_at ? [`updated ${memory.updated_at}`] : []),
    ...(memory.tags.length ? [`tags: ${memory.tags.join(", ")}`] : []),
    ...(memory.expires_at ? [`expires ${memory.expires_at}`] : []),
    ...(memory.supersedes ? [`replaces ${memory.supersedes}`] : []),
  ];
  return `Memory ${memory.id} (${facts.join(", ")}):\n${shownText(memory)}`;
}

export function createMcpServer(session: ToolSession): McpServer {
  const server = new McpServer({ name: "svc", version: VERSION });
  const { client } = session;
  const attempt = async (run: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await run();
    } catch (error) {
      return failed(error, session.namespaces);
    }
  };
  const ns = (namespace?: string) => namespace || session.namespace;
  const shown = (namespace?: string) => ns(namespace) ?? "default";

  server.registerTool(
    "svc_remember",
    MEMORY_TOOLS.svc_remember,
    ({ text, namespace, tags, thread }: {
      text: string;
      namespace?: string;
      tags?: string[];
      thread?: string;
    }) =>
      attempt(async () => {
        // Checked here: a text over the request's own limit would be refused as a body.
        textValue(text, "text", MAX_TEXT_BYTES);
        const answer = await client.remember(text, { namespace: ns(namespace), tags, thread });
        const held = (found: { duplicate_of: string }) =>
          done(
            `Already in memory (namespace "${shown(namespace)}", id ${found.duplicate_of}); ` +
              "nothing new was saved.",
            { ...found, status: "duplicate", namespace: shown(namespace) },
          );
        if (answer.status === "duplicate") return held(answer);
        const { job_id } = answer;
        const job = await client.waitForJob(job_id, { timeoutMs: session.waitMs })
          .catch(() => null);
        if (job?.status === "failed") {
          return failed(new SvcError("backend_unavailable", `Could not save: ${job.error}`));
        }
        // Another agent stored the same text meanwhile.
        if (job?.duplicate_of) return held({ duplicate_of: job.duplicate_of });
        const status = job?.status ?? "pending";
        return done(
          status === "done"
            ? `Saved to memory (namespace "${shown(namespace)}", job ${job_id}).`
            : `Accepted (job ${job_id}); it will be searchable in a few seconds.`,
          { job_id, status, namespace: shown(namespace) },
        );
      }),
  );

  server.registerTool(
    "svc_recall",
    MEMORY_TOOLS.svc_recall,
    ({ query, limit, namespace, tags, min_score }: {
      query: string;
      limit: number;
      namespace?: string;
      tags?: string[];
      min_score?: number;
    }) =>
      attempt(async () => {
        textValue(query, "query", MAX_QUERY_BYTES);
        const found = await client.recall(query, {
          limit,
          namespace: ns(namespace),
          tags,
          minScore: min_score,
        });
        const text = found.total === 0
          ? "No matching memories found"
          : found.results.map(recalledLine).join("\n");
        return done(text, found);
      }),
  );

  server.registerTool(
    "svc_analyze",
    MEMORY_TOOLS.svc_analyze,
    ({ text, namespace }: { text: string; namespace?: string }) =>
      attempt(async () => {
        textValue(text, "text", MAX_ANALYZE_BYTES);
        const analysis = await client.analyze(text, { namespace: ns(namespace) });
        const ids = analysis.facts.flatMap((fact) => fact.job_id ? [fact.job_id] : []);
        const jobs = ids.length ? (await client.jobs(ids)).results : [];
        const status = new Map(jobs.map((job) => [job.job_id, job.status]));
        const lines = analysis.facts.map((fact) =>
          `- ${fact.text} (${status.get(fact.job_id ?? "") ?? fact.status ?? "pending"})`
        );
        return done(
          `Extracted ${analysis.fact_count} fact(s)${
            lines.length ? ":\n" + lines.join("\n") : "."
          }`,
          analysis,
        );
      }),
  );

  // The namespace is required, unless the session has a default one (`x-svc-namespace`).
  const restore = MEMORY_TOOLS.svc_restore;
  server.registerTool(
    "svc_restore",
    session.namespace === undefined ? restore : {
      ...restore,
      inputSchema: {
        ...restore.inputSchema,
        namespace: namespaceField.optional().describe(
          `The namespace to restore; defaults to the session's namespace ("${session.namespace}").`,
        ),
      },
    },
    ({ namespace, limit }: { namespace?: string; limit: number }) =>
      attempt(async () => {
        const summary = await client.restore(ns(namespace)!, { limit });
        return done(
          `Restore of namespace "${summary.namespace}": total ${summary.total}, restored ` +
            `${summary.restored}, skipped ${summary.skipped}` +
            (summary.remaining > 0 ? `, remaining ${summary.remaining}: call again.` : "."),
          { ...summary },
        );
      }),
  );
  server.registerTool(
    "svc_list",
    MEMORY_TOOLS.svc_list,
    ({ namespace, limit, cursor, tag }: {
      namespace?: string;
      limit: number;
      cursor?: string;
      tag?: string;
    }) =>
      attempt(async () => {
        const page = await client.list({
          namespace: ns(namespace),
          limit,
          cursor,
          tags: tag === undefined ? undefined : [tag],
        });
        const where = `namespace "${shown(namespace)}"${tag === undefined ? "" : `, tag "${tag}"`}`;
        const lines = page.memories.map((m) =>
          `- ${m.created_at.slice(0, 10)} ${shownText(m)}${labels(m)}`
        );
        const more = page.next_cursor
          ? `\nMore: call svc_list again with cursor "${page.next_cursor}".`
          : "";
        return done(
          lines.length
            ? `Memories (${where}), newest first:\n${lines.join("\n")}${more}`
            : `No memories (${where}).`,
          { ...page, namespace: shown(namespace) },
        );
      }),
  );

  server.registerTool(
    "svc_get",
    MEMORY_TOOLS.svc_get,
    ({ id }: { id: string }) =>
      attempt(async () => {
        const memory = await client.get(id);
        return done(describeMemory(memory), { ...memory });
      }),
  );

  server.registerTool(
    "svc_forget",
    MEMORY_TOOLS.svc_forget,
    ({ id }: { id: string }) =>
      attempt(async () => {
        const receipt = await client.forget(id);
        return done(
          `Erased memory ${receipt.memory_id} at ${receipt.erased_at}; it can no longer be ` +
            "read or recalled. The receipt is signed by the memory service.",
          { ...receipt },
        );
      }),
  );

  server.registerTool(
    "svc_update",
    MEMORY_TOOLS.svc_update,
    ({ id, text, tags }: { id: string; text: string; tags?: string[] }) =>
      attempt(async () => {
        textValue(text, "text", MAX_TEXT_BYTES);
        const { job_id } = await client.update(id, { text, tags });
        const job = await client.waitForJob(job_id, { timeoutMs: session.waitMs })
          .catch(() => null);
        if (job?.status === "failed") {
          return failed(new SvcError("backend_unavailable", `Could not update: ${job.error}`));
        }
        const status = job?.status ?? "pending";
        return done(
          status === "done"
            ? `Updated: the new version (id ${job_id}) replaces memory ${id}.`
            : `Accepted (job ${job_id}); the new version replaces memory ${id} once it is ` +
              "searchable, in a few seconds.",
          { job_id, status, supersedes: id },
        );
      }),
  );
  return server;
}
