/**
 * The memory commands of `svc` (a signed client of the relayer) that write: remember, restore,
 * forget and update; those that read (recall, list, get, namespaces, whoami) are in
 * `svc_memories_read.ts`.
 */
import { type EraseReceipt, SvcClient, verifyReceipt } from "@svc/relayer/client";
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
import type { Flags, Invocation } from "./svc_command_line.ts";
import type { CliIo } from "./io.ts";
import { runGet, runList, runNamespaces, runRecall, runWhoami } from "./svc_memories_read.ts";

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

function receiptLines(receipt: EraseReceipt): string {
  return `memory_id  ${receipt.memory_id}\nowner      ${receipt.owner}\n` +
    `blob_id    ${receipt.blob_id}\nerased_at  ${receipt.erased_at}\n` +
    `signature  ${receipt.signature}`;
}

/** The text of `update`: `--text`, else standard input when it is not a terminal. */
async function updateText(given: string | undefined, stdin: CliIo["stdin"]): Promise<string> {
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

/** A memory command's words and flags, checked before anything is sent. */
export type MemoryRequest = ReturnType<typeof checkedRequest>;

/** The words and flags of `command`, checked as the relayer would check them. */
function checkedRequest(command: string, words: string[], values: Flags) {
  const request = {
    // The words after the command as one text: what `remember` stores, what `recall` seeks.
    text: words.filter(Boolean).join(" "),
    namespace: values.namespace,
    limit: positiveInt(values.limit, "--limit", LIMIT_MAX[command] ?? 500),
    // The memory's id (`get`, `update`, `forget ID`).
    id: command === "get" || command === "update" ||
        (command === "forget" && words[0] !== undefined)
      ? memoryIdArg(words[0], "the memory's id")
      : undefined,
    replaces: values.replaces === undefined
      ? undefined
      : memoryIdArg(values.replaces, "--replaces"),
    since: pastTime(values.since, "--since", Date.now()),
    until: pastTime(values.until, "--until", Date.now()),
    tags: tagsArg(values.tag),
    thread: threadArg(values.thread),
    minScore: minScoreArg(values["min-score"]),
    ttl: ttlSeconds(values.ttl),
    expiresAt: expiryTime(values["expires-at"], "--expires-at"),
  };
  if (request.ttl !== undefined && request.expiresAt !== undefined) {
    throw new UsageError("give --ttl or --expires-at, not both");
  }
  if (command === "forget") checkForget(request.id, request.namespace, values.confirm);
  return request;
}

/** Runs one memory command. */
export async function runMemoryCommand(
  { command, words, flags: values, io }: Invocation,
): Promise<Output> {
  const options = await clientOptions(values, (name) => io.env[name], io.fetch);
  // Checked before anything is sent.
  const request = checkedRequest(command, words, values);
  let client = await SvcClient.create(options);
  if (command === "whoami") return await runWhoami(client, options.baseUrl);
  if (command === "namespaces") return await runNamespaces(client);
  const health = command === "remember" ? null : await client.health();
  // A Seal relayer decrypts and erases with the caller's own key.
  if (health?.backends.cipher === "seal") {
    client = await SvcClient.create({ ...options, sendDelegateKey: true });
  }
  switch (command) {
    case "remember":
      return await runRemember(client, request, values.wait);
    case "recall":
      return await runRecall(client, request, values.explain);
    case "list":
      return await runList(client, request, values.cursor);
    case "get":
      return await runGet(client, request.id!);
    case "forget":
      return await runForget(client, request, health?.receiptKey);
    case "update":
      return await runUpdate(client, request, await updateText(values.text, io.stdin), values.wait);
    default: // restore
      return await runRestore(client, request);
  }
}

/** `remember TEXT`: stores it (waited for with `--wait`), unless the namespace holds it. */
async function runRemember(
  client: SvcClient,
  { text, namespace, tags, thread, ttl, expiresAt, replaces }: MemoryRequest,
  wait: boolean | undefined,
): Promise<Output> {
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
  const job = wait ? await client.waitForJob(answer.job_id) : answer;
  return jobOutput(job, { ...job });
}

/**
 * `forget ID` or `forget --namespace NS`: erases, and checks each receipt's signature with the
 * relayer's `receiptKey`.
 */
async function runForget(
  client: SvcClient,
  { id, namespace }: MemoryRequest,
  receiptKey: string | undefined,
): Promise<Output> {
  const check = (receipt: EraseReceipt) => verifyReceipt(receipt, receiptKey ?? "");
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
    ? `signature verified with the relayer's receipt key ${receiptKey}`
    : "WARNING: the signature does not verify with the relayer's receipt key";
  return {
    json: { ...receipt },
    text: `erased memory ${receipt.memory_id}\n${receiptLines(receipt)}\n${verdict}`,
  };
}

/** `update ID`: stores `text` as a new version replacing the memory (waited for with `--wait`). */
async function runUpdate(
  client: SvcClient,
  { id, tags, ttl, expiresAt }: MemoryRequest,
  text: string,
  wait: boolean | undefined,
): Promise<Output> {
  const accepted = await client.update(id!, { text, tags, ttlSeconds: ttl, expiresAt });
  const job = wait ? await client.waitForJob(accepted.job_id) : accepted;
  return jobOutput(job, { ...job, supersedes: id }, ` (a new version replacing ${id})`);
}

/** `restore --namespace NS`: indexes the namespace again from its blobs. */
async function runRestore(
  client: SvcClient,
  { namespace, limit }: MemoryRequest,
): Promise<Output> {
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
