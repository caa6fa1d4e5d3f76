/**
 * What a reindex keeps so that it resumes after a crash, in the relayer's Deno KV (`jobs.kv`,
 * the database of work under way):
 *
 * ```
 * ["reindex", "plan"]               { from, to, model, dimensions, startedAt }
 * ["reindex", "cursor", partition]  { after, copied, skipped, done }: one per namespace
 * ```
 *
 * A namespace is filed under a keyed hash of its owner and name (HMAC-SHA-256 under a key
 * derived from the relayer's secret), so the database names none. Its cursor is the last memory
 * id (in id order) written to the new index.
 */
import { deriveHmacKey, hkdfMaster } from "@svc/util/sealing";

/** The reindex under way: from which index to which, for which embedder. */
export interface ReindexPlan {
  /** The index being replaced (active when the reindex began). */
  from: string;
  /** The index being built. */
  to: string;
  /** The embedder it is built with. */
  model: string;
  /** The vector size of that embedder. */
  dimensions: number;
  /** Unix milliseconds. */
  startedAt: number;
}

/** How far a namespace got. */
export interface PartitionCursor {
  /** The last memory id done, in id order ("" before the first). */
  after: string;
  /** Memories written to the new index. */
  copied: number;
  /** Memories not written: left out (unreadable, a client's vector of another size) or erased. */
  skipped: number;
  /** Every memory of the namespace is done. */
  done: boolean;
}

/**
 * Where a reindex keeps its progress: {@linkcode ReindexState} in the relayer's Deno KV, or a
 * store's own (the PostgreSQL plugin keeps it in the database the relayers share). Namespaces
 * are filed under keyed hashes, never by name.
 */
export interface ReindexStateStore {
  /** The reindex under way, or `null`. */
  plan(): Promise<ReindexPlan | null>;
  /** Starts a reindex: records `plan`, with no namespace done yet. */
  begin(plan: ReindexPlan): Promise<void>;
  /** A namespace's progress, or `null` before its first memory. */
  cursor(owner: string, namespace: string): Promise<PartitionCursor | null>;
  /** Records a namespace's progress. */
  setCursor(owner: string, namespace: string, cursor: PartitionCursor): Promise<void>;
  /** Forgets the reindex: its plan and every cursor. */
  clear(): Promise<void>;
}

const PLAN: Deno.KvKey = ["reindex", "plan"];
const CURSORS: Deno.KvKey = ["reindex", "cursor"];

/** Names a namespace by a keyed hash of its owner and name (22 base64url characters). */
export type PartitionNamer = (owner: string, namespace: string) => Promise<string>;

/**
 * The names a reindex files its namespaces under, whichever store keeps them: HMAC-SHA-256 of
 * the owner and namespace under a key derived from `secret`.
 */
export async function partitionNamer(secret: Uint8Array<ArrayBuffer>): Promise<PartitionNamer> {
  const naming = await deriveHmacKey(await hkdfMaster(secret), "svc-reindex-v1", "partition names");
  return async (owner, namespace) => {
    const mac = await crypto.subtle.sign(
      "HMAC",
      naming,
      new TextEncoder().encode(JSON.stringify([owner, namespace])),
    );
    return new Uint8Array(mac).toBase64({ alphabet: "base64url", omitPadding: true }).slice(0, 22);
  };
}

/** The persisted progress of a reindex; see the module documentation. */
export class ReindexState implements ReindexStateStore {
  #kv: Deno.Kv;
  #name: PartitionNamer;

  private constructor(kv: Deno.Kv, name: PartitionNamer) {
    this.#kv = kv;
    this.#name = name;
  }

  /** The state kept in `kv`, its namespaces named under keys derived from `secret`. */
  static async open(kv: Deno.Kv, secret: Uint8Array<ArrayBuffer>): Promise<ReindexState> {
    return new ReindexState(kv, await partitionNamer(secret));
  }

  async #key(owner: string, namespace: string): Promise<Deno.KvKey> {
    return [...CURSORS, await this.#name(owner, namespace)];
  }

  /** The reindex under way, or `null`. */
  async plan(): Promise<ReindexPlan | null> {
    return (await this.#kv.get<ReindexPlan>(PLAN)).value;
  }

  /** Starts a reindex: records `plan`, with no namespace done yet. */
  async begin(plan: ReindexPlan): Promise<void> {
    await this.clear();
    await this.#kv.set(PLAN, plan);
  }

  /** A namespace's progress, or `null` before its first memory. */
  async cursor(owner: string, namespace: string): Promise<PartitionCursor | null> {
    return (await this.#kv.get<PartitionCursor>(await this.#key(owner, namespace))).value;
  }

  /** Records a namespace's progress. */
  async setCursor(owner: string, namespace: string, cursor: PartitionCursor): Promise<void> {
    await this.#kv.set(await this.#key(owner, namespace), cursor);
  }

  /** Forgets the reindex: its plan and every cursor. */
  async clear(): Promise<void> {
    let op = this.#kv.atomic();
    let n = 0;
    for await (const entry of this.#kv.list({ prefix: CURSORS })) {
      op.delete(entry.key);
      if (++n % 500 === 0) {
        await op.commit();
        op = this.#kv.atomic();
      }
    }
    op.delete(PLAN);
    await op.commit();
  }
}
