/**
 * The portable export file: JSON lines (one memory object per line, as `GET /api/export`
 * streams them) inside an authenticated encryption layer keyed by a passphrase, written and
 * read as streams so that a file of any size needs a chunk's worth of memory.
 *
 * Layout (version 1):
 *
 * - a header: one line of JSON ending with `\n`, at most 4 KiB:
 *   `{"format":"svc-export","version":1,"kdf":{"name":"PBKDF2-SHA256","iterations":600000,
 *   "salt":"<base64, 16 bytes>"},"cipher":"AES-256-GCM","chunk_bytes":65536,
 *   "check":"<base64, 32 bytes>"}`;
 * - then the chunks: the plaintext cut into pieces of `chunk_bytes` (the last one shorter,
 *   possibly empty), each encrypted with AES-256-GCM and written as its ciphertext and 16-byte
 *   tag, back to back. Every chunk but the last is `chunk_bytes + 16` bytes long.
 *
 * Keys: PBKDF2-SHA256 of the passphrase (Unicode NFC, UTF-8) with the header's salt and
 * iterations gives 32 bytes; HKDF-SHA256 of them gives the AES key (info `svc-export-v1 key`)
 * and the header's `check` (info `svc-export-v1 check`), which tells a wrong passphrase from
 * an altered file. The nonce of chunk `i` (from 0) is 4 zero bytes then `i` as 8 bytes, big
 * endian; its associated data is the SHA-256 of the header line followed by one byte, 1 for
 * the last chunk and 0 for the others. A chunk altered, moved, dropped or added, a file cut
 * short or grown, and a header changed all fail to authenticate.
 *
 * @example
 * ```ts
 * const plaintext = ReadableStream.from([new TextEncoder().encode('{"text":"hi"}\n')]);
 * const file = plaintext.pipeThrough(await encryptExport("correct horse battery staple"));
 * const { plaintext: lines } = await decryptExport(file, "correct horse battery staple");
 * await new Response(lines).text(); // '{"text":"hi"}\n'
 * ```
 */
import { timingSafeEqual } from "@svc/util/keys";
import {
  concatBytes,
  deriveAesKey,
  deriveRawKey,
  gcmDecrypt,
  gcmEncrypt,
  hkdfMaster,
  TAG_BYTES,
} from "@svc/util/sealing";
import { SvcError } from "@svc/relayer/kit";
import { parseOrUndefined } from "./foreign.ts";

/** The `format` of the header. */
export const EXPORT_FORMAT = "svc-export";
/** The version of the layout this module writes and reads. */
export const EXPORT_VERSION = 1;
/** PBKDF2 iterations of a new file (OWASP's figure for PBKDF2-HMAC-SHA256). */
export const DEFAULT_ITERATIONS = 600_000;
/** Plaintext bytes per chunk of a new file. */
const DEFAULT_CHUNK_BYTES = 64 * 1024;

/** The most bytes of a header line, its `\n` included. */
export const MAX_HEADER_BYTES = 4096;
/** Bounds a file's header may set: a crafted file cannot make a reader spin or hoard memory. */
const ITERATION_RANGE = [1_000, 10_000_000];
const CHUNK_RANGE = [1024, 16 * 1024 * 1024];

/** The header of an export file. */
export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: number;
  kdf: { name: "PBKDF2-SHA256"; iterations: number; salt: string };
  cipher: "AES-256-GCM";
  chunk_bytes: number;
  check: string;
}

/** How a new file is written. */
export interface ExportWriteOptions {
  /** PBKDF2 iterations (default {@link DEFAULT_ITERATIONS}; tests use fewer). */
  iterations?: number;
  /** Plaintext bytes per chunk (default {@link DEFAULT_CHUNK_BYTES}). */
  chunkBytes?: number;
}

/** The key of one file, bound to its header; reusable to read the same file again. */
export interface ExportKey {
  /** The header line, `\n` included, exactly as in the file. */
  headerLine: Uint8Array<ArrayBuffer>;
  header: ExportHeader;
  aes: CryptoKey;
}

const encoder = new TextEncoder();

const damaged = (what: string) =>
  new SvcError(
    "bad_request",
    `Cannot read this export file: ${what} (the file was altered, cut short or damaged)`,
  );

/** PBKDF2 then HKDF: the AES key and the check value of `passphrase` for `header`'s salt. */
async function deriveKeys(passphrase: string, kdf: ExportHeader["kdf"]) {
  if (passphrase.length === 0) {
    throw new SvcError("bad_request", "Cannot use an empty passphrase");
  }
  const password = await crypto.subtle.importKey(
    "raw",
    encoder.encode(passphrase.normalize("NFC")),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const salt = Uint8Array.fromBase64(kdf.salt);
  const pbkdf2 = { name: "PBKDF2", hash: "SHA-256", salt, iterations: kdf.iterations };
  const master = await hkdfMaster(
    new Uint8Array(await crypto.subtle.deriveBits(pbkdf2, password, 256)),
  );
  const aes = await deriveAesKey(master, "", "svc-export-v1 key");
  const check = await deriveRawKey(master, "", "svc-export-v1 check");
  return { aes, check: check.toBase64() };
}

/** The nonce of chunk `index`: 4 zero bytes, then the index as 8 bytes big endian. */
function nonceOf(index: number): Uint8Array<ArrayBuffer> {
  const nonce = new Uint8Array(12);
  new DataView(nonce.buffer).setBigUint64(4, BigInt(index));
  return nonce;
}

/** The associated data of a chunk: the header line's SHA-256, then the last-chunk flag. */
async function associatedData(headerLine: Uint8Array<ArrayBuffer>) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", headerLine));
  return (last: boolean) => {
    const data = new Uint8Array(33);
    data.set(digest);
    data[32] = last ? 1 : 0;
    return data;
  };
}

/** Byte pieces held until a chunk's worth has come. */
class Pending {
  #pieces: Uint8Array[] = [];
  length = 0;

  push(piece: Uint8Array) {
    this.#pieces.push(piece);
    this.length += piece.byteLength;
  }

  /** The first `n` bytes (at most what is held), taken out. */
  take(n: number): Uint8Array<ArrayBuffer> {
    const all = concatBytes(...this.#pieces);
    const taken = all.slice(0, n);
    const rest = all.subarray(Math.min(n, all.length));
    this.#pieces = rest.byteLength ? [rest] : [];
    this.length = rest.byteLength;
    return taken;
  }
}

/**
 * A stream that encrypts the plaintext written to it into an export file under `passphrase`:
 * the header, then the chunks (see the module documentation).
 */
export async function encryptExport(
  passphrase: string,
  options: ExportWriteOptions = {},
): Promise<TransformStream<Uint8Array, Uint8Array>> {
  const kdf = {
    name: "PBKDF2-SHA256" as const,
    iterations: options.iterations ?? DEFAULT_ITERATIONS,
    salt: crypto.getRandomValues(new Uint8Array(16)).toBase64(),
  };
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const { aes, check } = await deriveKeys(passphrase, kdf);
  const header: ExportHeader = {
    format: EXPORT_FORMAT,
    version: EXPORT_VERSION,
    kdf,
    cipher: "AES-256-GCM",
    chunk_bytes: chunkBytes,
    check,
  };
  validHeader(header);
  const headerLine = encoder.encode(JSON.stringify(header) + "\n");
  const adOf = await associatedData(headerLine);
  const pending = new Pending();
  let index = 0;
  const seal = (plaintext: Uint8Array, last: boolean) =>
    gcmEncrypt(aes, nonceOf(index++), plaintext, adOf(last));
  return new TransformStream({
    start(controller) {
      controller.enqueue(headerLine);
    },
    transform(piece, controller) {
      pending.push(piece);
      // Strictly more than a chunk: the chunk taken is not the last one.
      while (pending.length > chunkBytes) {
        controller.enqueue(seal(pending.take(chunkBytes), false));
      }
    },
    flush(controller) {
      controller.enqueue(seal(pending.take(chunkBytes), true));
    },
  });
}

/** Throws unless `value` is a header this version can read. */
function validHeader(value: unknown): asserts value is ExportHeader {
  const header = value as Partial<ExportHeader> | null;
  if (typeof header !== "object" || header === null || header.format !== EXPORT_FORMAT) {
    throw new SvcError("bad_request", "Cannot read this file: it is not an svc export");
  }
  if (header.version !== EXPORT_VERSION) {
    throw new SvcError(
      "bad_request",
      `Cannot read this export: its format version ${header.version} is not version ` +
        `${EXPORT_VERSION}, the one this svc reads`,
    );
  }
  const { kdf, chunk_bytes: chunk } = header;
  const inRange = (n: unknown, [low, high]: number[]) =>
    Number.isInteger(n) && (n as number) >= low && (n as number) <= high;
  const base64Bytes = (text: unknown) => {
    try {
      return typeof text === "string" ? Uint8Array.fromBase64(text).byteLength : 0;
    } catch {
      return 0;
    }
  };
  if (
    kdf?.name !== "PBKDF2-SHA256" || !inRange(kdf.iterations, ITERATION_RANGE) ||
    base64Bytes(kdf.salt) < 16 || header.cipher !== "AES-256-GCM" ||
    !inRange(chunk, CHUNK_RANGE) || base64Bytes(header.check) !== 32
  ) {
    throw damaged("its header is not valid");
  }
}

/** Reads the header line off `reader`; what was read past it is returned too. */
async function readHeaderLine(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let read: Uint8Array<ArrayBuffer> = new Uint8Array();
  while (read.length < MAX_HEADER_BYTES) {
    const { value, done } = await reader.read();
    if (done) break;
    read = concatBytes(read, value);
    const end = read.indexOf(0x0a);
    if (end >= 0 && end < MAX_HEADER_BYTES) {
      return { line: read.slice(0, end + 1), rest: read.subarray(end + 1) };
    }
  }
  throw new SvcError("bad_request", "Cannot read this file: it is not an svc export");
}

/**
 * Opens an export file: reads its header, derives its key from `secret` (a passphrase, or the
 * key of an earlier read of the same file) and returns the plaintext as a stream. A wrong
 * passphrase throws at once (401 `unauthorized`); a chunk that does not authenticate makes
 * the plaintext stream fail before anything of that chunk comes out.
 */
export async function decryptExport(
  file: ReadableStream<Uint8Array>,
  secret: string | ExportKey,
): Promise<{ key: ExportKey; plaintext: ReadableStream<Uint8Array> }> {
  const reader = file.getReader();
  let key: ExportKey;
  let rest: Uint8Array;
  try {
    const read = await readHeaderLine(reader);
    rest = read.rest;
    const header = parseOrUndefined(new TextDecoder().decode(read.line));
    validHeader(header);
    if (typeof secret === "string") {
      const { aes, check } = await deriveKeys(secret, header.kdf);
      if (!timingSafeEqual(check, header.check)) {
        throw new SvcError(
          "unauthorized",
          "Cannot open this export: the passphrase is wrong (or the file's header was altered)",
          { details: { reason: "wrong_passphrase" } },
        );
      }
      key = { headerLine: read.line, header, aes };
    } else {
      if (!timingSafeEqual(read.line.toHex(), secret.headerLine.toHex())) {
        throw damaged("its header changed since it was first read");
      }
      key = secret;
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
  const size = key.header.chunk_bytes + TAG_BYTES;
  const adOf = await associatedData(key.headerLine);
  const pending = new Pending();
  pending.push(rest);
  let index = 0;
  const open = (sealed: Uint8Array, last: boolean) => {
    const at = index++;
    try {
      return gcmDecrypt(key.aes, nonceOf(at), sealed, adOf(last));
    } catch {
      throw damaged(`chunk ${at + 1} does not authenticate`);
    }
  };
  const plaintext = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        // Strictly more than a chunk held: the first one is not the last.
        while (pending.length <= size) {
          const { value, done } = await reader.read();
          if (done) {
            if (pending.length < TAG_BYTES) throw damaged("it ends inside a chunk");
            controller.enqueue(open(pending.take(size), true));
            controller.close();
            return;
          }
          pending.push(value);
        }
        controller.enqueue(open(pending.take(size), false));
      } catch (error) {
        await reader.cancel().catch(() => {});
        throw error;
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
  return { key, plaintext };
}
