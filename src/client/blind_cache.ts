/**
 * A device's copy of an operator-blind namespace's log, kept in one file so that a restart reads
 * only the log's tail. The file is a run of frames, each the records one sync brought, sealed with
 * ChaCha20-Poly1305 under a key HKDF derives from the device's private key: 4 bytes of length,
 * then the sealed frame. The entries inside stay sealed under the content key too. A frame cut
 * short (a crash while writing) ends what is read: the file is cut there and the relayer's log
 * fills the rest. The first frame is written whole (`#create`), so a file whose first frame is cut
 * short is no cache: it is refused, never cut. A whole frame that does not open was written under
 * another content key (or altered): the file is refused, never cut, so a relayer cannot make a
 * device forget the key it holds. An erase rewrites the file without the erased entry.
 */
import { chachaOpen, chachaSeal, concatBytes, deriveRawKey, hkdfMaster } from "@svc/util/sealing";
import { nullIfMissing, writeWhole } from "@svc/util/files";
import { SvcError } from "../errors.ts";

/** A record of the log as the relayer serves it: an entry (`sealed`), or a tombstone. */
export interface LogRecord {
  seq: number;
  id: string;
  sealed?: string;
  erased_at?: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** One namespace's records, sealed in a file; see the module documentation. */
export class BlindCache {
  #path: string;
  #key: Uint8Array<ArrayBuffer>;
  #data: Uint8Array<ArrayBuffer>;

  private constructor(path: string, key: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>) {
    this.#path = path;
    this.#key = key;
    this.#data = data;
  }

  /**
   * The cache at `path` of the device key `privateKey` (hex) for `namespace`, bound to the
   * namespace's content key by `keyId`: a file written under another content key is refused
   * when read (409).
   */
  static async open(
    path: string,
    privateKey: string,
    namespace: string,
    keyId: string,
  ): Promise<BlindCache> {
    const master = await hkdfMaster(Uint8Array.fromHex(privateKey));
    const key = await deriveRawKey(master, "svc-blind-cache-v1", `${namespace}\n${keyId}`);
    return new BlindCache(path, key, encoder.encode(namespace));
  }

  /** Every record the file holds, oldest first; cuts the file after the last whole frame. */
  async read(): Promise<LogRecord[]> {
    const bytes = await nullIfMissing(Deno.readFile(this.#path));
    if (!bytes) return [];
    const records: LogRecord[] = [];
    let at = 0;
    while (at + 4 <= bytes.byteLength) {
      const length = new DataView(bytes.buffer, bytes.byteOffset + at).getUint32(0);
      const frame = bytes.subarray(at + 4, at + 4 + length);
      if (frame.byteLength < length) break;
      try {
        records.push(...JSON.parse(decoder.decode(chachaOpen(this.#key, frame, this.#data))));
      } catch (cause) {
        throw new SvcError(
          "conflict",
          `The cache file ${this.#path} does not open with this key and the namespace's content ` +
            "key: it is another key's or another namespace's cache, it was damaged, or the " +
            "relayer now offers a content key this device never held. Nothing was changed. Name " +
            "this device's own cache file; remove this one only if it is this device's and the " +
            "namespace was erased and made again on purpose",
          { cause },
        );
      }
      at += 4 + length;
    }
    if (at === 0 && bytes.byteLength > 0) {
      // The first frame is written whole (`append`), so no crash leaves it cut short.
      throw new SvcError(
        "bad_request",
        `The file ${this.#path} is not a cache of an operator-blind namespace. Nothing was ` +
          "changed: name another file, or remove this one",
      );
    }
    if (at < bytes.byteLength) await Deno.truncate(this.#path, at);
    return records;
  }

  /**
   * Appends `records` as one frame; with a tombstone, the file is rewritten without the entry it
   * erased (nor one of the same id sent again after it: an erased memory stays erased).
   */
  async append(records: LogRecord[]): Promise<void> {
    if (records.length === 0) return;
    if (records.every((record) => record.sealed)) {
      const frame = this.#frame(records);
      if (!await this.#create(frame)) {
        await Deno.writeFile(this.#path, frame, { append: true, mode: 0o600 });
      }
      return;
    }
    const all = [...await this.read(), ...records];
    const erased = new Set(all.flatMap((record) => record.sealed ? [] : [record.id]));
    const kept = all.filter((record) => !record.sealed || !erased.has(record.id));
    await writeWhole(this.#path, this.#frame(kept), { temporary: this.#temporary });
  }

  /** The one other file this cache writes (the Python SDK's driver may write no other). */
  get #temporary(): string {
    return `${this.#path}.tmp`;
  }

  /**
   * Makes the file with `frame` as its first frame, whole: written beside it, then linked into
   * place, which fails where the file is (another process made it meanwhile). `false` when
   * the file was there already, or another write of its first frame is under way.
   */
  async #create(frame: Uint8Array<ArrayBuffer>): Promise<boolean> {
    if (await nullIfMissing(Deno.stat(this.#path))) return false;
    try {
      await Deno.writeFile(this.#temporary, frame, { createNew: true, mode: 0o600 });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) return false;
      throw error;
    }
    try {
      await Deno.link(this.#temporary, this.#path);
      return true;
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) return false;
      throw error;
    } finally {
      await nullIfMissing(Deno.remove(this.#temporary));
    }
  }

  #frame(records: LogRecord[]): Uint8Array<ArrayBuffer> {
    const sealed = chachaSeal(this.#key, encoder.encode(JSON.stringify(records)), this.#data);
    const length = new Uint8Array(4);
    new DataView(length.buffer).setUint32(0, sealed.byteLength);
    return concatBytes(length, sealed);
  }
}
