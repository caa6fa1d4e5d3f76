/**
 * A reindex's progress in Deno KV (`jobs.kv`):
 *
 * ```
 * ["reindex", "plan"]               { from, to, model, dimensions, startedAt }
 * ["reindex", "cursor", partition]  { after, copied, skipped, done }: one per namespace
 * ```
 */
import {
  type PartitionCursor,
  type PartitionNamer,
  partitionNamer,
  type ReindexPlan,
  type ReindexStateStore,
} from "@svc/relayer/kit";

const PLAN: Deno.KvKey = ["reindex", "plan"];
const CURSORS: Deno.KvKey = ["reindex", "cursor"];

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
