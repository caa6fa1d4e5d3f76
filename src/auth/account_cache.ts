/**
 * A bounded cache in front of an `AccountDirectory`: found accounts are kept at most 60 s and
 * unknown keys 10 s, so a key removed from an account stops working within a minute.
 */
import type { AccountDirectory, CallOptions, ResolvedAccount } from "../backends/types.ts";

export interface AccountCacheOptions {
  positiveTtlMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export class CachedAccountDirectory implements AccountDirectory {
  readonly name: string;
  #inner: AccountDirectory;
  #entries = new Map<string, { value: ResolvedAccount | null; until: number }>();
  #positiveTtlMs: number;
  #negativeTtlMs: number;
  #maxEntries: number;
  #now: () => number;

  constructor(inner: AccountDirectory, options: AccountCacheOptions = {}) {
    this.name = inner.name;
    this.#inner = inner;
    this.#positiveTtlMs = options.positiveTtlMs ?? 60_000;
    this.#negativeTtlMs = options.negativeTtlMs ?? 10_000;
    this.#maxEntries = options.maxEntries ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  async resolve(
    publicKey: string,
    accountIdHint?: string,
    options?: CallOptions,
  ): Promise<ResolvedAccount | null> {
    options?.signal?.throwIfAborted();
    const key = `${publicKey}|${accountIdHint ?? ""}`;
    const hit = this.#entries.get(key);
    if (hit && hit.until > this.#now()) return hit.value;
    const value = await this.#inner.resolve(publicKey, accountIdHint, options);
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    const ttl = value ? this.#positiveTtlMs : this.#negativeTtlMs;
    this.#entries.set(key, { value, until: this.#now() + ttl });
    return value;
  }
}
