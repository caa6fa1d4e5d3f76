/**
 * The memory commands of `svc` that only read: whoami, namespaces, recall, list and get, and
 * how they show memories as text.
 */
import {
  type Memory,
  type RecallExplanation,
  shownText,
  type SvcClient,
} from "@svc/relayer/client";
import { describeKeyLimits } from "@svc/relayer/rules";
import { parseKeyLimits, SvcError } from "@svc/relayer/kit";
import { need } from "./client_flags.ts";
import { visible, visibleName } from "./visible_text.ts";
import type { MemoryRequest, Output } from "./svc_memories.ts";

/** What a recall result's score is made of, on one line. */
function explanation(parts: RecallExplanation): string {
  const two = (x: number) => x.toFixed(2);
  return [
    `vector ${two(parts.vector)}`,
    `lexical ${two(parts.lexical)}`,
    ...(parts.rerank === null ? [] : [`re-rank ${two(parts.rerank)}`]),
    ...(parts.answer_type === null ? [] : [`answer type ${parts.answer_type}`]),
    `fused ${two(parts.fused)}`,
    `neighbour ${two(parts.neighbour)}` + (parts.neighbour_id ? ` (${parts.neighbour_id})` : ""),
    ...(parts.asked_about ? [`asked about ${visible(parts.asked_about)}`] : []),
  ].join(", ");
}

/** ` (id …; tags: …)`: what a memory is known by besides its text. */
function labels(memory: { id: string; tags?: string[] }): string {
  const tags = memory.tags?.length ? `; tags: ${memory.tags.map(visibleName).join(", ")}` : "";
  return ` (id ${memory.id}${tags})`;
}

const oneLine = (memory: Memory) => visible(shownText(memory).replace(/\s+/g, " ").trim());

/** The key that stored a memory: its label then and its address (none for older memories). */
function storedBy({ remembered_by: by }: Memory): string | null {
  return by && `${by.label ? visibleName(by.label) : "(no label)"} (${by.address})`;
}

function describe(memory: Memory): string {
  const rows: [string, string | null][] = [
    ["id", memory.id],
    ["namespace", visibleName(memory.namespace)],
    ["created", memory.created_at],
    ["updated", memory.updated_at],
    ["expires", memory.expires_at],
    ["supersedes", memory.supersedes],
    ["tags", memory.tags.length ? memory.tags.map(visibleName).join(", ") : null],
    ["thread", memory.thread ?? null],
    ["stored by", storedBy(memory)],
  ];
  return rows.filter(([, value]) => value !== null)
    .map(([name, value]) => `${name.padEnd(11)}${value}`)
    .join("\n") + `\n\n${shownText(memory)}`;
}

/** `whoami`: the key's account, label, scope and expiry, and the relayer at `relayerUrl`. */
export async function runWhoami(client: SvcClient, relayerUrl: string): Promise<Output> {
  const [me, { version, backends, operatorBlind }] = await Promise.all([
    client.whoami(),
    client.health(),
  ]);
  const { scope, expiresAt } = parseKeyLimits({ ...me.scope, expires_at: me.expires_at });
  const limits = describeKeyLimits(scope, expiresAt);
  const relayer = { url: relayerUrl, version, embedder: backends.embedder };
  const blind = operatorBlind ? await blindNamespaces(client) : [];
  const blindNames = blind.map(({ namespace, erasing }) =>
    visibleName(namespace) + (erasing ? " (half erased: run svc blind erase again)" : "")
  ).join(", ");
  return {
    json: { ...me, relayer, operator_blind: blind.map(({ namespace }) => namespace) },
    text: `account ${me.account_id} (owner ${me.owner})\nkey     ${me.address} ` +
      `"${visibleName(me.label)}"\nscope   ${visibleName(limits)}\nrelayer ${relayer.url} ` +
      `(version ${visibleName(String(version))}, embedder ${visibleName(backends.embedder)})` +
      (blind.length ? `\nblind   ${blindNames} (operator-blind: read on your devices only)` : ""),
  };
}

/** The account's operator-blind namespaces; none for a key that may not read. */
async function blindNamespaces(client: SvcClient) {
  try {
    return (await client.blindNamespaces()).namespaces;
  } catch (error) {
    if (error instanceof SvcError && error.code === "forbidden") return [];
    throw error;
  }
}

/** `namespaces`: the namespaces holding memories, with their counts. */
export async function runNamespaces(client: SvcClient): Promise<Output> {
  const { namespaces } = await client.namespaces();
  const rows = namespaces.map(({ namespace, count }) =>
    `${String(count).padStart(7)}  ${visibleName(namespace)}`
  );
  return { json: { namespaces }, text: rows.join("\n") || "no memories yet" };
}

/** `recall QUERY`: the best matches, each with its score (and what it is made of). */
export async function runRecall(
  client: SvcClient,
  request: MemoryRequest,
  explain: boolean | undefined,
): Promise<Output> {
  const { text, namespace, limit, tags, since, until, minScore } = request;
  const found = await client.recall(need(text, "the query"), {
    namespace,
    limit,
    tags,
    since,
    until,
    minScore,
    explain,
  });
  return {
    json: { ...found },
    text:
      found.results.map((r, i) =>
        `${i + 1}. [score ${r.score.toFixed(2)}] ${r.text}${labels(r)}` +
        (r.explain ? `\n   ${explanation(r.explain)}` : "")
      ).join("\n") || "No matching memories found",
  };
}

/** `list`: a page of memories, newest first, one line each, then the next page's cursor. */
export async function runList(
  client: SvcClient,
  { namespace, limit, tags, since, until }: MemoryRequest,
  cursor: string | undefined,
): Promise<Output> {
  const page = await client.list({ namespace, limit, cursor, tags, since, until });
  const lines = page.memories.map((m) =>
    `${m.id}  ${m.supersedes ? `${m.updated_at} (corrected)` : m.created_at}  ${
      m.tags.length ? `[${m.tags.map(visibleName).join(", ")}]  ` : ""
    }` +
    oneLine(m)
  );
  if (page.next_cursor) lines.push(`next page: --cursor ${page.next_cursor}`);
  return { json: { ...page }, text: lines.join("\n") || "No memories" };
}

/** `get ID`: one memory, with its tags and dates. */
export async function runGet(client: SvcClient, id: string): Promise<Output> {
  const memory = await client.get(id);
  return { json: { ...memory }, text: describe(memory) };
}
