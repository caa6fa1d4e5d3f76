/**
 * The signed HTTP client of the relayer, used by the CLIs and by library users. Every request
 * carries a fresh nonce; 429 and 5xx answers (but 501) and network failures are retried with
 * backoff; errors are raised as `SvcError` with the server's code.
 *
 * @example
 * ```ts
 * const client = await SvcClient.create({ baseUrl: "http://127.0.0.1:8000", privateKey, accountId });
 * const { job_id } = await client.remember("I am vegetarian");
 * await client.waitForJob(job_id);
 * const { results } = await client.recall("what do I eat?");
 * ```
 */
import { type KeyPair, keyPairFromSeed } from "../auth/keys.ts";
import { signRequest } from "../auth/signing.ts";
import { isErrorCode, SvcError } from "../errors.ts";
import type { PublicJob } from "../jobs/job_queue.ts";
import type { ManualHit, RecallResult, RestoreSummary } from "../services/memories.ts";

export type { ManualHit, PublicJob, RecallResult, RestoreSummary };

export interface SvcClientOptions {
  baseUrl: string;
  /** The delegate private key (64 hex characters). */
  privateKey: string;
  accountId?: string;
  fetch?: typeof fetch;
  /** Retries after the first attempt (default 3). */
  retries?: number;
  /**
   * Sends the private key as `x-delegate-key` on the calls that decrypt (recall, ask, restore):
   * a relayer whose cipher is Seal decrypts with the caller's own key. Off by default.
   */
  sendDelegateKey?: boolean;
}

const DECRYPTING_PATHS = new Set(["/api/recall", "/api/ask", "/api/restore"]);

/** https, or plain http to this machine: where a private key may travel. */
function privateChannel(baseUrl: string): boolean {
  const url = new URL(baseUrl);
  return url.protocol === "https:" ||
    ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SvcClient {
  readonly baseUrl: string;
  readonly publicKey: string;
  #key: KeyPair;
  #accountId?: string;
  #fetch: typeof fetch;
  #retries: number;
  #sendDelegateKey: boolean;

  private constructor(options: SvcClientOptions, key: KeyPair) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.publicKey = key.publicKey;
    this.#key = key;
    this.#accountId = options.accountId;
    this.#fetch = options.fetch ?? fetch;
    this.#retries = options.retries ?? 3;
    this.#sendDelegateKey = options.sendDelegateKey ?? false;
  }

  static async create(options: SvcClientOptions): Promise<SvcClient> {
    if (options.sendDelegateKey && !privateChannel(options.baseUrl)) {
      throw new SvcError(
        "bad_request",
        "Cannot send the delegate key: the relayer must be reached over https or on loopback",
      );
    }
    return new SvcClient(options, await keyPairFromSeed(options.privateKey));
  }

  /** Sends a signed request and returns the parsed JSON answer. */
  async request<T>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> {
    const payload = body === undefined ? "" : JSON.stringify(body);
    for (let attempt = 0;; attempt++) {
      const headers = await signRequest({
        key: this.#key,
        method,
        path,
        body: payload,
        nonce: true,
        accountId: this.#accountId,
      });
      if (body !== undefined) headers["content-type"] = "application/json";
      if (this.#sendDelegateKey && DECRYPTING_PATHS.has(path)) {
        headers["x-delegate-key"] = this.#key.privateKey;
      }
      let response: Response;
      try {
        response = await this.#fetch(this.baseUrl + path, {
          method,
          headers,
          body: body === undefined ? undefined : payload,
        });
      } catch (cause) {
        if (attempt < this.#retries) {
          await sleep(200 * 2 ** attempt);
          continue;
        }
        throw new SvcError("backend_unavailable", `Cannot reach the relayer at ${this.baseUrl}`, {
          cause,
        });
      }
      const retryable = response.status === 429 ||
        (response.status >= 500 && response.status !== 501);
      if (retryable && attempt < this.#retries) {
        await response.body?.cancel();
        const retryAfter = Number(response.headers.get("retry-after"));
        await sleep(retryAfter > 0 ? Math.min(retryAfter, 30) * 1000 : 200 * 2 ** attempt);
        continue;
      }
      const text = await response.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? JSON.parse(text) : {};
      } catch {
        // handled below: a non-JSON answer is an error whatever its status
      }
      if (response.ok && typeof json === "object") return json as T;
      const { error, code, ...details } = json;
      throw new SvcError(
        isErrorCode(code) ? code : response.status >= 500 ? "backend_unavailable" : "bad_request",
        typeof error === "string" ? error : `The relayer answered ${response.status}`,
        { details: details as Record<string, string | number | boolean> },
      );
    }
  }

  health(): Promise<{
    status: string;
    mode: string;
    backends: Record<string, string>;
    sidecar: "up" | "down";
    [field: string]: unknown;
  }> {
    return this.request("GET", "/health");
  }

  remember(text: string, options: { namespace?: string } = {}) {
    return this.request<{ job_id: string; status: string }>("POST", "/api/remember", {
      text,
      namespace: options.namespace,
    });
  }

  rememberBulk(items: { text: string; namespace?: string }[]) {
    return this.request<{ job_ids: string[]; total: number; status: string }>(
      "POST",
      "/api/remember/bulk",
      { items },
    );
  }

  job(jobId: string): Promise<PublicJob> {
    return this.request("GET", `/api/remember/${encodeURIComponent(jobId)}`);
  }

  jobs(jobIds: string[]) {
    return this.request<{ results: (PublicJob | { job_id: string; status: "not_found" })[] }>(
      "POST",
      "/api/remember/bulk/status",
      { job_ids: jobIds },
    );
  }

  /** Polls a job until it is done or failed; throws when `timeoutMs` passes first. */
  async waitForJob(
    jobId: string,
    options: { timeoutMs?: number; intervalMs?: number } = {},
  ): Promise<PublicJob> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    for (let delay = options.intervalMs ?? 50;; delay = Math.min(delay * 2, 1000)) {
      const job = await this.job(jobId);
      if (job.status === "done" || job.status === "failed") return job;
      if (Date.now() + delay > deadline) {
        throw new SvcError("backend_unavailable", `Job ${jobId} is still ${job.status}`);
      }
      await sleep(delay);
    }
  }

  recall(query: string, options: { limit?: number; namespace?: string } = {}) {
    return this.request<{ results: RecallResult[]; total: number }>("POST", "/api/recall", {
      query,
      ...options,
    });
  }

  rememberManual(
    encryptedData: Uint8Array<ArrayBuffer>,
    vector: number[],
    options: { namespace?: string } = {},
  ) {
    return this.request<{ id: string; blob_id: string; owner: string; namespace: string }>(
      "POST",
      "/api/remember/manual",
      { encrypted_data: encryptedData.toBase64(), vector, ...options },
    );
  }

  recallManual(vector: number[], options: { limit?: number; namespace?: string } = {}) {
    return this.request<{ results: ManualHit[]; total: number }>("POST", "/api/recall/manual", {
      vector,
      ...options,
    });
  }

  analyze(text: string, options: { namespace?: string } = {}) {
    return this.request<{
      job_ids: string[];
      facts: { text: string; job_id?: string; status?: string }[];
      fact_count: number;
      status: string;
      owner: string;
    }>("POST", "/api/analyze", { text, ...options });
  }

  ask(question: string, options: { limit?: number; namespace?: string } = {}) {
    return this.request<{ answer: string; memories_used: number; memories: RecallResult[] }>(
      "POST",
      "/api/ask",
      { question, ...options },
    );
  }

  /** The caller's identity as the relayer resolves it; fails with 401 for an unknown key. */
  whoami() {
    return this.request<{ owner: string; account_id: string; public_key: string }>(
      "GET",
      "/api/whoami",
    );
  }

  restore(namespace: string, options: { limit?: number } = {}): Promise<RestoreSummary> {
    return this.request("POST", "/api/restore", { namespace, ...options });
  }
}
