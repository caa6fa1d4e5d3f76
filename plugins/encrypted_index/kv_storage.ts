/**
 * The encrypted index as earlier versions kept it, in a Deno KV database, read to move it into
 * SQLite (`index_file.ts`). Nothing writes this layout any more.
 *
 * ```
 * ["meta"]                          the index's record of itself
 * ["note", name]                    small clear notes
 * ["ns", ownerHash, nsHash]         { name: sealed, count }: one per namespace
 * ["b", nsHash, blockId, parts, p]  part p of a sealed block (values are at most 64 KiB)
 * ["b", nsHash, blockId, parts]     a marker: the block belongs to a change never committed
 * ["id", memoryId]                  [ownerHash, nsHash]: where a memory is
 * ```
 *
 * A block is read only when all its parts are there and it has no marker.
 */
import { concatBytes } from "@svc/util/sealing";
import type {
  IndexMeta,
  ListedBlock,
  NamespaceHeader,
  NamespaceRef,
  StoredHeader,
} from "./storage.ts";

/** An index in the Deno KV layout of earlier versions, opened to be read. */
export class KvIndexReader {
  #kv: Deno.Kv;

  private constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  /** Opens the database file at `path`. */
  static async open(path: string): Promise<KvIndexReader> {
    return new KvIndexReader(await Deno.openKv(path));
  }

  /** The index's record of itself. */
  async meta(): Promise<IndexMeta | null> {
    return (await this.#kv.get<IndexMeta>(["meta"])).value;
  }

  /** The clear note `name`. */
  async note(name: string): Promise<string | null> {
    return (await this.#kv.get<string>(["note", name])).value;
  }

  /** Every namespace's header. */
  async headers(): Promise<StoredHeader[]> {
    const out: StoredHeader[] = [];
    for await (const entry of this.#kv.list<NamespaceHeader>({ prefix: ["ns"] })) {
      const [, owner, ns] = entry.key as string[];
      out.push({ ref: { owner, ns }, header: entry.value, version: entry.versionstamp });
    }
    return out;
  }

  /** The namespace's committed blocks, each with its bytes. */
  async *blocks(ref: NamespaceRef): AsyncGenerator<ListedBlock> {
    // A block's marker, if any, then its parts are listed one after the other.
    let id = "", parts = 0, unfinished = false, chunks: Uint8Array<ArrayBuffer>[] = [];
    const entries = this.#kv.list<Uint8Array<ArrayBuffer>>({ prefix: ["b", ref.ns] }, {
      batchSize: 64,
    });
    for await (const entry of entries) {
      const [, , blockId, count, p] = entry.key as [string, string, string, number, number?];
      if (blockId !== id || count !== parts) {
        [id, parts, unfinished, chunks] = [blockId, count, false, []];
      }
      if (p === undefined) unfinished = true;
      if (unfinished || p !== chunks.length) continue; // not committed, or a part is missing
      chunks.push(entry.value);
      if (chunks.length === parts) {
        yield { id, bytes: parts === 1 ? chunks[0] : concatBytes(...chunks) };
      }
    }
  }

  /** Where every memory of the index is, by memory id. */
  async *locations(): AsyncIterable<{ id: string; ref: NamespaceRef }> {
    for await (const entry of this.#kv.list<[string, string]>({ prefix: ["id"] })) {
      yield { id: entry.key[1] as string, ref: { owner: entry.value[0], ns: entry.value[1] } };
    }
  }

  /** Closes the database. */
  close(): void {
    this.#kv.close();
  }
}
