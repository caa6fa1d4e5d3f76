/**
 * The keys of remember jobs' waiting texts. A store may keep a deleted value for a while (Deno KV
 * in the free pages and the log of `jobs.kv` until the next start rewrites it), so a job's text
 * is sealed under a random key of its own, kept in the key store (`keys.sqlite`) at the job's
 * memory id (its job id) under `JOB_TEXT_KEY_TAG`. Erasing the memory erases that key with the memory's others: what is left
 * of the text in the store no longer opens, whoever holds the master key. The key is stored
 * wrapped (AES-256-GCM under a key derived from the relayer's secret, the owner and job id bound
 * in), so the key store alone opens nothing either.
 *
 * @example
 * ```ts
 * const keys = await JobTextKeys.derive(secret, keyStore);
 * const key = await keys.create("0xowner", jobId); // durable once it resolves
 * await keys.get("0xowner", jobId); // the same 32 bytes, until the memory is erased
 * ```
 */
import { JOB_TEXT_KEY_TAG, type KeyPlace, type KeyStore } from "../backends/key_store.ts";
import { deriveRawKey, hkdfMaster, openNow, sealNow } from "@svc/util/sealing";

const encoder = new TextEncoder();

/** Where the key of job `jobId`'s text is kept. */
function placeOf(owner: string, jobId: string): KeyPlace {
  return { owner, memoryId: jobId, keyTag: JOB_TEXT_KEY_TAG };
}

/** What a wrapped key is bound to: its owner and job. */
function wrapAad(owner: string, jobId: string): Uint8Array {
  return encoder.encode(`svc-job-text-key:${JSON.stringify([owner, jobId])}`);
}

/** The keys of jobs' texts in a key store; see the module documentation. */
export class JobTextKeys {
  #wrapKey: Uint8Array<ArrayBuffer>;
  #store: KeyStore;

  private constructor(wrapKey: Uint8Array<ArrayBuffer>, store: KeyStore) {
    this.#wrapKey = wrapKey;
    this.#store = store;
  }

  /** The keys kept in `store`, wrapped under a key derived from the 32-byte `secret`. */
  static async derive(secret: Uint8Array<ArrayBuffer>, store: KeyStore): Promise<JobTextKeys> {
    const wrapKey = await deriveRawKey(await hkdfMaster(secret), "svc-job-text-key-v1", "");
    return new JobTextKeys(wrapKey, store);
  }

  /** A new random key for the text of job `jobId` of `owner`; resolves once it is durable. */
  async create(owner: string, jobId: string): Promise<Uint8Array<ArrayBuffer>> {
    const key = crypto.getRandomValues(new Uint8Array(32));
    await this.#store.put(
      placeOf(owner, jobId),
      sealNow(this.#wrapKey, key, wrapAad(owner, jobId)),
    );
    return key;
  }

  /** The key of job `jobId`'s text, or `null` once its memory was erased (or it never had one). */
  async get(owner: string, jobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    const wrapped = await this.#store.get(placeOf(owner, jobId));
    return wrapped && openNow(this.#wrapKey, wrapped, wrapAad(owner, jobId));
  }

  /** Erases the keys of these memories of `owner` (their jobs' included), durably. */
  erase(owner: string, memoryIds: string[]): Promise<void> {
    return this.#store.erase(owner, memoryIds);
  }
}
