/**
 * How a write becomes one atomic change of the stored blocks. Every row lives in exactly one
 * block; a change removes the blocks holding rows it replaces or deletes, and writes their
 * surviving rows back, with the new rows, packed into new blocks of up to `BLOCK_BYTES`. Small
 * blocks (single upserts make them) are merged into full ones once a namespace has more than
 * `MAX_SMALL_BLOCKS`, so a cold load reads few values. The namespaces' in-memory rows change
 * only once the commit succeeded (`apply`).
 */
import { type BlockRow, decodeBlock, encodeBlock, rowBytes } from "./block.ts";
import type { IndexKeys, NamespaceRef } from "./keys.ts";
import type { Resident } from "./resident.ts";
import type { IndexChange, StoredBlock } from "./storage.ts";

/** Target plaintext size of a block (its sealed bytes fit one Deno KV value). */
const BLOCK_BYTES = 60_000;
/** Blocks under half the target count as small. */
const SMALL_BYTES = BLOCK_BYTES / 2;
export const MAX_SMALL_BLOCKS = 16;
/** Bounds of one change, so its commit stays within the storage's limits. */
const MAX_ITEMS = 128;
const MAX_NAMESPACES = 32;
const MAX_REWRITTEN_BLOCKS = 8;

/** A row to add, with where it goes. */
export interface NewRow {
  ref: NamespaceRef;
  /** The owner and namespace, to seal into a new namespace's header. */
  owner: string;
  namespace: string;
  row: BlockRow;
}

/** One id a write touches: a row to add, or (without `add`) an id to delete. */
export interface WriteItem {
  id: string;
  add?: NewRow;
}

/** A planned change and what to do to the namespaces in memory once it is committed. */
export interface PlannedChange {
  change: IndexChange;
  apply(version: string): void;
}

/**
 * How many of `items` go into the next change: at most `MAX_ITEMS`, touching at most
 * `MAX_NAMESPACES` namespaces and rewriting at most `MAX_REWRITTEN_BLOCKS` blocks (one at least).
 */
export function chunkLength(
  items: WriteItem[],
  located: Map<string, NamespaceRef>,
  residents: Map<string, Resident>,
): number {
  const namespaces = new Set<string>();
  const blocks = new Set<string>();
  let n = 0;
  for (const item of items) {
    if (n === MAX_ITEMS) break;
    const from = located.get(item.id);
    const block = from && residents.get(from.ns)?.blockOf(item.id);
    const newNamespaces = [from?.ns, item.add?.ref.ns].filter((ns) =>
      ns !== undefined && !namespaces.has(ns)
    ) as string[];
    const newBlock = block !== undefined && !blocks.has(block);
    if (
      n > 0 && (namespaces.size + newNamespaces.length > MAX_NAMESPACES ||
        (newBlock && blocks.size >= MAX_REWRITTEN_BLOCKS))
    ) break;
    for (const ns of newNamespaces) namespaces.add(ns);
    if (block !== undefined) blocks.add(block);
    n++;
  }
  return n;
}

/** Packs rows, in order, into blocks of at most `BLOCK_BYTES` (a larger row has its own). */
function pack(rows: BlockRow[], dimensions: number): BlockRow[][] {
  const out: BlockRow[][] = [];
  let current: BlockRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const size = rowBytes(dimensions, row.id, row.blobId, row.terms, row.info);
    if (current.length > 0 && bytes + size > BLOCK_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length) out.push(current);
  return out;
}

/**
 * Plans the change that writes `items` (rows to add, ids to delete); `located` says where
 * their ids are now and `residents` holds every namespace involved, loaded.
 */
export async function planChange(
  keys: IndexKeys,
  dimensions: number,
  items: WriteItem[],
  located: Map<string, NamespaceRef>,
  residents: Map<string, Resident>,
): Promise<PlannedChange> {
  const change: IndexChange = {
    expect: [],
    headers: [],
    putBlocks: [],
    deleteBlocks: [],
    putIds: [],
    deleteIds: [],
  };
  const touched = new Map<string, { ref: NamespaceRef; delta: number; fresh: NewRow[] }>();
  const touch = (ref: NamespaceRef) => {
    let entry = touched.get(ref.ns);
    if (!entry) touched.set(ref.ns, entry = { ref, delta: 0, fresh: [] });
    return entry;
  };
  const rewritten = new Map<string, Set<string>>();
  const removed = new Set<string>();
  for (const { id, add } of items) {
    const from = located.get(id);
    if (from) {
      removed.add(id);
      const entry = touch(from);
      if (residents.get(from.ns)?.has(id)) entry.delta--;
      const block = residents.get(from.ns)?.blockOf(id);
      if (block !== undefined) {
        let set = rewritten.get(from.ns);
        if (!set) rewritten.set(from.ns, set = new Set());
        set.add(block);
      }
    }
    if (add) {
      const entry = touch(add.ref);
      entry.delta++;
      entry.fresh.push(add);
      if (from?.ns !== add.ref.ns) change.putIds.push({ id, ref: add.ref });
    } else if (from) {
      change.deleteIds.push(id);
    }
  }
  type Written = { id: string; plain: Uint8Array<ArrayBuffer>; sealed: number };
  const written = new Map<string, Written[]>();
  const names = new Map<string, Uint8Array<ArrayBuffer>>();
  for (const { ref, delta, fresh } of touched.values()) {
    const resident = residents.get(ref.ns)!;
    const blocks = rewritten.get(ref.ns) ?? new Set<string>();
    // Merge the small blocks once there are too many.
    const small = [...resident.blocks].filter(([id, b]) =>
      !blocks.has(id) && b.plainBytes < SMALL_BYTES
    );
    if (fresh.length > 0 && small.length >= MAX_SMALL_BLOCKS) {
      for (const [id] of small) blocks.add(id);
    }
    const rows: BlockRow[] = [];
    for (const id of blocks) {
      change.deleteBlocks.push({ ns: ref.ns, id, size: resident.blocks.get(id)!.sealedBytes });
    }
    for (const kept of resident.idsIn(blocks)) {
      if (!removed.has(kept)) rows.push(resident.row(kept)!);
    }
    rows.push(...fresh.map((f) => f.row));
    const out: Written[] = [];
    for (const group of pack(rows, dimensions)) {
      const id = crypto.getRandomValues(new Uint8Array(8)).toHex(); // a random block id
      const plain = encodeBlock(group, dimensions);
      const bytes = await keys.sealBlock(ref, id, plain);
      const block: StoredBlock = { id, bytes };
      change.putBlocks.push({ ns: ref.ns, block });
      out.push({ id, plain, sealed: bytes.length });
    }
    written.set(ref.ns, out);
    let name = resident.sealedName;
    if (!name) {
      const { owner, namespace } = fresh[0];
      const plain = new TextEncoder().encode(JSON.stringify([owner, namespace]));
      name = await keys.seal(ref, "name", plain);
    }
    names.set(ref.ns, name);
    change.expect.push({ ref, version: resident.version });
    change.headers.push({ ref, header: { name, count: resident.count + delta } });
    rewritten.set(ref.ns, blocks);
  }
  return {
    change,
    apply(version: string) {
      for (const { ref, delta } of touched.values()) {
        const resident = residents.get(ref.ns)!;
        const count = resident.count + delta;
        resident.dropBlocks(rewritten.get(ref.ns)!);
        for (const id of removed) if (located.get(id)?.ns === ref.ns) resident.remove(id);
        for (const { id, plain, sealed } of written.get(ref.ns)!) {
          resident.addBlock(id, sealed, decodeBlock(plain.buffer, dimensions));
        }
        resident.sealedName = names.get(ref.ns)!;
        resident.version = count > 0 ? version : null;
      }
    },
  };
}
