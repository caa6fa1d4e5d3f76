/**
 * A local read-through cache of blob bytes (ciphertext), one file per blob id:
 * `<dir>/<id[0..2]>/<id>` holding `sha256(bytes) ‖ bytes`. A file whose digest does not match
 * its bytes (a torn or corrupted write, a disk error) is removed and reported as a miss, so a
 * corrupt file is never served. Files are written whole or not at all (`writeCache`).
 */
import { nullIfMissing, writeCache } from "@svc/util/files";
import { sha256Hex } from "@svc/util/keys";

const DIGEST_BYTES = 32;

/** The local, digest-checked cache of blob bytes; see the module documentation. */
export class BlobCache {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The file of a blob id (ids are checked by the caller: 43 base64url characters). */
  #pathOf(blobId: string): string {
    return `${this.dir}/${blobId.slice(0, 2)}/${blobId}`;
  }

  /** The cached bytes, or `null` on a miss (a corrupt file counts as a miss and is removed). */
  async read(blobId: string): Promise<Uint8Array<ArrayBuffer> | null> {
    const path = this.#pathOf(blobId);
    const file = await nullIfMissing(Deno.readFile(path));
    if (!file) return null;
    const bytes = file.slice(DIGEST_BYTES);
    if (
      file.length >= DIGEST_BYTES &&
      file.subarray(0, DIGEST_BYTES).toHex() === await sha256Hex(bytes)
    ) {
      return bytes;
    }
    await Deno.remove(path).catch(() => {});
    return null;
  }

  /** Removes a blob's file, if any (a deleted blob must not be served from here). */
  async remove(blobId: string): Promise<void> {
    await nullIfMissing(Deno.remove(this.#pathOf(blobId)));
  }

  /** Stores bytes for a blob id; a failure to write only costs a later network read. */
  async write(blobId: string, bytes: Uint8Array<ArrayBuffer>): Promise<void> {
    const file = new Uint8Array(DIGEST_BYTES + bytes.length);
    file.set(Uint8Array.fromHex(await sha256Hex(bytes)));
    file.set(bytes, DIGEST_BYTES);
    await writeCache(this.#pathOf(blobId), file);
  }
}
