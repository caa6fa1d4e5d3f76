/**
 * A bounded cache in front of an `AccountDirectory`: found accounts are kept at most 60 s and
 * unknown keys 10 s, so a key removed from an account stops working within a minute (a TTL of
 * 0 asks the directory every time). A key past its `expiresAt` is refused whether cached or
 * not: 401 `expired_key`.
 */
import type { AccountDirectory, CallOptions, ResolvedAccount } from "../backends/types.ts";
import { SvcError } from "../errors.ts";
import { LruMap } from "@svc/util/lru_map";

export interface AccountCacheOptions {
  /** How long a found account is kept (default 60 s; 0 keeps none). */
  positiveTtlMs?: number;
  /** How long an unknown key is remembered (default 10 s; 0 keeps none). */
  negativeTtlMs?: number;
  now?: () => number;
}

export class CachedAccountDirectory implements AccountDirectory {
  readonly name: string;
  #inner: AccountDirectory;
  /** The answers kept, for 10,000 keys and owners at most. */
  #entries = new LruMap<string, { value: ResolvedAccount | null; until: number }>(10_000);
  #positiveTtlMs: number;
  #negativeTtlMs: number;
  #now: () => number;

  constructor(inner: AccountDirectory, options: AccountCacheOptions = {}) {
    this.name = inner.name;
    this.#inner = inner;
    this.#positiveTtlMs = options.positiveTtlMs ?? 60_000;
    this.#negativeTtlMs = options.negativeTtlMs ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  async resolve(
    publicKey: string,
    accountIdHint?: string,
    options?: CallOptions,
  ): Promise<ResolvedAccount | null> {
    options?.signal?.throwIfAborted();
    const value = await this.#cached(
      `${publicKey}|${accountIdHint ?? ""}`,
      () => this.#inner.resolve(publicKey, accountIdHint, options),
    );
    if (value?.expiresAt !== undefined && value.expiresAt <= this.#now()) {
      throw new SvcError("unauthorized", "This delegate key has expired", {
        details: { reason: "expired_key" },
      });
    }
    return value;
  }

  /**
   * The owner's account, kept as `resolve` keeps a key's (asked of every request signed without
   * `x-account-id`, to tell an owner's key from a delegate key registered under it).
   */
  async resolveOwner(owner: string, options?: CallOptions): Promise<ResolvedAccount | null> {
    options?.signal?.throwIfAborted();
    const inner = this.#inner;
    if (!inner.resolveOwner) return null;
    return await this.#cached(`owner|${owner}`, () => inner.resolveOwner!(owner, options));
  }

  /** What is kept for `key` while it is, else what `ask` answers (then kept). */
  async #cached(
    key: string,
    ask: () => Promise<ResolvedAccount | null>,
  ): Promise<ResolvedAccount | null> {
    const hit = this.#entries.get(key);
    return hit && hit.until > this.#now() ? hit.value : this.#keep(key, await ask());
  }

  /** Keeps what the directory answered for `key`, for as long as the answer's kind is kept. */
  #keep(key: string, value: ResolvedAccount | null): ResolvedAccount | null {
    this.#entries.delete(key);
    const ttl = value ? this.#positiveTtlMs : this.#negativeTtlMs;
    if (ttl > 0) this.#entries.set(key, { value, until: this.#now() + ttl });
    return value;
  }
}
