/**
 * The signed HTTP client of the relayer, used by the CLIs and by library users. Every request
 * is signed in version 2, for the origin of `baseUrl` as audience, with a fresh nonce; 429 and
 * 5xx answers (but 501) and network failures are retried with backoff; errors are raised as
 * `SvcError` with the server's code.
 *
 * @example
 * ```ts
 * const client = await SvcClient.create({ baseUrl: "http://127.0.0.1:8000", privateKey, accountId });
 * const accepted = await client.remember("I am vegetarian", { tags: ["diet"] });
 * if (accepted.status !== "duplicate") await client.waitForJob(accepted.job_id);
 * const { results } = await client.recall("what do I eat?", { tags: ["diet"] });
 *
 * const { memories } = await client.list({ namespace: "default", limit: 20 });
 * const receipt = await client.forget(memories[0].id);
 * const { receiptKey } = await client.health();
 * console.log(await verifyReceipt(receipt, receiptKey)); // true
 * ```
 *
 * @module
 */
import { SvcError } from "../errors.ts";
import { sleep } from "@svc/util/sleep";
import {
  isoTime,
  segment,
  SignedSender,
  type SvcClientOptions,
  withQuery,
} from "./signed_sender.ts";
import type { PublicJob } from "../jobs/job_queue.ts";
import type { Analysis, Answer } from "../services/llm.ts";
import type {
  ManualMemory,
  ManualRecallResults,
  RecallResults,
  RestoreSummary,
} from "../services/memories.ts";
import type {
  BlindNamespaceCount,
  BulkItem,
  BulkRememberAccepted,
  CallerIdentity,
  EraseReceipt,
  Health,
  JobStatuses,
  ListOptions,
  Memory,
  MemoryPage,
  NamespaceCount,
  NamespaceErasure,
  RecallOptions,
  RememberAnswer,
  RememberOptions,
  UpdateAccepted,
  UpdateOptions,
} from "./types.ts";
import {
  type ExportedMemory,
  exportMemories,
  type ExportOptions,
  exportPath,
  importMemories,
  type ImportOptions,
  type ImportSource,
  type ImportSummary,
} from "./portability.ts";
import { type AccessLogOptions, type AccessLogPage, accessLogPath } from "./access_log.ts";

export { type ErrorCode, SvcError } from "../errors.ts";
export { receiptMessage, verifyReceipt } from "./receipt.ts";
export { refusal } from "./signed_sender.ts";
export { shownText } from "../services/memory_view.ts";
export { exportedMemories, exportPath, textLines } from "./portability.ts";
export type * from "./portability.ts";
export * from "./access_log.ts";
export type { ReceiptFields } from "../services/receipts.ts";
export type * from "./types.ts";
export type { SvcClientOptions } from "./signed_sender.ts";
export type { LackedAnswer } from "../services/lacked_answer.ts";
export type { AnswerType } from "../ranking/answer_types.ts";

export type { JobStatus, PublicJob } from "../jobs/job_queue.ts";
export type { Analysis, AnalyzedFact, Answer } from "../services/llm.ts";
export type {
  ManualHit,
  ManualMemory,
  ManualRecallResults,
  RecallExplanation,
  RecallResult,
  RecallResults,
  RestoreSummary,
  UnknownJob,
} from "../services/memories.ts";

/** The fields of a text to remember (or of a new version), as the API names them. */
function rememberFields(item: BulkItem) {
  return {
    text: item.text,
    namespace: item.namespace,
    tags: item.tags,
    thread: item.thread,
    ttl_seconds: item.ttlSeconds,
    expires_at: item.expiresAt === undefined ? undefined : isoTime(item.expiresAt),
  };
}

/** A client of the relayer's HTTP API that signs every request with a delegate key. */
export class SvcClient {
  /** The relayer's URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The public key of the delegate key the client signs with (64 hex characters). */
  readonly publicKey: string;
  #sender: SignedSender;

  private constructor(sender: SignedSender) {
    this.baseUrl = sender.baseUrl;
    this.publicKey = sender.publicKey;
    this.#sender = sender;
  }

  /**
   * A client signing with `options.privateKey`; refuses `sendDelegateKey` unless the relayer
   * is reached over https or on loopback.
   */
  static async create(options: SvcClientOptions): Promise<SvcClient> {
    return new SvcClient(await SignedSender.open(options));
  }

  /** Sends a signed request and returns the parsed JSON answer. */
  async request<T>(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    body?: unknown,
  ): Promise<T> {
    const response = await this.send(
      method,
      path,
      body === undefined ? undefined : { body: JSON.stringify(body) },
    );
    const text = await response.text();
    let json: unknown = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      // a success whose body is not JSON: an empty answer
    }
    if (json !== null && typeof json === "object") return json as T;
    throw new SvcError("bad_request", `The relayer answered ${response.status}`);
  }

  /**
   * Sends a signed request with a raw body (`contentType` default JSON) and returns the
   * relayer's successful response unread, for answers read as a stream (`export`); retries and
   * errors as {@link SvcClient.request}. A response `answered` accepts is returned as well,
   * unread and not retried.
   */
  send(
    method: "GET" | "POST" | "PUT" | "DELETE",
    path: string,
    content?: { body: string; contentType?: string },
    answered?: (response: Response) => boolean | Promise<boolean>,
  ): Promise<Response> {
    return this.#sender.send(method, path, content, answered);
  }

  /**
   * The relayer's health: its version, mode and backends, and whether its sidecar is up. A
   * relayer draining before it stops (`SVC_STOP_DRAIN_SECONDS`) still serves, and answers 503
   * with `status: "stopping"`: that is returned too.
   */
  async health(): Promise<Health> {
    const stopping = async (response: Response) =>
      response.status === 503 &&
      (await response.clone().json().catch(() => null))?.status === "stopping";
    return await (await this.send("GET", "/health", undefined, stopping)).json();
  }

  /**
   * Queues a text to remember, in `options.namespace` (`"default"` without one), with its tags
   * and expiry; `replaces` makes it a new version of that memory. A text the namespace already
   * holds (the same after normalising case and white space) is not stored again: the answer is
   * then `{status: "duplicate", duplicate_of, memory}`.
   *
   * @example
   * ```ts
   * const answer = await client.remember("I am vegetarian", { tags: ["diet"], ttlSeconds: 86400 });
   * if (answer.status === "duplicate") console.log("already known as", answer.duplicate_of);
   * else await client.waitForJob(answer.job_id);
   * ```
   */
  remember(text: string, options: RememberOptions = {}): Promise<RememberAnswer> {
    return this.request<RememberAnswer>("POST", "/api/remember", {
      ...rememberFields({ ...options, text }),
      replaces: options.replaces,
    });
  }

  /**
   * Queues several texts to remember (at most 20), all or none; items whose text the namespace
   * already holds are listed in `duplicates`.
   */
  rememberBulk(items: BulkItem[]): Promise<BulkRememberAccepted> {
    return this.request<BulkRememberAccepted>("POST", "/api/remember/bulk", {
      items: items.map(rememberFields),
    });
  }

  /** A remember job of the caller's; fails with 404 when the caller has none of that id. */
  async job(jobId: string): Promise<PublicJob> {
    return await this.request("GET", `/api/remember/${segment(jobId)}`);
  }

  /** Remember jobs of the caller's (at most 100), in the order asked. */
  jobs(jobIds: string[]): Promise<JobStatuses> {
    return this.request<JobStatuses>("POST", "/api/remember/bulk/status", { job_ids: jobIds });
  }

  /**
   * Polls a job until it is done or failed; throws when `timeoutMs` passes first, with why its
   * last attempt failed if one did (a blob store down, say: the relayer tries again).
   */
  async waitForJob(
    jobId: string,
    options: { timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<PublicJob> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (let delay = options.intervalMs ?? 50;; delay = Math.min(delay * 2, 1000)) {
      const job = await this.job(jobId);
      if (job.status === "done" || job.status === "failed") return job;
      if (Date.now() + delay > deadline) {
        const why = job.error ? ` (its last attempt: ${job.error})` : "";
        throw new SvcError("backend_unavailable", `Job ${jobId} is still ${job.status}${why}`);
      }
      await sleep(delay);
    }
  }

  /**
   * The memories that best answer `query`, decrypted, best first (10 unless `limit`); `tags`,
   * `since` and `until` keep only the memories carrying every tag and created in that time;
   * `minScore` leaves out those scoring below it (the relayer's default unless given), and
   * `explain` gives each result the parts of its score.
   */
  recall(query: string, options: RecallOptions = {}): Promise<RecallResults> {
    const { since, until, minScore, ...rest } = options;
    return this.request<RecallResults>("POST", "/api/recall", {
      query,
      ...rest,
      min_score: minScore,
      since: since === undefined ? undefined : isoTime(since),
      until: until === undefined ? undefined : isoTime(until),
    });
  }

  /**
   * A page of the caller's memories in a namespace, newest first (50 unless `limit`, 1..500);
   * pass the page's `next_cursor` as `cursor` for the next one.
   *
   * @example
   * ```ts
   * let cursor: string | undefined;
   * do {
   *   const page = await client.list({ namespace: "default", tags: ["diet"], cursor });
   *   for (const memory of page.memories) console.log(memory.id, memory.text);
   *   cursor = page.next_cursor ?? undefined;
   * } while (cursor);
   * ```
   */
  list(options: ListOptions = {}): Promise<MemoryPage> {
    const { namespace, limit, cursor, tags, since, until } = options;
    const query = { namespace, limit, cursor, tag: tags, since, until };
    return this.request<MemoryPage>("GET", withQuery("/api/memories", query));
  }

  /** The caller's namespaces holding memories, with their counts, sorted by name. */
  namespaces(): Promise<{ namespaces: NamespaceCount[] }> {
    return this.request("GET", "/api/namespaces");
  }

  /**
   * The caller's operator-blind namespaces (`BlindMemory`), with how many memories each holds,
   * sorted by name.
   */
  blindNamespaces(): Promise<{ namespaces: BlindNamespaceCount[] }> {
    return this.request("GET", "/api/blind/namespaces");
  }

  /** One of the caller's memories; fails with 404 (`not_found`) for an unknown id or another owner's. */
  async get(id: string): Promise<Memory> {
    return await this.request<Memory>("GET", `/api/memories/${segment(id)}`);
  }

  /**
   * Erases one of the caller's memories (its key is destroyed: no copy of its ciphertext
   * decrypts again) and returns the relayer's signed receipt; fails with 404 for an unknown id
   * or another owner's.
   *
   * @example
   * ```ts
   * const receipt = await client.forget(id);
   * const genuine = await verifyReceipt(receipt, (await client.health()).receiptKey);
   * ```
   */
  async forget(id: string): Promise<EraseReceipt> {
    return await this.request<EraseReceipt>("DELETE", `/api/memories/${segment(id)}`);
  }

  /** Erases every memory of the caller's in `namespace`; one receipt per memory. */
  forgetNamespace(namespace: string): Promise<NamespaceErasure> {
    const path = withQuery("/api/memories", { namespace, confirm: namespace });
    return this.request<NamespaceErasure>("DELETE", path);
  }

  /**
   * Stores a new version of a memory: its new text, and its tags and expiry when given (else
   * the old version's); the old one is erased once the new one is recallable, and recall never
   * returns both. Fails with 404 for an unknown id or another owner's.
   *
   * @example
   * ```ts
   * const { job_id } = await client.update(id, { text: "I am vegan", tags: ["diet"] });
   * await client.waitForJob(job_id);
   * ```
   */
  async update(id: string, change: UpdateOptions): Promise<UpdateAccepted> {
    const path = `/api/memories/${segment(id)}`;
    const { expiresAt, ...rest } = change;
    // `null`: the new version never expires (JSON keeps the null).
    const body = expiresAt === null
      ? { ...rememberFields(rest), expires_at: null }
      : rememberFields(change as BulkItem);
    return await this.request<UpdateAccepted>("PUT", path, body);
  }

  /**
   * Stores a memory the caller encrypted itself, indexed under the caller's own `vector` (of
   * the relayer's dimensions); resolves once it is stored and indexed.
   */
  rememberManual(
    encryptedData: Uint8Array<ArrayBuffer>,
    vector: number[],
    options: { namespace?: string } = {},
  ): Promise<ManualMemory> {
    return this.request<ManualMemory>(
      "POST",
      "/api/remember/manual",
      { encrypted_data: encryptedData.toBase64(), vector, ...options },
    );
  }

  /** The memories nearest to the caller's own `vector`, without their text (10 unless `limit`). */
  recallManual(
    vector: number[],
    options: { limit?: number; namespace?: string } = {},
  ): Promise<ManualRecallResults> {
    return this.request<ManualRecallResults>("POST", "/api/recall/manual", {
      vector,
      ...options,
    });
  }

  /**
   * The vectors of `texts` in the relayer's own embedding space, as memories (`document`, the
   * default) or as recall questions (`query`), for {@link rememberManual} and
   * {@link recallManual}. The relayer reads the texts.
   */
  async embed(
    texts: string[],
    options: { purpose?: "document" | "query" } = {},
  ): Promise<{ vectors: number[][]; model: string; dimensions: number }> {
    return await this.request("POST", "/api/embed", { texts, ...options });
  }

  /**
   * Has the relayer's language model extract facts about the user from `text`, and queues the
   * ones not already remembered; fails with 501 on a relayer without one.
   */
  analyze(text: string, options: { namespace?: string } = {}): Promise<Analysis> {
    return this.request<Analysis>("POST", "/api/analyze", { text, ...options });
  }

  /**
   * Answers `question` from the caller's memories only (5 recalled unless `limit`); fails with
   * 501 on a relayer without a language model.
   */
  ask(question: string, options: { limit?: number; namespace?: string } = {}): Promise<Answer> {
    return this.request<Answer>("POST", "/api/ask", { question, ...options });
  }

  /**
   * A page of the owner's access log, newest first: which key did what to which memories, and
   * when. Needs the owner's key or a delegate key with the `audit` scope (which sees only its
   * namespaces); pass the page's `next_cursor` as `cursor` for the next one.
   *
   * @example
   * ```ts
   * const { entries } = await client.accessLog({ memory: id, op: "recall" });
   * for (const e of entries) console.log(e.at, e.key.label, e.op, e.memory_ids.length);
   * ```
   */
  accessLog(options: AccessLogOptions = {}): Promise<AccessLogPage> {
    return this.request<AccessLogPage>("GET", accessLogPath(options));
  }

  /** The caller's identity as the relayer resolves it; fails with 401 for an unknown key. */
  whoami(): Promise<CallerIdentity> {
    return this.request<CallerIdentity>("GET", "/api/whoami");
  }

  /**
   * Indexes again the namespace's memories whose blobs are stored but missing from the index
   * (50 at most unless `limit`); call again while `remaining` is above 0.
   */
  restore(namespace: string, options: { limit?: number } = {}): Promise<RestoreSummary> {
    return this.request("POST", "/api/restore", { namespace, ...options });
  }

  /**
   * The caller's memories, decrypted, as they stream from the relayer: namespace by namespace
   * (every one the key may use, unless `namespace`), oldest first.
   *
   * @example
   * ```ts
   * for await (const memory of client.export({ namespace: "work" })) console.log(memory.text);
   * ```
   */
  export(options: ExportOptions = {}): AsyncIterable<ExportedMemory> {
    return exportMemories(() => this.send("GET", exportPath(options)));
  }

  /**
   * Imports memories (an export's lines, or objects of that shape) in batches of up to 500;
   * texts their namespace already holds are skipped, so importing the same lines again adds
   * nothing. A line that cannot be imported is reported by its place in `lines` (from 1) and
   * the rest go on.
   *
   * @example
   * ```ts
   * const { imported, duplicates, failed } = await client.import([{ text: "I keep bees" }]);
   * ```
   */
  import(lines: ImportSource, options: ImportOptions = {}): Promise<ImportSummary> {
    const post = async (body: string) =>
      await (await this.send("POST", "/api/import", {
        body,
        contentType: "application/x-ndjson",
      })).json() as ImportSummary;
    return importMemories(post, lines, options);
  }
}
