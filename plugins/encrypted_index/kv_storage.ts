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
 * commits of their own, and the final commit writes the rest with everything else. A block is
 * read only when all its parts are there, so parts of a change that never committed are never
 * read (they stay as unreferenced garbage; this happens only when a crash or a conflict hits a
 * change whose blocks exceed the budget, that is memories of many thousand words).
 */
import type {
  BlockStorage,
  IndexChange,
  IndexMeta,
  NamespaceHeader,
  NamespaceRef,
  StoredBlock,
  StoredHeader,
} from "./storage.ts";

/** The largest part of a block a value holds. */
export const PART_BYTES = 64_000;
const MAX_MUTATIONS = 900;
const MAX_BYTES = 700_000;
const MAX_KEY_BYTES = 70_000;
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

  fits(mutation: Mutation): boolean {
    const size = keyBytes(mutation.key) + (mutation.type === "set" ? mutation.bytes : 0);
    return this.mutations.length < MAX_MUTATIONS && this.bytes + size <= MAX_BYTES &&
      this.keys + keyBytes(mutation.key) <= MAX_KEY_BYTES;
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

export class KvBlockStorage implements BlockStorage {
  #kv: Deno.Kv;

  private constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Opens (creating) the database file at `path`, readable by its owner only. */
  static async open(path: string): Promise<KvBlockStorage> {
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
    const kv = await Deno.openKv(path);
    // Private to the relayer's user (SQLite then creates its -wal and -shm files alike).
    if (Deno.build.os !== "windows") {
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        await Deno.chmod(file, 0o600).catch((error) => {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        });
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

  async *blocks(ns: string): AsyncGenerator<StoredBlock> {
    // A block's parts are listed one after the other (its id, then the part number).
    let id = "", parts = 0, chunks: Uint8Array<ArrayBuffer>[] = [];
    const entries = this.#kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["b", ns] }, {
      batchSize: 500,
    });
    for await (const entry of entries) {
      const [, , blockId, count, p] = entry.key as [string, string, string, number, number];
      if (blockId !== id || count !== parts) [id, parts, chunks] = [blockId, count, []];
      if (p !== chunks.length) continue; // a part is missing: an unfinished change's block
      chunks.push(entry.value);
      if (chunks.length === parts) yield { id, bytes: parts === 1 ? chunks[0] : concat(chunks) };
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
    if (final.mutations.length > MAX_MUTATIONS || final.bytes > MAX_BYTES) {
      throw new Error("an index change is larger than one commit allows");
    }
    // Parts go into the final commit while they fit; the rest are written first.
    const staged: Batch[] = [];
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
        if (final.fits(part)) {
          final.add(part);
          continue;
        }
        let batch = staged.at(-1);
        if (!batch?.fits(part)) staged.push(batch = new Batch());
        batch.add(part);
      }
    }
    for (const batch of staged) {
      const result = await batch.apply(this.#kv.atomic()).commit();
      if (!result.ok) throw new Error("an unchecked index commit failed");
    }
    const op = this.#kv.atomic();
    for (const { ref, version } of change.expect) {
      op.check({ key: ["ns", ref.owner, ref.ns], versionstamp: version });
    }
    const result = await final.apply(op).commit();
    if (result.ok) return result.versionstamp;
    await this.#discard(staged);
    return null;
  }

  /** Removes parts written for a change that did not commit (best effort). */
  async #discard(staged: Batch[]): Promise<void> {
    for (const batch of staged) {
      const op = this.#kv.atomic();
      for (const m of batch.mutations) op.delete(m.key);
      await op.commit().catch(() => {});
    }
  }

  close(): void {
    this.#kv.close();
  }
}

function concat(chunks: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}
