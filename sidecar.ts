/**
 * The sidecar's entry. The relayer starts and supervises it (`app/sidecar/supervisor.ts`); it serves
 * MCP on `SIDECAR_URL` and stops when its stdin, held open by the relayer, closes: when the
 * relayer stops it, or is gone.
 */
import { openSponsor, readConfig } from "@svc/app";
import { createLogger } from "@svc/relayer";
import { createSidecar } from "@svc/relayer/sidecar";
import { type LastingServer, serveLasting } from "@svc/util/lasting_serve";

// The relayer stops this process, after its drain (`SVC_STOP_DRAIN_SECONDS`), by closing stdin. It
// runs in a process group of its own, out of reach of a Ctrl-C; a signal sent to every process of
// the relayer's service (a service manager's stop) is ignored too.
for (const signal of ["SIGTERM", "SIGINT"] as const) Deno.addSignalListener(signal, () => {});

const result = readConfig(Deno.env.toObject());
const token = Deno.env.get("SVC_SIDECAR_TOKEN");
const relayerUrl = Deno.env.get("SVC_RELAYER_URL");
if (!result.ok || !token || !relayerUrl) {
  console.error(
    "svc sidecar: the relayer starts this process; it needs SVC_SIDECAR_TOKEN, " +
      "SVC_RELAYER_URL and a valid configuration",
  );
  Deno.exit(2);
}
const { config } = result;
// What it creates in the data directory is owner-only: it inherits the relayer's umask (0077).
const logger = createLogger(config.logLevel);
const { sponsor, close: closeSponsor } = await openSponsor(config).catch((error) => {
  // One line; the relayer logs that the sidecar stopped and starts it again a little later.
  logger.error("sidecar cannot start", { error });
  Deno.exit(1);
});
const sidecar = createSidecar({
  token,
  relayerUrl,
  sendDelegateKey: config.cipher.kind === "seal",
  sponsor,
  limits: {
    maxTotal: config.mcpMaxTotalSessions,
    maxPerIdentity: config.mcpMaxSessionsPerKey,
    maxPerAddress: config.mcpMaxSessionsPerIp,
    maxNewPerAddressPerMinute: config.mcpMaxNewSessionsPerIpPerMin,
    idleMs: config.mcpSessionIdleMinutes * 60_000,
  },
  allowedOrigins: config.allowedOrigins,
  waitMs: config.mcpWaitMs,
  logger,
});
// Where it listens: `localhost` is 127.0.0.1, as for the supervisor, which logs the same origin.
const address = new URL(config.sidecarUrl);
if (address.hostname === "localhost") address.hostname = "127.0.0.1";
const hostname = address.hostname.replace(/^\[|\]$/g, "");
let server: LastingServer;
try {
  server = serveLasting(
    {
      hostname,
      port: Number(config.sidecarUrl.port),
      onListen: () => logger.info("sidecar listening", { url: address.origin }),
    },
    sidecar.handler,
    {
      failed: (error) =>
        logger.error("the sidecar stopped taking connections; it takes them again when it can", {
          error,
        }),
      resumed: () => logger.info("the sidecar takes connections again"),
    },
  );
} catch (error) {
  if (!(error instanceof Deno.errors.AddrInUse)) throw error;
  logger.error(
    `the MCP sidecar cannot listen on ${hostname}:${config.sidecarUrl.port}: the port is in ` +
      "use (another svc relayer's sidecar, or another program). Stop it, or choose another " +
      "port with SIDECAR_URL.",
  );
  Deno.exit(1);
}

let stopping = false;
async function stop(reason: string) {
  if (stopping) return;
  stopping = true;
  logger.info("sidecar stopping", { reason });
  await sidecar.close();
  await Promise.race([server.shutdown(), new Promise((r) => setTimeout(r, 3000))]);
  await closeSponsor();
  Deno.exit(0);
}
(async () => {
  try {
    for await (const _ of Deno.stdin.readable) {
      // nothing is ever sent; the stream ends when the relayer is gone
    }
  } catch {
    // a broken pipe means the same
  }
  await stop("the relayer stopped it, or is gone");
})();
