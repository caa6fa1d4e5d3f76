/**
 * The memory commands of `svc` (a signed client of the relayer): remember, recall, restore,
 * list, get, forget, update, namespaces and whoami. Each returns the one JSON object `--json` prints and the text
 * printed otherwise.
 */
import {
  type EraseReceipt,
  type Memory,
  type RecallExplanation,
  SvcClient,
  verifyReceipt,
} from "../src/client/mod.ts";
import { describeKeyLimits, parseKeyLimits } from "../src/auth/key_limits.ts";
import {
  clientOptions,
  expiryTime,
  memoryIdArg,
  minScoreArg,
  need,
  pastTime,
  positiveInt,
  tagsArg,
  threadArg,
  ttlSeconds,
  UsageError,
} from "./client_flags.ts";
import { visible, visibleName } from "./visible_text.ts";
import { shownText } from "../src/services/memory_view.ts";

/** What a command prints: `json` with `--json`, `text` otherwise; `failed`: then exit 1. */
export type Output = { json: Record<string, unknown>; text: string; failed?: boolean };

/** A job as a command's output: a failed one (waited for) with its error, and exit 1. */
function jobOutput(
  job: { job_id: string; status: string; error?: string },
  json: Record<string, unknown>,
  about = "",
): Output {
  const failed = job.status === "failed";
  return {
    json,
    text: `job ${job.job_id}: ${job.status}${about}${failed ? `: ${job.error}` : ""}`,
    failed,
  };
}

/** The flags the memory commands read. */
export interface MemoryFlags {
  namespace?: string;
  limit?: string;
  wait?: boolean;
  relayer?: string;
  key?: string;
  account?: string;
  tag?: string[];
  thread?: string;
  "min-score"?: string;
  explain?: boolean;
  ttl?: string;
  "expires-at"?: string;
  replaces?: string;
  cursor?: string;
  since?: string;
  until?: string;
  text?: string;
  confirm?: string;
}

export const MEMORY_COMMANDS = [
  "remember",
  "recall",
  "restore",
  "list",
  "get",
  "forget",
  "update",
  "namespaces",
  "whoami",
];

export const MEMORY_USAGE = `Memories (signed client; key from SVC_DELEGATE_KEY or --key):
  remember TEXT [--namespace NS] [--tag T]... [--thread ID] [--ttl 30d|--expires-at TIME]
                [--replaces ID] [--wait]
                                         a text already in the namespace is not stored
                                         again: the answer names the memory holding it;
                                         --thread names the conversation a turn is of
  recall QUERY [--limit N] [--namespace NS] [--tag T]... [--since 7d|TIME] [--until TIME]
               [--min-score 0.2] [--explain]
                                         --min-score leaves out weaker matches (0 keeps
                                         all); --explain shows what each score is made of
  list [--namespace NS] [--limit N] [--cursor C] [--tag T]... [--since 7d|TIME] [--until TIME]
                                         newest first; a page ends with its next cursor
  get ID                                 one memory, with its tags and dates
  forget ID                              erase a memory; prints the relayer's signed
                                         receipt and checks its signature
  forget --namespace NS --confirm NS     erase every memory of a namespace
  update ID --text TEXT|(text on stdin) [--tag T]... [--ttl 30d|--expires-at TIME] [--wait]
                                         store a new version that replaces the memory
  restore --namespace NS [--limit N]     index the namespace again from its blobs, N (500)
                                         per request
  namespaces                             the namespaces holding memories, with their counts
  whoami                                 the key's account, label, scope and expiry, and
                                         the relayer's version and embedder
  Options: --relayer URL (SVC_SERVER_URL, default http://127.0.0.1:$SVC_PORT, else :8000),
           --account ID (SVC_ACCOUNT_ID), --key HEX (SVC_DELEGATE_KEY)
  TIME is ISO 8601 (2026-07-01T00:00:00Z); --ttl is a number of s, m, h, d or w (30d), and
  --since and --until also take one back from now (7d).`;

/** The most memories a request of each command may ask for (the relayer's limits). */
const LIMIT_MAX: Record<string, number> = { recall: 100, list: 500, restore: 500 };

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

function receiptLines(receipt: EraseReceipt): string {
  return `memory_id  ${receipt.memory_id}\nowner      ${receipt.owner}\n` +
    `blob_id    ${receipt.blob_id}\nerased_at  ${receipt.erased_at}\n` +
    `signature  ${receipt.signature}`;
}

/** The text of `update`: `--text`, else standard input when it is not a terminal. */
async function updateText(given: string | undefined, stdin: StdinSource): Promise<string> {
  if (given !== undefined) return need(given, "the new text (--text or standard input)");
  if (stdin.isTerminal()) throw new UsageError("missing the new text (--text or standard input)");
  const bytes = await new Response(stdin.readable).bytes();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/\r?\n$/, "");
  } catch {
    throw new UsageError("the new text on standard input is not UTF-8");
  }
  return need(text.trim() ? text : "", "the new text (--text or standard input)");
}

/** Where `update` reads its text without `--text`. */
export interface StdinSource {
  isTerminal(): boolean;
  readable: ReadableStream<Uint8Array>;
}

/** `forget ID`, or `forget --namespace NS --confirm NS`: nothing else is sent. */
function checkForget(id: string | undefined, namespace?: string, confirm?: string) {
  if (id !== undefined) {
    if (namespace !== undefined || confirm !== undefined) {
      throw new UsageError("give a memory's id or --namespace NS --confirm NS, not both");
    }
    return;
  }
  const target = need(namespace, "the memory's id, or --namespace NS --confirm NS");
  if (confirm !== target) {
    throw new UsageError(
      `erasing a namespace needs --confirm repeating its name (--confirm ${target})`,
    );
  }
}

/** Runs one memory command; `words` are the positionals after the command. */
export async function runMemoryCommand(
  command: string,
  words: string[],
  values: MemoryFlags,
  env: (name: string) => string | undefined,
  stdin: StdinSource,
  fetch?: typeof globalThis.fetch,
): Promise<Output> {
  const options = await clientOptions(values, env, fetch);
  // Checked before anything is sent.
  const limit = positiveInt(values.limit, "--limit", LIMIT_MAX[command] ?? 500);
  const id = command === "get" || command === "update" ||
      (command === "forget" && words[0] !== undefined)
    ? memoryIdArg(words[0], "the memory's id")
    : undefined;
  const replaces = values.replaces === undefined
    ? undefined
    : memoryIdArg(values.replaces, "--replaces");
  const since = pastTime(values.since, "--since", Date.now());
  const until = pastTime(values.until, "--until", Date.now());
  const tags = tagsArg(values.tag);
  const thread = threadArg(values.thread);
  const minScore = minScoreArg(values["min-score"]);
  const ttl = ttlSeconds(values.ttl);
  const expiresAt = expiryTime(values["expires-at"], "--expires-at");
  if (ttl !== undefined && expiresAt !== undefined) {
    throw new UsageError("give --ttl or --expires-at, not both");
  }
  const namespace = values.namespace;
  if (command === "forget") checkForget(id, namespace, values.confirm);
  let client = await SvcClient.create(options);
  if (command === "whoami") {
    const [me, { version, backends }] = await Promise.all([client.whoami(), client.health()]);
    const { scope, expiresAt } = parseKeyLimits({ ...me.scope, expires_at: me.expires_at });
    const limits = describeKeyLimits(scope, expiresAt);
    const relayer = { url: options.baseUrl, version, embedder: backends.embedder };
    return {
      json: { ...me, relayer },
      text: `account ${me.account_id} (owner ${me.owner})\nkey     ${me.address} ` +
        `"${visibleName(me.label)}"\nscope   ${visibleName(limits)}\nrelayer ${relayer.url} ` +
        `(version ${visibleName(String(version))}, embedder ${visibleName(backends.embedder)})`,
    };
  }
  if (command === "namespaces") {
    const { namespaces } = await client.namespaces();
    const rows = namespaces.map(({ namespace, count }) =>
      `${String(count).padStart(7)}  ${visibleName(namespace)}`
    );
    return { json: { namespaces }, text: rows.join("\n") || "no memories yet" };
  }
  const health = command === "remember" ? null : await client.health();
  // A Seal relayer decrypts and erases with the caller's own key.
  if (health?.backends.cipher === "seal") {
    client = await SvcClient.create({ ...options, sendDelegateKey: true });
  }
  const text = words.filter(Boolean).join(" ");

  if (command === "remember") {
    const answer = await client.remember(need(text, "the text to remember"), {
      namespace,
      tags,
      thread,
      ttlSeconds: ttl,
      expiresAt,
      replaces,
    });
    if (answer.status === "duplicate") {
      return {
        json: { ...answer },
        text: `already remembered as ${answer.duplicate_of}; nothing new was stored`,
      };
    }
    const job = values.wait ? await client.waitForJob(answer.job_id) : answer;
    return jobOutput(job, { ...job });
  }

  if (command === "recall") {
    const found = await client.recall(need(text, "the query"), {
      namespace,
      limit,
      tags,
      since,
      until,
      minScore,
      explain: values.explain,
    });
    return {
      json: { ...found },
      text: found.results.map((r, i) =>
        `${i + 1}. [score ${r.score.toFixed(2)}] ${r.text}${labels(r)}` +
        (r.explain ? `\n   ${explanation(r.explain)}` : "")
      ).join("\n") || "No matching memories found",
    };
  }

  if (command === "list") {
    const page = await client.list({ namespace, limit, cursor: values.cursor, tags, since, until });
    const lines = page.memories.map((m) =>
      `${m.id}  ${m.supersedes ? `${m.updated_at} (corrected)` : m.created_at}  ${
        m.tags.length ? `[${m.tags.map(visibleName).join(", ")}]  ` : ""
      }` +
      oneLine(m)
    );
    if (page.next_cursor) lines.push(`next page: --cursor ${page.next_cursor}`);
    return { json: { ...page }, text: lines.join("\n") || "No memories" };
  }

  if (command === "get") {
    const memory = await client.get(id!);
    return { json: { ...memory }, text: describe(memory) };
  }

  if (command === "forget") {
    const check = (receipt: EraseReceipt) => verifyReceipt(receipt, health?.receiptKey ?? "");
    if (id === undefined) {
      const erased = await client.forgetNamespace(namespace!);
      const valid = (await Promise.all(erased.receipts.map(check))).filter(Boolean).length;
      return {
        json: { ...erased },
        text: `erased ${erased.erased} ${erased.erased === 1 ? "memory" : "memories"} from ` +
          `namespace "${erased.namespace}"; ` +
          `${valid} of ${erased.receipts.length} receipts verified with the relayer's receipt ` +
          "key (--json prints them)",
      };
    }
    const receipt = await client.forget(id);
    const verdict = await check(receipt)
      ? `signature verified with the relayer's receipt key ${health?.receiptKey}`
      : "WARNING: the signature does not verify with the relayer's receipt key";
    return {
      json: { ...receipt },
      text: `erased memory ${receipt.memory_id}\n${receiptLines(receipt)}\n${verdict}`,
    };
  }

  if (command === "update") {
    const accepted = await client.update(id!, {
      text: await updateText(values.text, stdin),
      tags,
      ttlSeconds: ttl,
      expiresAt,
    });
    const job = values.wait ? await client.waitForJob(accepted.job_id) : accepted;
    return jobOutput(job, { ...job, supersedes: id }, ` (a new version replacing ${id})`);
  }

  // Request after request until nothing is left; --limit is each request's (500 at most).
  const name = need(namespace, "--namespace");
  let restored = 0;
  let summary;
  do {
    summary = await client.restore(name, { limit: limit ?? 500 });
    restored += summary.restored;
  } while (summary.remaining > 0 && summary.restored > 0);
  // What the last request counted as already indexed includes what the earlier ones restored.
  const skipped = summary.total - restored - summary.remaining;
  return {
    json: { ...summary, restored, skipped },
    text: `Restore of namespace "${summary.namespace}": total ${summary.total}, ` +
      `restored ${restored}, skipped ${skipped}.`,
  };
}
