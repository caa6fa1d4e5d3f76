/**
 * The requests a server is handling, so that stopping waits for them before it closes their
 * connections: Deno's `shutdown()` ends at once the reading of a request body still arriving
 * (a slow upload would be told its body was cut short). Meanwhile new requests are refused.
 */
import { silentLogger, SvcError } from "@svc/relayer/kit";
import { errorResponse, FailureLog } from "@svc/relayer/http";

/** A refusal while stopping is not a failure: nothing is logged of it. */
const UNLOGGED = new FailureLog(silentLogger);

export class RequestsInFlight {
  #count = 0;
  #stopping = false;
  #idle = Promise.withResolvers<void>();

  /** `handler`, counted while it runs; 503 `server_busy` once stopping. */
  wrap<Rest extends unknown[]>(
    handler: (request: Request, ...rest: Rest) => Response | Promise<Response>,
  ): (request: Request, ...rest: Rest) => Promise<Response> {
    return async (request, ...rest) => {
      if (this.#stopping) {
        const stopping = new SvcError("server_busy", "The relayer is stopping; retry shortly", {
          headers: { "retry-after": "1", connection: "close" },
        });
        return errorResponse(stopping, crypto.randomUUID(), UNLOGGED);
      }
      this.#count++;
      try {
        return await handler(request, ...rest);
      } finally {
        if (--this.#count === 0 && this.#stopping) this.#idle.resolve();
      }
    };
  }

  /** Refuses new requests from now on; resolves once none is being handled. */
  stop(): Promise<void> {
    this.#stopping = true;
    if (this.#count === 0) this.#idle.resolve();
    return this.#idle.promise;
  }
}
