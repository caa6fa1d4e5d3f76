/**
 * `Deno.serve` that outlives a failure of its accept loop. Out of file descriptors (a flood of
 * connections holds them all), Deno's loop fails: nothing answers again, and the failure, left
 * unhandled, ends the process. Here it is reported, and the address served again once it can be,
 * a second later and then each second.
 *
 * @example
 * ```ts
 * const server = serveLasting({ hostname: "127.0.0.1", port: 0 }, () => new Response("ok"), {
 *   failed: (error) => console.warn("serving again", error),
 * });
 * await server.shutdown();
 * ```
 */
import { sleep } from "./sleep.ts";

/** A server that serves again after its accept loop failed; `addr` stays the same. */
export interface LastingServer {
  /** The address served. */
  readonly addr: Deno.NetAddr;
  /** Stops serving, as `Deno.HttpServer.shutdown` does. */
  shutdown(): Promise<void>;
}

/** How a {@link LastingServer} reports. */
export interface LastingServeHooks {
  /** The accept loop failed: told once per failure, before serving again. */
  failed(error: unknown): void;
  /** Serving again after a failure. */
  resumed?(): void;
}

/** Serves `handler` as `Deno.serve(options, handler)`, again after a failure (see the module). */
export function serveLasting(
  options: Deno.ServeTcpOptions & { hostname: string; port: number },
  handler: Deno.ServeHandler<Deno.NetAddr>,
  hooks: LastingServeHooks,
): LastingServer {
  let server = Deno.serve(options, handler);
  const addr = server.addr;
  let stopped = false;
  const watch = (current: Deno.HttpServer<Deno.NetAddr>) =>
    current.finished.catch(async (error) => {
      if (stopped) return;
      hooks.failed(error);
      while (!stopped) {
        await sleep(1000);
        if (stopped) return;
        try {
          server = Deno.serve({ ...options, port: addr.port, onListen() {} }, handler);
        } catch {
          continue; // no descriptor yet
        }
        watch(server);
        return hooks.resumed?.();
      }
    });
  watch(server);
  return {
    addr,
    shutdown() {
      stopped = true;
      return server.shutdown();
    },
  };
}
