/**
 * Reads a blob from Walrus aggregators (`GET /v1/blobs/<blobId>`), tried in order with a short
 * race: the next aggregator starts when the current one fails, answers 404, or has not answered
 * within `hedgeMs`; the first to return the bytes wins and the others are aborted.
 */
import { readBounded } from "@svc/util/read_bounded";

/** How one read of the aggregators ended. */
export type AggregatorRead =
  | { kind: "found"; bytes: Uint8Array<ArrayBuffer> }
  | { kind: "not_found" }
  | { kind: "unavailable"; causes: unknown[] };

/** How {@link readFromAggregators} races the aggregators. */
export interface AggregatorReadOptions {
  /** Start the next aggregator when the current one has not answered after this long. */
  hedgeMs: number;
  /** Give up on one aggregator after this long. */
  timeoutMs: number;
  /** Refuse bodies larger than this. */
  maxBytes: number;
  signal?: AbortSignal;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

type Attempt = AggregatorRead | { kind: "failed"; cause: unknown };

async function attempt(
  base: string,
  blobId: string,
  signal: AbortSignal,
  options: AggregatorReadOptions,
): Promise<Attempt> {
  const { maxBytes, fetch: fetchFn = fetch } = options;
  try {
    const response = await fetchFn(`${base.replace(/\/+$/, "")}/v1/blobs/${blobId}`, { signal });
    if (response.status === 200) {
      return { kind: "found", bytes: await readBounded(response, maxBytes) };
    }
    await response.body?.cancel();
    if (response.status === 404) return { kind: "not_found" };
    return { kind: "failed", cause: new Error(`the aggregator answered HTTP ${response.status}`) };
  } catch (cause) {
    return { kind: "failed", cause };
  }
}

/**
 * Reads `blobId` from `urls`. `not_found` when no aggregator had it and at least one answered
 * 404; `unavailable` when every aggregator failed otherwise.
 */
export function readFromAggregators(
  urls: readonly string[],
  blobId: string,
  options: AggregatorReadOptions,
): Promise<AggregatorRead> {
  return new Promise((resolve) => {
    const running = new Map<AbortController, Promise<void>>();
    const causes: unknown[] = [];
    let next = 0, notFound = 0, settled = false;
    let hedge: ReturnType<typeof setTimeout> | undefined;

    const finish = (result: AggregatorRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(hedge);
      options.signal?.removeEventListener("abort", onAbort);
      // Losers are aborted, and awaited, so no request outlives the read.
      for (const controller of running.keys()) controller.abort();
      Promise.allSettled(running.values()).then(() => resolve(result));
    };
    const onAbort = () => {
      finish({ kind: "unavailable", causes: [options.signal?.reason] });
    };

    const launch = () => {
      if (settled || next >= urls.length) return;
      const url = urls[next++];
      clearTimeout(hedge);
      hedge = next < urls.length ? setTimeout(launch, options.hedgeMs) : undefined;
      const controller = new AbortController();
      const timeout = setTimeout(
        () => controller.abort(new Error("the aggregator did not answer in time")),
        options.timeoutMs,
      );
      const done = attempt(url, blobId, controller.signal, options).then((result) => {
        clearTimeout(timeout);
        if (settled) return;
        running.delete(controller);
        if (result.kind === "found") return finish(result);
        if (result.kind === "not_found") notFound++;
        else if (result.kind === "failed") causes.push(result.cause);
        if (next < urls.length) launch();
        else if (running.size === 0) {
          finish(notFound > 0 ? { kind: "not_found" } : { kind: "unavailable", causes });
        }
      });
      running.set(controller, done);
    };

    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    if (urls.length === 0) return finish({ kind: "unavailable", causes });
    launch();
  });
}
