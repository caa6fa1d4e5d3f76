/**
 * How memories are erased, for the lifecycle service: their keys first (from then on nothing
 * decrypts them), then the texts read before, their blobs, their index rows and catalog entries,
 * and the record of the erase; a signed receipt per memory. An erase is all or nothing: before
 * its keys go, each memory is scheduled to expire a minute later, so that an erase cut short
 * after them (a crash, a store that failed) is finished by the expiry sweep; when the keys cannot
 * be erased, the schedule is taken back and nothing changed. Each step can be done again.
 */
import type {
  BlobEntry,
  BlobStore,
  Cipher,
  DecryptCredentials,
  VectorStore,
} from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { CatalogEntry } from "../ranking/lexical_index.ts";
import type { LexicalIndex } from "../ranking/lexicon.ts";
import { deleteErasedBlob } from "./erased_blobs.ts";
import type { Expiry, LifecycleRecordStore } from "./lifecycle_records.ts";

/** How soon the expiry sweep finishes an erase cut short after its keys were erased. */
const FINISH_WITHIN_MS = 60_000;
import { iso } from "./memory_view.ts";
import type { MemoryReader } from "./reader.ts";
import type { EraseReceipt, RelayerIdentity } from "./receipts.ts";
import type { UpdateClaims } from "./update_claims.ts";

export interface EraserDependencies {
  cipher: Cipher;
  blobs: BlobStore;
  vectors: VectorStore;
  lexicon: LexicalIndex;
  reader: MemoryReader;
  records: LifecycleRecordStore;
  /** Which update holds the memory it replaces: an erase revokes the claims on what it erases. */
  updating: UpdateClaims;
  /** Signs erase receipts. */
  identity: RelayerIdentity;
  logger: Logger;
  /** Unix milliseconds. */
  now: () => number;
}

/** Erase with or without a caller: without one (the expiry sweep, an update's old version). */
export interface EraseOptions {
  credentials?: DecryptCredentials;
}

/**
 * Destroys memories' keys. Without a caller's credentials (the sweep, an update's old
 * version), a cipher that needs them to erase (Seal without a server key) refuses: that is
 * logged, and the erase goes on without it.
 */
async function eraseKeys(
  { cipher, logger }: Pick<EraserDependencies, "cipher" | "logger">,
  owner: string,
  ids: string[],
  options: EraseOptions = {},
): Promise<void> {
  try {
    await cipher.erase(owner, ids, options);
  } catch (error) {
    if (options.credentials || !(error instanceof SvcError) || error.code !== "bad_request") {
      throw error;
    }
    // The cipher's own words ask for the caller's key, which a sweep or an update's old
    // version has none of: the remedy is the relayer's own.
    logger.warn(
      "the cipher cannot erase keys without a caller's key, which an expiry or a replaced " +
        "version has none of: their rows and blobs go, their keys stay (a Seal cipher erases " +
        "them with SVC_SEAL_SERVER_KEY set)",
      { memories: ids.length, cipher: cipher.name },
    );
  }
}

/**
 * The erases the lifecycle service builds on: of index entries, of memories only a blob holds,
 * of expiries the index lacks, and as an owner asks (updates on the way included).
 */
export function createEraser(deps: EraserDependencies) {
  const { blobs, vectors, lexicon, reader, records, updating, identity, logger, now } = deps;
  /** The receipts of the erases under way, by owner and memory id. */
  const underWay = new Map<string, Promise<EraseReceipt>>();

  /**
   * Erases expired memories the index does not hold: erased already (nothing is left to do but
   * record it again), or in a blob whose index row was lost, which restore would bring back
   * without its expiry. Their keys are destroyed and they are recorded erased, which also takes
   * them off the schedule: no restore brings them back. Resolves to how many there were.
   */
  async function eraseUnindexed(owner: string, expiries: Expiry[]): Promise<number> {
    if (expiries.length === 0) return 0;
    await eraseKeys(deps, owner, expiries.map(({ memoryId }) => memoryId));
    await records.markErased(owner, expiries, now());
    return expiries.length;
  }

  /**
   * Erases memories of a namespace, all or nothing (see `decide`): their keys first (from then
   * on nothing decrypts them), then their blobs, their index rows and catalog entries, and the
   * record of the erase. Without a caller (the expiry sweep, an update's old version), a cipher
   * that needs the caller's key to erase (Seal without a server key) refuses: that is logged,
   * and the rows and blobs still go.
   */
  async function eraseEntries(
    owner: string,
    namespace: string,
    given: CatalogEntry[],
    options: EraseOptions = {},
  ): Promise<EraseReceipt[]> {
    if (given.length === 0) return [];
    // A version replaced but not yet erased goes with its successor, so it never comes back.
    const index = await lexicon.namespace(owner, namespace);
    const older = given.flatMap(({ info }) => index.entry(info?.supersedes ?? "") ?? []);
    const entries = [...new Set([...given, ...older])];
    // One under way (an update's of the version it replaced, beside the owner's) is shared:
    // one erase, one receipt.
    const key = (id: string) => `${owner}\0${id}`;
    const joined = entries.flatMap(({ id }) => underWay.get(key(id)) ?? []);
    const own = entries.filter(({ id }) => !underWay.has(key(id)));
    const erasing = eraseNow(owner, namespace, own, options);
    const receipts = own.map((_, i) => erasing.then((all) => all[i]));
    own.forEach(({ id }, i) => underWay.set(key(id), receipts[i]));
    receipts.forEach((receipt) => receipt.catch(() => {})); // heard through `erasing`
    try {
      return [...await erasing, ...await Promise.all(joined)];
    } finally {
      for (const { id } of own) underWay.delete(key(id));
    }
  }

  /** `eraseEntries` of `entries`, none of which is being erased already. */
  async function eraseNow(
    owner: string,
    namespace: string,
    entries: CatalogEntry[],
    options: EraseOptions,
  ): Promise<EraseReceipt[]> {
    if (entries.length === 0) return [];
    const intents = await decide(owner, namespace, entries, options);
    const erasedAt = now();
    try {
      await finish(owner, namespace, entries, intents, erasedAt);
    } catch (cause) {
      const one = entries.length === 1;
      throw new SvcError(
        "backend_unavailable",
        `Cannot finish the erase now: ${one ? "the memory's key is" : "the memories' keys are"} ` +
          `erased, so ${one ? "it" : "they"} can no longer be read; the relayer finishes the ` +
          "erase within a minute",
        { cause },
      );
    }
    return await Promise.all(entries.map((entry) =>
      identity.receipt({
        memory_id: entry.id,
        owner,
        blob_id: entry.blobId,
        erased_at: iso(erasedAt),
      })
    ));
  }

  /**
   * Decides an erase: schedules each memory to expire a minute from now (the sweep finishes an
   * erase cut short after its keys went: a crash, a store that failed), then erases the keys.
   * When the keys cannot be erased, the schedule is taken back: nothing changed. Resolves to the
   * scheduled entries.
   */
  async function decide(
    owner: string,
    namespace: string,
    entries: CatalogEntry[],
    options: EraseOptions,
  ): Promise<Expiry[]> {
    const expiresAt = now() + FINISH_WITHIN_MS;
    const intents = entries.map(({ id }) => ({ memoryId: id, owner, namespace, expiresAt }));
    await records.schedule(intents);
    try {
      await eraseKeys(deps, owner, entries.map((entry) => entry.id), options);
    } catch (error) {
      await records.unschedule(intents).catch((cause) =>
        logger.warn("cannot take back an erase that failed; the sweep does it", { error: cause })
      );
      throw error;
    }
    return intents;
  }

  /**
   * What follows an erase's keys: what was read forgotten, the blobs, the index rows and catalog
   * entries, then the record of the erase, which takes the memories off the schedule (their
   * expiries' and `decide`'s). Each step can be done again.
   */
  async function finish(
    owner: string,
    namespace: string,
    entries: CatalogEntry[],
    intents: Expiry[],
    erasedAt: number,
  ): Promise<void> {
    for (const { blobId } of entries) reader.forget(blobId);
    // The blobs before the index rows: an erase cut short between them still finds the rows.
    await Promise.all(
      entries.map(({ blobId, id }) =>
        deleteErasedBlob(blobs, logger, { blobId, memoryId: id }, { retried: true })
      ),
    );
    const ids = entries.map((entry) => entry.id);
    await vectors.delete(ids);
    await lexicon.remove(owner, namespace, ids);
    // The entries last: theirs is the record kept, with the blob and namespace a receipt names.
    const erased = entries.map(({ id, blobId, info }) => ({
      memoryId: id,
      expiresAt: info?.expiresAt,
      blobId,
      namespace,
    }));
    await records.markErased(owner, [...intents, ...erased], erasedAt);
  }

  /**
   * Erases memories of a namespace that only a blob holds, no index row (rows lost with the
   * index, a text restore found held again, a job failed after its upload), as `eraseEntries`
   * does: their keys, the record of the erase, their blobs, and a row that landed meanwhile (a
   * client-encrypted memory's remember writes it after the blob, then looks for this record:
   * whichever comes last removes it); a signed receipt each. Restore would bring them back
   * otherwise.
   */
  function eraseBlobs(
    owner: string,
    namespace: string,
    left: BlobEntry[],
    options: EraseOptions = {},
  ): Promise<EraseReceipt[]> {
    const entries = left.map(({ blobId, meta }) => ({
      id: meta.memoryId,
      blobId,
      createdAt: meta.createdAt,
    }));
    return eraseEntries(owner, namespace, entries, options);
  }

  /**
   * Takes back memories their jobs stored but could not land (the jobs failed): what was read of
   * them, their blobs, then their index rows and catalog entries, so that everything is as before
   * the jobs. Their keys stay: the key store may be what failed, and with the blobs gone they
   * decrypt nothing. No receipt: the memories were never remembered.
   */
  async function withdraw(owner: string, namespace: string, entries: CatalogEntry[]) {
    if (entries.length === 0) return;
    for (const { blobId } of entries) reader.forget(blobId);
    await Promise.all(entries.map(({ blobId, id }) => blobs.delete(blobId, { memoryId: id })));
    const ids = entries.map((entry) => entry.id);
    await vectors.delete(ids);
    await lexicon.remove(owner, namespace, ids);
  }

  /**
   * Erases memories as their owner asks: the updates of them on the way go too, those still
   * to land through their revoked claims (see `MemoryLanding.indexed` in
   * `remember/landing.ts`), those that landed meanwhile here.
   */
  async function eraseAsked(
    owner: string,
    namespace: string,
    entries: CatalogEntry[],
    options: EraseOptions,
  ): Promise<EraseReceipt[]> {
    const receipts = await eraseEntries(owner, namespace, entries, options);
    const ids = receipts.map((receipt) => receipt.memory_id);
    await updating.revoke(ids);
    const index = await lexicon.namespace(owner, namespace);
    const landed = ids.flatMap((id) => index.entry(index.replacedBy(id) ?? "") ?? []);
    return [...receipts, ...await eraseEntries(owner, namespace, landed, options)];
  }

  /**
   * The receipt of an erase again, its answer lost: when the record names the memory's blob and
   * namespace, and `allow` (which throws to refuse) lets the caller use that namespace. The key
   * is erased again first, with the caller's credentials: a sweep that finished an erase cut
   * short may not have been able to.
   */
  async function receiptAgain(
    owner: string,
    memoryId: string,
    options: EraseOptions & { allow?: (namespace: string) => void } = {},
  ): Promise<EraseReceipt | null> {
    const erasure = await records.erasure(owner, memoryId);
    if (erasure?.blobId === undefined || erasure.namespace === undefined) return null;
    options.allow?.(erasure.namespace);
    await deps.cipher.erase(owner, [memoryId], { credentials: options.credentials });
    return await identity.receipt({
      memory_id: memoryId,
      owner,
      blob_id: erasure.blobId,
      erased_at: iso(erasure.erasedAt),
    });
  }

  return { eraseUnindexed, eraseEntries, eraseAsked, eraseBlobs, withdraw, receiptAgain };
}

export type Eraser = ReturnType<typeof createEraser>;
