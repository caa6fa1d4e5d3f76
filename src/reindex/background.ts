/** The reindex a relayer runs in the background when it changes its embedder. */
import { sleep } from "@svc/util/sleep";
import { SvcError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { Reindexer } from "./mod.ts";

/**
 * A reindex run in the background of a relayer: started once it serves, tried again after a
 * failure (from 5 s to 5 min apart; a `conflict` is final), stopped (and awaited) on close.
 */
export class BackgroundReindex {
  /** The reindex itself, which `svc reindex` runs in the foreground. */
  readonly reindexer: Reindexer;
  #logger: Logger;
  #stop = new AbortController();
  #running: Promise<void> | undefined;

  /** Runs `reindexer` in the background once started, logging to `logger`. */
  constructor(reindexer: Reindexer, logger: Logger) {
    this.reindexer = reindexer;
    this.#logger = logger;
  }

  /** Starts the reindex (once). */
  start(): void {
    this.#running ??= this.#loop();
  }

  async #loop(): Promise<void> {
    const signal = this.#stop.signal;
    for (let wait = 5_000; !signal.aborted; wait = Math.min(wait * 2, 300_000)) {
      try {
        await this.reindexer.run({ signal });
        return;
      } catch (error) {
        if (signal.aborted) return;
        const final = error instanceof SvcError && error.code === "conflict";
        this.#logger.error(
          final ? "reindex failed" : "reindex failed; it resumes after a pause",
          { error, ...(!final && { retry_in_ms: wait }) },
        );
        if (final) return;
        await sleep(wait, signal);
      }
    }
  }

  /** Stops the reindex (its cursors keep its progress) and waits for it. */
  async stop(): Promise<void> {
    this.#stop.abort(new SvcError("backend_unavailable", "Cannot reindex: the relayer stopped"));
    await this.#running;
  }
}
