/**
 * How memories land: what a batch checks before storing them (`vet`), once they are indexed
 * (`indexed`) and once their jobs failed for good (`failed`: a memory indexed is withdrawn). An
 * update claims the memory it replaces before it is stored, and erases it once indexed; a memory
 * erased meanwhile, or of a namespace made operator-blind meanwhile, is refused, or erased as it
 * lands; a memory's expiry is scheduled once it is indexed.
 */
import type { MemoryAttributes } from "../pipeline/attributes.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import type { Eraser } from "../services/eraser.ts";
import type { LifecycleRecordStore } from "../services/lifecycle_records.ts";
import type { UpdateClaims } from "../services/update_claims.ts";

/** A memory a job stores, as the landing hears of it. */
export interface IndexedMemory {
  memoryId: string;
  owner: string;
  namespace: string;
  attributes: MemoryAttributes;
}

export interface LandingDependencies {
  lexicon: LexicalIndex;
  /** The erases, and the expiries scheduled for memories once indexed. */
  records: LifecycleRecordStore;
  /** Which update holds each memory being replaced (see `vet`). */
  updating: UpdateClaims;
  eraser: Pick<Eraser, "eraseAsked" | "eraseEntries" | "withdraw">;
  /** Those of an owner's namespaces that are operator-blind (`BlindLog.blindAmong`). */
  blindAmong?: (owner: string, namespaces: string[]) => Promise<string[]>;
  /** Unix milliseconds. */
  now: () => number;
}

/** Why a memory of `namespace`, made operator-blind since its job was accepted, is not stored. */
function becameBlind(memoryId: string, namespace: string): string {
  return `Cannot store memory ${memoryId}: namespace ${JSON.stringify(namespace)} became ` +
    "operator-blind. Remember it through a client that reads it on your machine";
}

/** How memories land (see the module documentation). */
export class MemoryLanding {
  readonly #deps: LandingDependencies;

  constructor(deps: LandingDependencies) {
    this.#deps = deps;
  }

  /**
   * What a batch asks before storing memories: why each may not be stored, or
   * `undefined`. An update is refused once the memory it replaces was erased, or updated by
   * another; a job resumed after a crash whose memory is indexed already goes on. Each update
   * claims the memory it replaces before the erases are read: an erase is recorded before it
   * revokes the claims, so of an update and an erase one hears of the other.
   */
  async vet(memories: IndexedMemory[]): Promise<(string | undefined)[]> {
    const { lexicon, records, updating, now } = this.#deps;
    const claimed = await Promise.all(
      memories.map(({ memoryId, attributes: { replaces } }) =>
        replaces === undefined || updating.claim(replaces, memoryId, now())
      ),
    );
    const erased = new Set<string>();
    const blind = new Set<string>();
    for (const [owner, mine] of Map.groupBy(memories, (memory) => memory.owner)) {
      // The memories an update replaces too: erased by another relayer's update, they are
      // recorded before this relayer's view of the namespace hears of it.
      const ids = mine.flatMap(({ memoryId, attributes: { replaces } }) =>
        replaces === undefined ? [memoryId] : [memoryId, replaces]
      );
      for (const id of await records.erased(owner, ids)) erased.add(id);
      // Made operator-blind since the job was accepted: the relayer takes no text of it now.
      for (const namespace of await this.#blindAmong(owner, mine)) {
        blind.add(`${owner}\0${namespace}`);
      }
    }
    const refusal = async (
      { memoryId, owner, namespace, attributes: { replaces } }: IndexedMemory,
      claimed: boolean,
    ) => {
      const index = await lexicon.namespace(owner, namespace);
      if (index.entry(memoryId)) return undefined;
      if (erased.has(memoryId)) return `Cannot store memory ${memoryId}: it was erased`;
      if (blind.has(`${owner}\0${namespace}`)) return becameBlind(memoryId, namespace);
      if (replaces === undefined) return undefined;
      return !claimed || erased.has(replaces) || index.replacedBy(replaces) !== undefined ||
          !index.entry(replaces)
        ? `Cannot update memory ${replaces}: it was erased or updated meanwhile`
        : undefined;
    };
    return await Promise.all(memories.map(async (memory, i) => {
      const refused = await refusal(memory, claimed[i]);
      const { memoryId, attributes: { replaces } } = memory;
      if (refused && claimed[i] && replaces !== undefined) {
        await updating.release(replaces, memoryId);
      }
      return refused;
    }));
  }

  /** Which of the namespaces of `memories` (all `owner`'s) are operator-blind. */
  async #blindAmong(owner: string, memories: IndexedMemory[]): Promise<string[]> {
    const namespaces = [...new Set(memories.map(({ namespace }) => namespace))];
    return await this.#deps.blindAmong?.(owner, namespaces) ?? [];
  }

  /**
   * Hears of memories whose jobs failed for good: one indexed but not landed (the erase of the
   * version its update replaces failed each time) is withdrawn, so the version it replaces is
   * shown again as it was; then the memories their updates claimed are free. One whose update
   * erased the version it replaced already stays: withdrawing it would leave neither.
   */
  async failed(memories: IndexedMemory[]): Promise<void> {
    const { lexicon, records, updating, eraser } = this.#deps;
    for (const { memoryId, owner, namespace, attributes: { replaces } } of memories) {
      const entry = (await lexicon.namespace(owner, namespace)).entry(memoryId);
      const landed = replaces !== undefined &&
        (await records.erased(owner, [replaces])).size > 0;
      if (entry && !landed) await eraser.withdraw(owner, namespace, [entry]);
      if (replaces !== undefined) await updating.release(replaces, memoryId);
    }
  }

  /**
   * What a batch calls once memories are indexed: their expiries are scheduled and the
   * memories they replace erased. An update whose claim an erase of its memory revoked is
   * erased instead (and refused), and one resumed after it erased its memory stays. A memory
   * recorded erased while it was stored (its namespace erased) is erased: resolves to why each
   * memory did not stay, or `undefined`.
   */
  async indexed(memories: IndexedMemory[]): Promise<(string | undefined)[]> {
    const { lexicon, records, updating, eraser, now } = this.#deps;
    const why = new Map<string, string>();
    // Recorded erased while it was being stored (its namespace erased), or its namespace made
    // operator-blind meanwhile: erased as it lands.
    for (const [owner, mine] of Map.groupBy(memories, (memory) => memory.owner)) {
      const erased = await records.erased(owner, mine.map(({ memoryId }) => memoryId));
      for (const { memoryId } of mine.filter((m) => erased.has(m.memoryId))) {
        why.set(memoryId, `Cannot store memory ${memoryId}: it was erased`);
      }
      const blind = new Set(await this.#blindAmong(owner, mine));
      for (const { memoryId, namespace } of mine.filter((m) => blind.has(m.namespace))) {
        why.set(memoryId, becameBlind(memoryId, namespace));
      }
      for (const { memoryId, namespace } of mine.filter((m) => why.has(m.memoryId))) {
        const entry = (await lexicon.namespace(owner, namespace)).entry(memoryId);
        if (entry) await eraser.eraseAsked(owner, namespace, [entry], {});
      }
    }
    const landed = memories.filter(({ memoryId }) => !why.has(memoryId));
    await records.schedule(
      landed.flatMap(({ memoryId, owner, namespace, attributes }) =>
        attributes.expiresAt === undefined
          ? []
          : [{ memoryId, owner, namespace, expiresAt: attributes.expiresAt }]
      ),
    );
    for (const { memoryId, owner, namespace, attributes: { replaces } } of landed) {
      if (replaces === undefined) continue;
      const index = await lexicon.namespace(owner, namespace);
      const ours = await updating.holds(replaces, memoryId, now());
      if (!ours && (await records.erased(owner, [replaces])).size > 0) {
        const fresh = index.entry(memoryId);
        if (fresh) await eraser.eraseEntries(owner, namespace, [fresh]);
        why.set(memoryId, `Cannot update memory ${replaces}: it was erased meanwhile`);
      } else {
        const entry = index.entry(replaces);
        if (entry) await eraser.eraseEntries(owner, namespace, [entry]);
      }
      // Only once the replaced memory is recorded erased: another update vetted meanwhile is
      // refused by the claim, and one vetted after by the record.
      await updating.release(replaces, memoryId);
    }
    return memories.map(({ memoryId }) => why.get(memoryId));
  }
}
