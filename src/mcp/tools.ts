/**
 * The remote MCP server: the four memory tools of the specification (§4.1) and those that
 * list namespaces and list, read, correct and erase single memories. Every call goes through the session's signed
 * client to the relayer's own routes, so authentication, encryption, blobs and the index are
 * exactly those of a direct SDK call.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Memory, RecallResult, SvcClient } from "../client/mod.ts";
import { SvcError } from "../errors.ts";
import { textValue } from "../validate.ts";
import { shownText } from "../services/memory_view.ts";
import { MAX_ANALYZE_BYTES, MAX_QUERY_BYTES, MAX_TEXT_BYTES } from "../text_limits.ts";
import { scopeRefusal } from "./refusals.ts";
import { MEMORY_TOOLS } from "./tool_definitions.ts";
import { VERSION } from "../version.ts";

/** What the tools of one MCP session call: a client, and the session's namespace and waits. */
export interface ToolSession {
  /** The signed client of the session's key (or one of the same shape, as `svc-mcp --blind`'s). */
  client: Pick<
    SvcClient,
    | "remember"
    | "waitForJob"
    | "jobs"
    | "recall"
    | "analyze"
    | "restore"
    | "list"
    | "namespaces"
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

/** The namespace a call means: its own, or else the session's. */
function namespaceOf(session: ToolSession, namespace?: string): string | undefined {
  return namespace || session.namespace;
}

/** The namespace a call means, as its answer names it. */
function shownNamespace(session: ToolSession, namespace?: string): string {
  return namespaceOf(session, namespace) ?? "default";
}

/** The job `jobId` once done or failed, or as it stands when the session's wait is over. */
function waitForJob(session: ToolSession, jobId: string) {
  return session.client.waitForJob(jobId, { timeoutMs: session.waitMs }).catch(() => null);
}

/** `svc_remember`: saves `text`, and waits a while for it to be searchable. */
async function rememberText(session: ToolSession, { text, namespace, tags, thread }: {
  text: string;
  namespace?: string;
  tags?: string[];
  thread?: string;
}): Promise<CallToolResult> {
  // Checked here: a text over the request's own limit would be refused as a body.
  textValue(text, "text", MAX_TEXT_BYTES);
  const answer = await session.client.remember(text, {
    namespace: namespaceOf(session, namespace),
    tags,
    thread,
  });
  const shown = shownNamespace(session, namespace);
  const held = (found: { duplicate_of: string }) =>
    done(
      `Already in memory (namespace "${shown}", id ${found.duplicate_of}); ` +
        "nothing new was saved.",
      { ...found, status: "duplicate", namespace: shown },
    );
  if (answer.status === "duplicate") return held(answer);
  const { job_id } = answer;
  const job = await waitForJob(session, job_id);
  if (job?.status === "failed") {
    return failed(new SvcError("backend_unavailable", `Could not save: ${job.error}`));
  }
  // Another agent stored the same text meanwhile.
  if (job?.duplicate_of) return held({ duplicate_of: job.duplicate_of });
  const status = job?.status ?? "pending";
  return done(
    status === "done"
      ? `Saved to memory (namespace "${shown}", job ${job_id}).`
      : `Accepted (job ${job_id}); it will be searchable in a few seconds.`,
    { job_id, status, namespace: shown },
  );
}

/** `svc_recall`: the memories closest in meaning to `query`. */
async function recallMemories(session: ToolSession, { query, limit, namespace, tags, min_score }: {
  query: string;
  limit: number;
  namespace?: string;
  tags?: string[];
  min_score?: number;
}): Promise<CallToolResult> {
  textValue(query, "query", MAX_QUERY_BYTES);
  const found = await session.client.recall(query, {
    limit,
    namespace: namespaceOf(session, namespace),
    tags,
    minScore: min_score,
  });
  const text = found.total === 0
    ? "No matching memories found"
    : found.results.map(recalledLine).join("\n");
  return done(text, found);
}

/** `svc_analyze`: the facts the relayer extracts from `text` and saves. */
async function analyzeText(
  session: ToolSession,
  { text, namespace }: { text: string; namespace?: string },
): Promise<CallToolResult> {
  const { client } = session;
  textValue(text, "text", MAX_ANALYZE_BYTES);
  const analysis = await client.analyze(text, { namespace: namespaceOf(session, namespace) });
  const ids = analysis.facts.flatMap((fact) => fact.job_id ? [fact.job_id] : []);
  const jobs = ids.length ? (await client.jobs(ids)).results : [];
  const status = new Map(jobs.map((job) => [job.job_id, job.status]));
  // Each fact with its job's status as just read, in the text and in the JSON alike.
  const facts = analysis.facts.map((fact) => ({
    ...fact,
    status: status.get(fact.job_id ?? "") ?? fact.status,
  }));
  const lines = facts.map((fact) => `- ${fact.text} (${fact.status})`);
  return done(
    `Extracted ${analysis.fact_count} fact(s)${lines.length ? ":\n" + lines.join("\n") : "."}`,
    { ...analysis, facts },
  );
}

/** `svc_restore`: re-indexes a batch of a namespace's memories from their encrypted blobs. */
async function restoreNamespace(
  session: ToolSession,
  { namespace, limit }: { namespace?: string; limit: number },
): Promise<CallToolResult> {
  const summary = await session.client.restore(namespaceOf(session, namespace)!, { limit });
  return done(
    `Restore of namespace "${summary.namespace}": total ${summary.total}, restored ` +
      `${summary.restored}, skipped ${summary.skipped}` +
      (summary.remaining > 0 ? `, remaining ${summary.remaining}: call again.` : "."),
    { ...summary },
  );
}

/** `svc_list`: a page of a namespace's memories, newest first. */
async function listMemories(session: ToolSession, { namespace, limit, cursor, tag }: {
  namespace?: string;
  limit: number;
  cursor?: string;
  tag?: string;
}): Promise<CallToolResult> {
  const page = await session.client.list({
    namespace: namespaceOf(session, namespace),
    limit,
    cursor,
    tags: tag === undefined ? undefined : [tag],
  });
  const shown = shownNamespace(session, namespace);
  const where = `namespace "${shown}"${tag === undefined ? "" : `, tag "${tag}"`}`;
  const lines = page.memories.map((m) =>
    `- ${m.supersedes ? `${m.updated_at.slice(0, 10)} (corrected)` : m.created_at.slice(0, 10)} ${
      shownText(m)
    }${labels(m)}`
  );
  const more = page.next_cursor
    ? `\nMore: call svc_list again with cursor "${page.next_cursor}".`
    : "";
  return done(
    lines.length
      ? `Memories (${where}), newest first:\n${lines.join("\n")}${more}`
      : `No memories (${where}).`,
    { ...page, namespace: shown },
  );
}

/** `svc_namespaces`: the namespaces holding memories, with their counts. */
async function listNamespaces(session: ToolSession): Promise<CallToolResult> {
  const { namespaces } = await session.client.namespaces();
  const lines = namespaces.map(({ namespace, count }) =>
    `- "${namespace}": ${count} ${count === 1 ? "memory" : "memories"}`
  );
  return done(
    lines.length ? `Namespaces:\n${lines.join("\n")}` : "No memories yet.",
    { namespaces },
  );
}

/** `svc_get`: one memory with everything known about it. */
async function getMemory(session: ToolSession, { id }: { id: string }): Promise<CallToolResult> {
  const memory = await session.client.get(id);
  return done(describeMemory(memory), { ...memory });
}

/** `svc_forget`: erases one memory, with the service's signed receipt. */
async function forgetMemory(session: ToolSession, { id }: { id: string }): Promise<CallToolResult> {
  const receipt = await session.client.forget(id);
  return done(
    `Erased memory ${receipt.memory_id} at ${receipt.erased_at}; it can no longer be ` +
      "read or recalled. The receipt is signed by the memory service.",
    { ...receipt },
  );
}

/** `svc_update`: saves a new version of a memory in its place. */
async function updateMemory(
  session: ToolSession,
  { id, text, tags }: { id: string; text: string; tags?: string[] },
): Promise<CallToolResult> {
  textValue(text, "text", MAX_TEXT_BYTES);
  const { job_id } = await session.client.update(id, { text, tags });
  const job = await waitForJob(session, job_id);
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
}

/** `svc_restore` as a session lists it. */
function restoreDefinition(namespace: string | undefined) {
  const restore = MEMORY_TOOLS.svc_restore;
  // The namespace is required, unless the session has a default one (`x-svc-namespace`).
  if (namespace === undefined) return restore;
  return {
    ...restore,
    inputSchema: {
      ...restore.inputSchema,
      namespace: restore.inputSchema.namespace.optional().describe(
        `The namespace to restore; defaults to the session's namespace ("${namespace}").`,
      ),
    },
  };
}

/** The MCP server of one session: the memory tools, each calling the relayer as `session`. */
export function createMcpServer(session: ToolSession): McpServer {
  const server = new McpServer({ name: "svc", version: VERSION });
  /** `handle` for this session, a failure answered as a tool error an agent can act on. */
  const attempt =
    <A>(handle: (session: ToolSession, args: A) => Promise<CallToolResult>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        return await handle(session, args);
      } catch (error) {
        return failed(error, session.namespaces);
      }
    };
  server.registerTool("svc_remember", MEMORY_TOOLS.svc_remember, attempt(rememberText));
  server.registerTool("svc_recall", MEMORY_TOOLS.svc_recall, attempt(recallMemories));
  server.registerTool("svc_analyze", MEMORY_TOOLS.svc_analyze, attempt(analyzeText));
  server.registerTool(
    "svc_restore",
    restoreDefinition(session.namespace),
    attempt(restoreNamespace),
  );
  server.registerTool("svc_list", MEMORY_TOOLS.svc_list, attempt(listMemories));
  server.registerTool("svc_namespaces", MEMORY_TOOLS.svc_namespaces, attempt(listNamespaces));
  server.registerTool("svc_get", MEMORY_TOOLS.svc_get, attempt(getMemory));
  server.registerTool("svc_forget", MEMORY_TOOLS.svc_forget, attempt(forgetMemory));
  server.registerTool("svc_update", MEMORY_TOOLS.svc_update, attempt(updateMemory));
  return server;
}
