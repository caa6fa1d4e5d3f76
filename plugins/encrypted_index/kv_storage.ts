/**
 * The encrypted index's storage in a Deno KV database (SQLite: crash-safe atomic commits).
 *
 * ```
 * ["meta"]                          the index's record of itself
 * ["note", name]                    small clear notes
 * ["ns", ownerHash, nsHash]         { name: sealed, count }: one per namespace
 * ["b", nsHash, blockId, parts, p]  part p of a sealed block (values are at most 64 KiB)
 * ["id", memoryId]                  [ownerHash, nsHash]: where a memory is
 * ```
 *
 * A commit is one `kv.atomic()`. Deno KV bounds an atomic commit (1000 mutations, 800 KiB), so
 * when the new blocks of a change do not fit, some of their parts are written first by
 * commits of their own ("staged"), and the final commit writes the rest with everything else.
 * Each staged commit also sets a pending marker for every block it writes parts of:
 *
 * ```
 * ["b", nsHash, blockId, parts]     { version }: the block belongs to a change not yet committed,
 *                                   planned against the namespace at `version`
 * ["swept", nsHash]                 changes (its versionstamp) whenever pending blocks are removed
 * ```
 *
 * The final commit deletes the markers, so a block is read only when all its parts are there
 * and it has no marker: the blocks of a change whose final commit never landed (it failed,
 * threw, or the process died) are never read. A marker sorts just before its block's parts,
 * so one listing sees it before them. Such leftovers are removed ("swept") once they cannot
 * commit any more: when a namespace is loaded, those planned against an older version of it;
 * after a commit to a namespace, those its last load saw (that commit moved the version on).
 * Sweeping is safe against another writer on the same index: a sweep removes a block only if
 * its marker is unchanged (so never one whose change just committed), and it moves the
 * namespace's "swept" key on, which every final commit that staged parts checks, so a change
 * that lost staged parts fails and is planned again rather than committing incomplete blocks.
 */
import { nullIfMissing } from "@svc/util/files";
import { concatBytes } from "@svc/util/sealing";
import { retryWhileLocked } from "@svc/util/kv_locked";
import type {
  BlockStorage,
  IndexChange,
  IndexMeta,
  ListedBlock,
  NamespaceHeader,
  NamespaceRef,
  StoredHeader,
} from "./storage.ts";

/** The largest part of a block a value holds. */
export const PART_BYTES = 64_000;
const MAX_MUTATIONS = 900;
const MAX_BYTES = 700_000;
const MAX_KEY_BYTES = 70_000;
/** About the size of a marker's key. */
const MARKER_KEY_BYTES = 80;
/** Ids looked up per `getMany` (Deno KV's limit). */
const GET_MANY = 10;

type Mutation =
  | { type: "set"; key: Deno.KvKey; value: unknown; bytes: number }
  | { type: "delete"; key: Deno.KvKey };

function keyBytes(key: Deno.KvKey): number {
  let n = 0;
  for (const part of key) n += typeof part === "string" ? part.length * 3 + 2 : 10;
  return n;
}

/** The number of parts of a sealed block of `size` bytes. */
function partsOf(size: number): number {
  return Math.max(1, Math.ceil(size / PART_BYTES));
}

/** Commits of at most the budget's mutations and bytes. */
class Batch {
  mutations: Mutation[] = [];
  bytes = 0;
  keys = 0;

  /** Blocks this batch sets the marker of (`ns/id`). */
  marked = new Set<string>();
  /** Mutations (and their bytes) kept free for deleting markers. */
  reserved = 0;

  /** Whether `mutation` (and `also`, if given) fit. */
  fits(mutation: Mutation, also?: Mutation): boolean {
    const size = (m: Mutation) => keyBytes(m.key) + (m.type === "set" ? m.bytes : 0);
    const extra = also ? size(also) : 0, extraKeys = also ? keyBytes(also.key) : 0;
    const reservedBytes = this.reserved * MARKER_KEY_BYTES;
    return this.mutations.length + this.reserved + (also ? 1 : 0) < MAX_MUTATIONS &&
      this.bytes + reservedBytes + size(mutation) + extra <= MAX_BYTES &&
      this.keys + reservedBytes + keyBytes(mutation.key) + extraKeys <= MAX_KEY_BYTES;
  }

  add(mutation: Mutation): void {
    this.mutations.push(mutation);
    this.keys += keyBytes(mutation.key);
    this.bytes += keyBytes(mutation.key) + (mutation.type === "set" ? mutation.bytes : 0);
  }

  apply(op: Deno.AtomicOperation): Deno.AtomicOperation {
    for (const m of this.mutations) m.type === "set" ? op.set(m.key, m.value) : op.delete(m.key);
    return op;
  }
}

/** A pending marker's value. */
interface Marker {
  /** The namespace's version the change was planned against (`null`: a new namespace). */
  version: string | null;
}

/** An unfinished block: its marker, as listed. */
interface Pending {
  ns: string;
  id: string;
  parts: number;
  planned: string | null;
  /** The marker's versionstamp. */
  stamp: string;
}

/**
 * The encrypted index's storage in one Deno KV database file; see the module's documentation
 * for its layout and how a change larger than one atomic commit stays whole or absent.
 */
export class KvBlockStorage implements BlockStorage {
  #kv: Deno.Kv;
  /** Unfinished blocks that may belong to a change under way, by namespace. */
  #pending = new Map<string, Pending[]>();

  private constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /**
   * Opens (creating) the database file at `path`, readable by its owner only; `":memory:"`
   * keeps it in memory, with no file.
   */
  static async open(path: string): Promise<KvBlockStorage> {
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
    const kv = await Deno.openKv(path);
    // Private to the relayer's user (SQLite then creates its -wal and -shm files alike).
    if (path !== ":memory:" && Deno.build.os !== "windows") {
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        await nullIfMissing(Deno.chmod(file, 0o600));
      }
    }
    return new KvBlockStorage(kv);
  }

  async meta(): Promise<IndexMeta | null> {
    return (await this.#kv.get<IndexMeta>(["meta"])).value;
  }

  async setMeta(meta: IndexMeta): Promise<void> {
    await this.#kv.set(["meta"], meta);
  }

  async note(name: string): Promise<string | null> {
    return (await this.#kv.get<string>(["note", name])).value;
  }

  async setNote(name: string, value: string): Promise<void> {
    await this.#kv.set(["note", name], value);
  }

  async header(ref: NamespaceRef): Promise<StoredHeader | null> {
    const entry = await this.#kv.get<NamespaceHeader>(["ns", ref.owner, ref.ns]);
    return entry.value && { ref, header: entry.value, version: entry.versionstamp };
  }

  async headers(owner?: string): Promise<StoredHeader[]> {
    const out: StoredHeader[] = [];
    const prefix = owner === undefined ? ["ns"] : ["ns", owner];
    for await (const entry of this.#kv.list<NamespaceHeader>({ prefix })) {
      const [, ownerHash, ns] = entry.key as string[];
      out.push({ ref: { owner: ownerHash, ns }, header: entry.value, version: entry.versionstamp });
    }
    return out;
  }

  async *blocks(
    ref: NamespaceRef,
    version: string,
    held: ReadonlySet<string> = new Set(),
  ): AsyncGenerator<ListedBlock> {
    // A block's marker, if any, then its parts are listed one after the other.
    const pending: Pending[] = [];
    let id = "", parts = 0, unfinished = false, chunks: Uint8Array<ArrayBuffer>[] = [];
    // Blocks are up to 60 kB: a batch of 64 holds about 4 MB, where 500 held 30 MB at once.
    const entries = this.#kv.list<Uint8Array<ArrayBuffer> | Marker>({ prefix: ["b", ref.ns] }, {
      batchSize: 64,
    });
    for await (const entry of entries) {
      const [, , blockId, count, p] = entry.key as [string, string, string, number, number?];
      if (blockId !== id || count !== parts) {
        [id, parts, unfinished, chunks] = [blockId, count, false, []];
      }
      if (p === undefined) {
        const { version: planned } = entry.value as Marker;
        pending.push({ ns: ref.ns, id, parts, planned, stamp: entry.versionstamp });
        unfinished = true;
        continue;
      }
      if (unfinished || p !== chunks.length) continue; // not committed, or a part is missing
      chunks.push(entry.value as Uint8Array<ArrayBuffer>);
      if (chunks.length === parts) {
        const bytes = held.has(id) ? null : parts === 1 ? chunks[0] : concatBytes(...chunks);
        yield { id, bytes };
      }
    }
    // Those planned against an older version can no longer commit; the others may be a
    // change under way: kept, and swept after the next commit to the namespace.
    const stale = pending.filter((m) => m.planned === null || m.planned < version);
    this.#pending.set(ref.ns, pending.filter((m) => !stale.includes(m)));
    await this.#sweep(stale);
  }

  /** Removes unfinished blocks (best effort: what is left is swept another time). */
  async #sweep(pending: Pending[]): Promise<void> {
    for (const { ns, id, parts, stamp } of pending) {
      const marker = ["b", ns, id, parts];
      const op = this.#kv.atomic().check({ key: marker, versionstamp: stamp }).delete(marker);
      for (let p = 0; p < parts; p++) op.delete([...marker, p]);
      await op.set(["swept", ns], true).commit().catch(() => {});
    }
  }

  async locate(ids: string[]): Promise<Map<string, NamespaceRef>> {
    const chunks: string[][] = [];
    for (let i = 0; i < ids.length; i += GET_MANY) chunks.push(ids.slice(i, i + GET_MANY));
    const found = new Map<string, NamespaceRef>();
    await Promise.all(chunks.map(async (chunk) => {
      const entries = await this.#kv.getMany<[string, string][]>(chunk.map((id) => ["id", id]));
      for (const entry of entries) {
        if (entry.value) {
          found.set(entry.key[1] as string, { owner: entry.value[0], ns: entry.value[1] });
        }
      }
    }));
    return found;
  }

  /** Where every memory of the index is, by memory id (for copying the index elsewhere). */
  async *locations(): AsyncIterable<{ id: string; ref: NamespaceRef }> {
    for await (const entry of this.#kv.list<[string, string]>({ prefix: ["id"] })) {
      yield { id: entry.key[1] as string, ref: { owner: entry.value[0], ns: entry.value[1] } };
    }
  }

  async commit(change: IndexChange): Promise<string | null> {
    const final = new Batch();
    for (const { ref, header } of change.headers) {
      const key = ["ns", ref.owner, ref.ns];
      final.add(
        header.count > 0
          ? { type: "set", key, value: header, bytes: header.name.length + 32 }
          : { type: "delete", key },
      );
    }
    for (const { ns, id, size } of change.deleteBlocks) {
      const parts = partsOf(size);
      for (let p = 0; p < parts; p++) final.add({ type: "delete", key: ["b", ns, id, parts, p] });
    }
    for (const { id, ref } of change.putIds) {
      final.add({ type: "set", key: ["id", id], value: [ref.owner, ref.ns], bytes: 64 });
    }
    for (const id of change.deleteIds) final.add({ type: "delete", key: ["id", id] });
    final.reserved = change.putBlocks.length; // the final commit deletes the markers
    if (!final.fits({ type: "delete", key: [] })) {
      throw new Error("an index change is larger than one commit allows");
    }
    // Parts go into the final commit while they fit; the rest are written first, each staged
    // commit with the markers of the blocks it writes parts of (set again, deleted at last).
    const planned = new Map(change.expect.map(({ ref, version }) => [ref.ns, version]));
    const staged: Batch[] = [];
    const markers = new Map<string, Pending>();
    const stage = (ns: string, id: string, parts: number, part: Mutation) => {
      const name = `${ns}/${id}`, version = planned.get(ns) ?? null;
      const value: Marker = { version };
      const marker: Mutation = { type: "set", key: ["b", ns, id, parts], value, bytes: 40 };
      let batch = staged.at(-1);
      if (!batch?.fits(part, batch.marked.has(name) ? undefined : marker)) {
        staged.push(batch = new Batch());
      }
      if (!batch.marked.has(name)) {
        batch.add(marker);
        batch.marked.add(name);
        markers.set(name, { ns, id, parts, planned: version, stamp: "" });
      }
      batch.add(part);
    };
    for (const { ns, block } of change.putBlocks) {
      const parts = partsOf(block.bytes.length);
      for (let p = 0; p < parts; p++) {
        const value = block.bytes.subarray(p * PART_BYTES, (p + 1) * PART_BYTES);
        const part: Mutation = {
          type: "set",
          key: ["b", ns, block.id, parts, p],
          value,
          bytes: value.length + 16,
        };
        if (final.fits(part) && !markers.has(`${ns}/${block.id}`)) final.add(part);
        else stage(ns, block.id, parts, part);
      }
    }
    const op = this.#kv.atomic();
    for (const { ref, version } of change.expect) {
      op.check({ key: ["ns", ref.owner, ref.ns], versionstamp: version });
    }
    if (staged.length > 0) {
      // A sweep between now and the final commit (another writer's) makes it fail.
      const swept = [...new Set([...markers.values()].map((m) => m.ns))].map((ns) => ["swept", ns]);
      for (let i = 0; i < swept.length; i += GET_MANY) {
        for (const entry of await this.#kv.getMany(swept.slice(i, i + GET_MANY))) {
          op.check({ key: entry.key, versionstamp: entry.versionstamp });
        }
      }
    }
    try {
      for (const batch of staged) {
        const result = await retryWhileLocked(() => batch.apply(this.#kv.atomic()).commit());
        if (!result.ok) throw new Error("an unchecked index commit failed");
        for (const key of batch.marked) markers.get(key)!.stamp = result.versionstamp;
      }
    } catch (error) {
      this.#remember(markers);
      throw error;
    }
    for (const { ns, id, parts } of markers.values()) op.delete(["b", ns, id, parts]);
    let result: Deno.KvCommitResult | Deno.KvCommitError;
    try {
      const committing = final.apply(op);
      result = await retryWhileLocked(() => committing.commit());
    } catch (error) {
      // Whether it landed is unknown: its blocks are left to a sweep (which removes them
      // only if their markers are still there, that is if it did not land).
      this.#remember(markers);
      throw error;
    }
    if (!result.ok) {
      await this.#discard(staged, markers);
      return null;
    }
    // The namespaces moved on: unfinished blocks seen when they were loaded cannot commit.
    for (const { ref } of change.expect) {
      const pending = this.#pending.get(ref.ns);
      this.#pending.delete(ref.ns);
      if (pending) await this.#sweep(pending);
    }
    return result.versionstamp;
  }

  /** Keeps a change's unfinished blocks to sweep after the next commit to their namespace. */
  #remember(markers: Map<string, Pending>): void {
    for (const marker of markers.values()) {
      if (!marker.stamp) continue; // its staged commit did not happen
      const list = this.#pending.get(marker.ns) ?? [];
      list.push(marker);
      this.#pending.set(marker.ns, list);
    }
  }

  /**
   * Removes parts written for a change that did not commit (best effort), the markers last,
   * so that what an interruption leaves is still marked, and swept later.
   */
  async #discard(staged: Batch[], markers: Map<string, Pending>): Promise<void> {
    for (const batch of staged) {
      const op = this.#kv.atomic();
      for (const m of batch.mutations) if (m.key.length === 5) op.delete(m.key);
      await op.commit().catch(() => {});
    }
    const op = this.#kv.atomic();
    for (const { ns, id, parts } of markers.values()) op.delete(["b", ns, id, parts]);
    await op.commit().catch(() => {});
  }

  /** Closes the database. */
  close(): void {
    this.#kv.close();
  }
}
