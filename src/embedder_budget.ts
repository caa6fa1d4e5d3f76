/**
 * The embedder's budget: the routes that make the relayer embed text (`/api/embed`, recall,
 * analyze, ask) are admitted by what they cost the embedder, in bytes of UTF-8 to embed, from
 * two token buckets, one per delegate key and one per account. A bucket refills at its rate and
 * holds `burstSeconds` of it; a request is admitted when both buckets hold its cost (or, for a
 * cost larger than a bucket, when the bucket is full) and is charged to both before the embedder
 * runs. Otherwise it is refused, uncharged: 429 `rate_limited` with `Retry-After`, the seconds
 * until both buckets hold it. So one caller takes at most its share of the embedder, and its
 * refusals cost others nothing.
 *
 * The routes' costs are in one table (`EMBEDDER_COSTS`); `withEmbedderBudget` charges them once
 * the request is authenticated and its body read, before its handler runs.
 *
 * @example
 * ```ts
 * const budget = new EmbedderBudget({ keyBytesPerSecond: 1024, burstSeconds: 2 });
 * budget.charge({ publicKey: "ab…", accountId: "0x…" }, embedderCost(["what do I eat?"]));
 * ```
 */
import { SvcError } from "./errors.ts";
import type { Route } from "./http/router.ts";
import type { HandlerContext } from "./routes/context.ts";
import { MAX_FACTS, utf8Length } from "./text_limits.ts";

/** What an embedder budget admits. */
export interface EmbedderBudgetOptions {
  /** Bytes to embed one delegate key may ask for per second (default 256 KiB). */
  keyBytesPerSecond?: number;
  /** Bytes to embed one account's keys together may ask for per second (default 512 KiB). */
  accountBytesPerSecond?: number;
  /** Seconds of its rate a bucket holds: what a caller may ask for at once (default 4). */
  burstSeconds?: number;
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
}

/** `keyBytesPerSecond`'s default: about 9,000 recalls of a 28-byte question a second. */
const DEFAULT_EMBED_KEY_BYTES_PER_SECOND = 256 * 1024;
/** `accountBytesPerSecond`'s default: two keys' worth. */
const DEFAULT_EMBED_ACCOUNT_BYTES_PER_SECOND = 512 * 1024;
/** `burstSeconds`'s default. */
const DEFAULT_EMBED_BURST_SECONDS = 4;

/**
 * The bytes each text costs besides its own: the embedder's work for a text of any length (a
 * run of the model, its tokens of start and end), so that many tiny texts are not free.
 */
export const EMBED_TEXT_BASE_BYTES = 64;

/** The embedder's cost of `texts`: their UTF-8 bytes plus `EMBED_TEXT_BASE_BYTES` each. */
export function embedderCost(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += utf8Length(text) + EMBED_TEXT_BASE_BYTES;
  return bytes;
}

/** What the routes that embed cost, by `METHOD /path`, from their validated body. */
// deno-lint-ignore no-explicit-any
export const EMBEDDER_COSTS: Readonly<Record<string, (body: any) => number>> = {
  "POST /api/embed": (body: { texts: { texts: string[] } }) => embedderCost(body.texts.texts),
  "POST /api/recall": (body: { query: string }) => embedderCost([body.query]),
  "POST /api/ask": (body: { question: string }) => embedderCost([body.question]),
  // The model reads the text, then each fact it gives (at most MAX_FACTS, together no longer
  // than the text) is embedded to find whether it is remembered already.
  "POST /api/analyze": (body: { text: string }) =>
    2 * utf8Length(body.text) + (1 + MAX_FACTS) * EMBED_TEXT_BASE_BYTES,
};

/** A caller as the budget counts it. */
export interface BudgetCaller {
  publicKey: string;
  accountId: string;
}

/** Token buckets keyed by name, all of one rate and size. */
class CostBuckets {
  readonly #rate: number;
  readonly #size: number;
  /** Level (bytes) at a time (ms); a name absent is a full bucket. */
  readonly #levels = new Map<string, { level: number; at: number }>();

  constructor(bytesPerSecond: number, burstSeconds: number) {
    this.#rate = bytesPerSecond / 1000;
    this.#size = bytesPerSecond * burstSeconds;
  }

  /** Milliseconds until `name`'s bucket holds `cost` (0: now); a larger cost waits for full. */
  wait(name: string, cost: number, now: number): number {
    const missing = Math.min(cost, this.#size) - this.#level(name, now);
    return missing > 0 ? missing / this.#rate : 0;
  }

  /** Takes `cost` from `name`'s bucket, which may go below empty by what the cost exceeds. */
  take(name: string, cost: number, now: number): void {
    this.#levels.set(name, { level: this.#level(name, now) - cost, at: now });
    if (this.#levels.size > 10_000) this.#prune(now);
  }

  #level(name: string, now: number): number {
    const held = this.#levels.get(name);
    if (!held) return this.#size;
    return Math.min(this.#size, held.level + Math.max(0, now - held.at) * this.#rate);
  }

  /** Forgets the full buckets, which an absent name stands for. */
  #prune(now: number): void {
    for (const name of this.#levels.keys()) {
      if (this.#level(name, now) >= this.#size) this.#levels.delete(name);
    }
  }
}

/** The embedder's budget of each delegate key and each account (see the module comment). */
export class EmbedderBudget {
  readonly #keys: CostBuckets;
  readonly #accounts: CostBuckets;
  readonly #now: () => number;

  constructor(options: EmbedderBudgetOptions = {}) {
    const burst = options.burstSeconds ?? DEFAULT_EMBED_BURST_SECONDS;
    this.#keys = new CostBuckets(
      options.keyBytesPerSecond ?? DEFAULT_EMBED_KEY_BYTES_PER_SECOND,
      burst,
    );
    this.#accounts = new CostBuckets(
      options.accountBytesPerSecond ?? DEFAULT_EMBED_ACCOUNT_BYTES_PER_SECOND,
      burst,
    );
    this.#now = options.now ?? Date.now;
  }

  /**
   * Charges `cost` bytes to `caller`'s key and account, or throws 429 `rate_limited` (with the
   * seconds until both hold it) and charges nothing.
   */
  charge(caller: BudgetCaller, cost: number): void {
    const now = this.#now();
    const wait = Math.max(
      this.#keys.wait(caller.publicKey, cost, now),
      this.#accounts.wait(caller.accountId, cost, now),
    );
    if (wait > 0) {
      throw new SvcError(
        "rate_limited",
        "Cannot embed this request's text now: this key or its account has used its share of " +
          "the embedder; try again after retry_after_seconds",
        { details: { retry_after_seconds: Math.max(1, Math.ceil(wait / 1000)) } },
      );
    }
    this.#keys.take(caller.publicKey, cost, now);
    this.#accounts.take(caller.accountId, cost, now);
  }
}

/** `METHOD /path` of a route, as `EMBEDDER_COSTS` names it. */
export function routeName(route: Route<HandlerContext>): string {
  return `${route.method} ${route.pattern.pathname}`;
}

/**
 * The routes, those of `EMBEDDER_COSTS` charging their cost to `budget` once authenticated and
 * read, before their handler runs.
 */
export function withEmbedderBudget(
  routes: Route<HandlerContext>[],
  budget: EmbedderBudget,
): Route<HandlerContext>[] {
  return routes.map((original) => {
    const cost = EMBEDDER_COSTS[routeName(original)];
    if (!cost) return original;
    return {
      ...original,
      async handle(context: HandlerContext) {
        budget.charge(context.caller, cost(context.input.body));
        return await original.handle(context);
      },
    };
  });
}
