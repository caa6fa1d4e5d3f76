/**
 * The shapes of what the relayer's HTTP API answers, and of the client's options, as the
 * client types them.
 *
 * @module
 */
import type { Operation } from "../backends/types.ts";
import type { JobStatus, PublicJob } from "../jobs/job_queue.ts";
import type { RememberedBy } from "../pipeline/attributes.ts";
import type { UnknownJob } from "../services/memories.ts";
import type { Memory } from "../services/memory_view.ts";

/** What a delegate key may be allowed to do: read, write, erase, or read the access log. */
export type { Operation };
export type { RememberedBy };
export type { Memory, MemoryPage } from "../services/memory_view.ts";
export type { NamespaceCount } from "../backends/types.ts";

/** An operator-blind namespace, as `blindNamespaces` lists it. */
export interface BlindNamespaceCount {
  /** Its name. */
  namespace: string;
  /** The memories its log holds. */
  count: number;
  /** When it was made operator-blind (ISO 8601). */
  created_at: string;
  /** Its erase was cut short: it refuses everything until erased again (`svc blind erase`). */
  erasing?: true;
}
export type { EraseReceipt } from "../services/receipts.ts";
export type { NamespaceErase as NamespaceErasure } from "../services/lifecycle.ts";

/** What `GET /health` answers. */
export interface Health {
  /** `"ok"`, or `"stopping"` while the relayer drains before it stops (still serving). */
  status: string;
  /** This build's version. */
  version: string;
  /** The version of the HTTP API. */
  apiVersion: string;
  /** How the relayer runs: `"embedded"` (the default) or `"network"` (on Sui). */
  mode: string;
  /** The package id of the ledger: the local ledger's, or the Sui Move package. */
  packageId: string;
  /**
   * The implementation behind each interface: `chain`, `cipher`, `blobStore`, `vectorStore`,
   * `embedder` (its model) and `llm` (`"none"` without one).
   */
  backends: Record<string, string>;
  /** Whether the MCP sidecar is running. */
  sidecar: "up" | "down";
  /** Open MCP sessions, as the sidecar last reported them. */
  mcpSessions: number;
  /** The relayer's Ed25519 public key (64 hex) that signs erase receipts (`verifyReceipt`). */
  receiptKey: string;
  /** Whether the relayer keeps operator-blind namespaces (`BlindMemory`). */
  operatorBlind?: boolean;
  /** Fields a newer relayer may add. */
  [field: string]: unknown;
}

/** What `remember` answers: the job that remembers the text. */
export interface RememberAccepted {
  /** The remember job; `job` and `waitForJob` follow it. */
  job_id: string;
  /** The job's status when accepted: `pending`. */
  status: JobStatus;
  /** With `replaces`: the memory the new version replaces once it is recallable. */
  supersedes?: string;
}

/**
 * What `remember` answers: a job, or, for a text the namespace already holds (the same after
 * normalising case and white space), the memory holding it (`status: "duplicate"`).
 */
export type RememberAnswer = RememberAccepted | RememberDuplicate;

/** The recall options beyond the query. */
export interface RecallOptions {
  /** How many memories at most, 1..100 (10 unless given). */
  limit?: number;
  /** The namespace (`"default"` without one). */
  namespace?: string;
  /** Only memories carrying every one of these tags. */
  tags?: string[];
  /** Only memories created at or after this time. */
  since?: Date | string;
  /** Only memories created before this time. */
  until?: Date | string;
  /**
   * Leave out memories whose score is below this, in [0, 1] (the relayer's default, 0.2,
   * unless given; 0 keeps every match).
   */
  minScore?: number;
  /** Give each result the parts of its score (`explain`). */
  explain?: boolean;
}

/**
 * What `rememberBulk` answers: one remember job per item, but for the items whose text the
 * namespace already holds (`duplicates`).
 */
export interface BulkRememberAccepted {
  /**
   * `job_ids[i]` is `items[i]`'s remember job; for a duplicate (listed in `duplicates`), the
   * memory holding its text: nothing to wait for.
   */
  job_ids: string[];
  /** How many items were taken (`job_ids.length`). */
  total: number;
  /** Always `"pending"`. */
  status: "pending";
  /** The items whose text the namespace already holds: nothing was stored for them. */
  duplicates?: { index: number; duplicate_of: string }[];
}

/** An item of `rememberBulk`: a text, and the options of remember but `replaces`. */
export interface BulkItem extends Omit<RememberOptions, "replaces"> {
  /** The text to remember. */
  text: string;
}

/** What `jobs` answers. */
export interface JobStatuses {
  /** The jobs in the order asked; an `UnknownJob` for an id that names none of the caller's. */
  results: (PublicJob | UnknownJob)[];
}

/** The caller as the relayer resolves its signing key. */
export interface CallerIdentity {
  /** The address of the account's owner. */
  owner: string;
  /** The account the key belongs to. */
  account_id: string;
  /** The signing public key (64 hex characters). */
  public_key: string;
  /** The signing key's address. */
  address: string;
  /** The key's label (`"owner"` for the owner's own key). */
  label: string;
  /** What the key may do: its namespaces and operations, `null` for all. */
  scope: { namespaces: string[] | null; operations: Operation[] | null };
  /** When the key stops working (ISO 8601 UTC); `null`: never. */
  expires_at: string | null;
}

/** What narrows a list: the namespace, tags and times of recall, and the page. */
export interface ListOptions extends Pick<RecallOptions, "namespace" | "tags" | "since" | "until"> {
  /** The page size, 1..500 (50 unless given). */
  limit?: number;
  /** The `next_cursor` of the previous page. */
  cursor?: string;
}

/**
 * A new version of a memory: its text, and what changes besides (the expiry as remember sets
 * it, counted from now); the old version's tags and expiry are kept unless given.
 */
export interface UpdateOptions extends Pick<RememberOptions, "ttlSeconds"> {
  /** When the new version expires; `null`: never; absent (and no `ttlSeconds`): as the old one. */
  expiresAt?: Date | string | null;
  /** The new text. */
  text: string;
  /** The new version's tags. */
  tags?: string[];
}

/** What `update` answers: the job storing the new version. */
export interface UpdateAccepted {
  /** The job storing the new version; `waitForJob` follows it. */
  job_id: string;
  /** `"pending"` when accepted. */
  status: "pending";
  /** The memory the new version replaces once it is recallable. */
  supersedes: string;
}

/** What remember answers for a text the namespace already holds: nothing new is stored. */
export interface RememberDuplicate {
  /** Always `"duplicate"`. */
  status: "duplicate";
  /** The memory already holding the text. */
  duplicate_of: string;
  /**
   * The same id, as a bulk's `job_ids` name a duplicate item: the job that stored that memory,
   * whose record may be gone (job records are kept 7 days). There is nothing to wait for.
   */
  job_id: string;
  /** That memory; absent for a key that may not read (`write` without `read`). */
  memory?: Memory;
}

/** The options of remember beyond its text. */
export interface RememberOptions {
  /** The namespace (`"default"` without one). */
  namespace?: string;
  /** Up to 16 tags of 1 to 64 characters. */
  tags?: string[];
  /**
   * The conversation or session the text belongs to (1 to 128 characters): recall ranks a
   * memory together with the memories remembered next to it in the same thread. Leave it out
   * for independent facts.
   */
  thread?: string;
  /** Expire the memory this many seconds after it is accepted. */
  ttlSeconds?: number;
  /** Expire the memory at this time (instead of `ttlSeconds`). */
  expiresAt?: Date | string;
  /** Store the text as a new version of this memory, which is erased once it is recallable. */
  replaces?: string;
}
