/**
 * The memory tools over an operator-blind namespace (`svc-mcp --blind`): the tool server of the
 * relayer's sidecar (`createMcpServer`), given a client that remembers, recalls, lists, reads,
 * updates and forgets through a `BlindMemory` on this machine. The tools that need a reader on
 * the relayer (analyze, restore) and other namespaces are refused, saying why.
 */
import type { BlindMemory, BlindMemoryEntry } from "@svc/relayer/blind";
import type { Memory, PublicJob } from "@svc/relayer/client";
import type { ToolSession } from "@svc/relayer/mcp";
import { SvcError } from "@svc/relayer/kit";

/** The refusal of what an operator-blind namespace cannot do here. */
const refused = (what: string) => () =>
  Promise.reject(
    new SvcError(
      "not_implemented",
      `${what} is not available for an operator-blind namespace: the relayer cannot read it`,
    ),
  );

/** `entry` as list and get answer a memory. */
function memoryOf(entry: BlindMemoryEntry, namespace: string): Memory {
  const at = new Date(entry.createdAt).toISOString();
  return {
    id: entry.id,
    namespace,
    text: entry.text,
    manual: false,
    tags: entry.tags,
    thread: entry.thread ?? null,
    created_at: at,
    updated_at: at,
    expires_at: null,
    supersedes: entry.supersedes ?? null,
    remembered_by: null,
  };
}

/** The tool session of `memory`'s namespace. */
export function blindToolSession(memory: BlindMemory): ToolSession {
  const { namespace } = memory;
  const inNamespace = (asked?: string) => {
    if (asked && asked !== namespace) {
      throw new SvcError(
        "forbidden",
        `This server serves the operator-blind namespace "${namespace}" only, not "${asked}"`,
      );
    }
  };
  const entry = async (id: string) => {
    const found = (await memory.memories()).find((held) => held.id === id);
    if (!found) throw new SvcError("not_found", "No such memory");
    return found;
  };
  const client: ToolSession["client"] = {
    async remember(text, options = {}) {
      inNamespace(options.namespace);
      const held = new Set((await memory.memories()).map((known) => known.id));
      const [id] = await memory.remember([{ text, tags: options.tags, thread: options.thread }]);
      // A text the namespace holds (in the same thread) answers with the memory holding it.
      return held.has(id)
        ? { job_id: id, status: "duplicate", duplicate_of: id }
        : { job_id: id, status: "done" };
    },
    waitForJob(jobId: string): Promise<PublicJob> {
      const at = new Date().toISOString();
      const job = { owner: "", namespace, attempts: 1, created_at: at, updated_at: at };
      return Promise.resolve({ ...job, job_id: jobId, memory_id: jobId, status: "done" });
    },
    async recall(query, options = {}) {
      inNamespace(options.namespace);
      const { limit, tags, since, until, minScore, explain } = options;
      return await memory.recall(query, { limit, tags, since, until, minScore, explain });
    },
    async list(options = {}) {
      inNamespace(options.namespace);
      const tags = options.tags ?? [];
      const all = (await memory.memories()).filter((held) =>
        tags.every((tag) => held.tags.includes(tag))
      );
      // The cursor is the place of the page's first memory, as the last page gave it out.
      const cursor = options.cursor || "0";
      const from = Number(cursor);
      if (!Number.isSafeInteger(from) || from < 0 || String(from) !== cursor) {
        throw new SvcError("bad_request", "cursor is not a cursor this server gave out");
      }
      const limit = options.limit ?? 50;
      const memories = all.slice(from, from + limit).map((held) => memoryOf(held, namespace));
      const more = from + limit < all.length;
      return { memories, next_cursor: more ? String(from + limit) : null };
    },
    async get(id) {
      return memoryOf(await entry(id), namespace);
    },
    async update(id, change) {
      const updated = await memory.update(id, { text: change.text, tags: change.tags });
      return { job_id: updated.id, status: "pending", supersedes: id };
    },
    async forget(id) {
      await entry(id);
      return await memory.forget(id);
    },
    jobs: refused("Reading jobs"),
    analyze: refused("Analyze"),
    restore: refused("Restore"),
    namespaces: refused("Listing namespaces"),
  };
  return { client, namespace, waitMs: 0 };
}
