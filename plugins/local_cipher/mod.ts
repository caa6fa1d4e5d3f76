/**
 * Envelope encryption with AES-256-GCM: a random data key per memory, wrapped by a per-owner
 * key derived with HKDF from a 32-byte master key. The owner is bound into both layers as
 * associated data, so a blob moved to another owner, or altered, fails to decrypt.
 *
 * Format (version 1):
 * `0x01 ‖ wrap_iv (12) ‖ wrapped_key (32 + 16 tag) ‖ data_iv (12) ‖ ciphertext (+ 16 tag)`.
 *
 * @example
 * ```ts
 * const cipher = await LocalCipher.open({ masterKey: crypto.getRandomValues(new Uint8Array(32)) });
 * const sealed = await cipher.encrypt(owner, new TextEncoder().encode("I am vegetarian"));
 * ```
 */
import { type CallOptions, type Cipher, SvcError } from "../../src/kit.ts";

const VERSION = 1;
const HEADER_BYTES = 1 + 12 + 48 + 12;

export interface LocalCipherOptions {
  /** 32 secret bytes; every owner's key is derived from them. */
  masterKey: Uint8Array<ArrayBuffer>;
}

export class LocalCipher implements Cipher {
  // TODO(issue 20): replaced by the real erase.
  erase(_owner: string, _memoryIds: string[], _options?: unknown): Promise<void> {
    return Promise.reject(new SvcError("internal", "erase is not built yet"));
  }
  readonly name = "local-envelope-aes-256-gcm";
  readonly holdsKeys = true;
  #master: CryptoKey;
  #ownerKeys = new Map<string, Promise<CryptoKey>>();

  private constructor(master: CryptoKey) {
    this.#master = master;
  }

  /** A cipher over a 32-byte master key. */
  static async open(options: LocalCipherOptions): Promise<LocalCipher> {
    if (options.masterKey.byteLength !== 32) {
      throw new TypeError("The master key must be 32 bytes");
    }
    const master = await crypto.subtle.importKey("raw", options.masterKey, "HKDF", false, [
      "deriveKey",
    ]);
    return new LocalCipher(master);
  }

  #ownerKey(owner: string): Promise<CryptoKey> {
    let key = this.#ownerKeys.get(owner);
    if (!key) {
      key = crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new TextEncoder().encode("svc-local-cipher-v1"),
          info: new TextEncoder().encode(`owner:${owner}`),
        },
        this.#master,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      );
      if (this.#ownerKeys.size > 10_000) this.#ownerKeys.clear();
      this.#ownerKeys.set(owner, key);
    }
    return key;
  }

  async encrypt(
    owner: string,
    plaintext: Uint8Array<ArrayBuffer>,
    options?: CallOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    const aad = new TextEncoder().encode(`svc:v${VERSION}:${owner}`);
    const rawDataKey = crypto.getRandomValues(new Uint8Array(32));
    const dataKey = await crypto.subtle.importKey("raw", rawDataKey, "AES-GCM", false, [
      "encrypt",
    ]);
    const wrapIv = crypto.getRandomValues(new Uint8Array(12));
    const dataIv = crypto.getRandomValues(new Uint8Array(12));
    const wrapped = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv: wrapIv, additionalData: aad },
        await this.#ownerKey(owner),
        rawDataKey,
      ),
    );
    const body = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv: dataIv, additionalData: aad },
        dataKey,
        plaintext,
      ),
    );
    const out = new Uint8Array(HEADER_BYTES + body.byteLength);
    out[0] = VERSION;
    out.set(wrapIv, 1);
    out.set(wrapped, 13);
    out.set(dataIv, 61);
    out.set(body, HEADER_BYTES);
    return out;
  }

  async decrypt(
    owner: string,
    ciphertext: Uint8Array<ArrayBuffer>,
    options?: CallOptions,
  ): Promise<Uint8Array<ArrayBuffer>> {
    options?.signal?.throwIfAborted();
    if (ciphertext.byteLength < HEADER_BYTES + 16 || ciphertext[0] !== VERSION) {
      throw new SvcError("bad_request", "Cannot decrypt: not a version 1 svc ciphertext");
    }
    const aad = new TextEncoder().encode(`svc:v${VERSION}:${owner}`);
    try {
      const rawDataKey = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: ciphertext.subarray(1, 13), additionalData: aad },
        await this.#ownerKey(owner),
        ciphertext.subarray(13, 61),
      );
      const dataKey = await crypto.subtle.importKey("raw", rawDataKey, "AES-GCM", false, [
        "decrypt",
      ]);
      return new Uint8Array(
        await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: ciphertext.subarray(61, 73), additionalData: aad },
          dataKey,
          ciphertext.subarray(HEADER_BYTES),
        ),
      );
    } catch (cause) {
      throw new SvcError(
        "forbidden",
        "Cannot decrypt: the ciphertext was altered or belongs to another owner",
        { cause },
      );
    }
  }
}
