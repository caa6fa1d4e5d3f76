/**
 * The remote MCP server: the four memory tools of the specification (§4.1). Every call goes
 * through the session's signed client to the relayer's own routes, so authentication,
 * encryption, blobs and the index are exactly those of a direct SDK call.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { SvcClient } from "../client/mod.ts";
import { SvcError } from "../errors.ts";
import { VERSION } from "../version.ts";

export interface ToolSession {
  client: Pick<SvcClient, "remember" | "waitForJob" | "jobs" | "recall" | "analyze" | "restore">;
  /** The session's default namespace (`x-svc-namespace`); the relayer's "default" otherwise. */
  namespace?: string;
  /** How long `svc_remember` waits for its job before answering "accepted". */
  waitMs: number;
}

const namespaceField = z.string().min(1).max(256);

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
      "skipped, total), never memory texts; call svc_recall afterwards.",
    inputSchema: {
      namespace: namespaceField.describe("The namespace to restore."),
      limit: z.number().int().min(1).max(500).default(10).describe(
        "How many missing memories to restore at most (1-500).",
      ),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
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
function failed(error: unknown): CallToolResult {
  let text = "The memory service failed unexpectedly; try again later.";
  if (error instanceof SvcError) {
    text = error.code === "unauthorized"
      ? `The relayer refused the credentials (${error.message}). The delegate key may have ` +
        "been revoked or belong to another environment: sign in again."
      : error.message;
  }
  return { content: [{ type: "text", text }], isError: true };
}

async function attempt(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    return failed(error);
  }
}

export function createMcpServer(session: ToolSession): McpServer {
  const server = new McpServer({ name: "svc", version: VERSION });
  const { client } = session;
  const ns = (namespace?: string) => namespace || session.namespace;
  const shown = (namespace?: string) => ns(namespace) ?? "default";

  server.registerTool(
    "svc_remember",
    MEMORY_TOOLS.svc_remember,
    ({ text, namespace }: { text: string; namespace?: string }) =>
      attempt(async () => {
        const { job_id } = await client.remember(text, { namespace: ns(namespace) });
        const job = await client.waitForJob(job_id, { timeoutMs: session.waitMs })
          .catch(() => null);
        if (job?.status === "failed") {
          return failed(new SvcError("backend_unavailable", `Could not save: ${job.error}`));
        }
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
    ({ query, limit, namespace }: { query: string; limit: number; namespace?: string }) =>
      attempt(async () => {
        const found = await client.recall(query, { limit, namespace: ns(namespace) });
        const text = found.total === 0
          ? "No matching memories found"
          : found.results.map((r, i) => `${i + 1}. [score ${r.score.toFixed(2)}] ${r.text}`)
            .join("\n");
        return done(text, found);
      }),
  );

  server.registerTool(
    "svc_analyze",
    MEMORY_TOOLS.svc_analyze,
    ({ text, namespace }: { text: string; namespace?: string }) =>
      attempt(async () => {
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
            `${summary.restored}, skipped ${summary.skipped}.`,
          { ...summary },
        );
      }),
  );
  return server;
}
