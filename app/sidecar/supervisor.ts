/**
 * Runs the sidecar (`sidecar.ts`, beside the relayer's `main.ts`) as a child process: starts it
 * with a fresh secret and a clean environment, waits for its `/health`, probes it every second,
 * restarts it with backoff when it dies or stops answering. The child holds a pipe from this
 * process as its stdin and stops when that closes, so it cannot outlive the relayer, even one
 * killed with SIGKILL; `stop` closes it, then kills the child after a grace period. The child
 * leads a process group of its own, so a Ctrl-C to the relayer's leaves it serving until then.
 */
import { fileURLToPath } from "node:url";
import type { Logger } from "@svc/relayer/kit";
import { healthProof, type SidecarLink } from "@svc/relayer";
import { noProxy } from "@svc/relayer/http";
import { sleep } from "@svc/util/sleep";

export interface SupervisorOptions {
  /** Where the sidecar listens (`SIDECAR_URL`). */
  url: URL;
  /** Configuration passed on to the sidecar (see `SIDECAR_ENV`). */
  env: Record<string, string>;
  /** The data directory, which the sidecar may read and write (the local ledger). */
  dataDir: string;
  /** Other hosts (`host:port`) the sidecar may reach: the Sui full node of network mode. */
  netHosts?: string[];
  logger: Logger;
  /** How long `start` waits for the first healthy answer (default 30 s). */
  readyTimeoutMs?: number;
  /** Between closing the sidecar's stdin and SIGKILL on stop (default 5 s). */
  graceMs?: number;
}

const ENTRY = fileURLToPath(new URL("../../sidecar.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../../deno.json", import.meta.url));
/** The checkout, whose code the sidecar reads as it imports the plugins chosen (PostgreSQL…). */
const CODE = fileURLToPath(new URL("../../", import.meta.url));
const PROBE_MS = 1000;
/** Failed probes in a row after which a running sidecar counts as hung and is killed. */
const HUNG_AFTER = 5;
/** Failed probes in a row after which the calls waiting on the sidecar get 503. */
const UNANSWERED_CALLS_AFTER = 2;
/** Environment a Deno child needs to find its caches. */
const RUNTIME_ENV = [
  "HOME",
  "PATH",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "TMPDIR",
  // What Deno fetches npm packages with, at the sidecar's first start: the registry and the
  // certificates that vouch for it (a proxy's own, say).
  "NPM_CONFIG_REGISTRY",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "NODE_EXTRA_CA_CERTS",
  // A proxy for outbound calls (a Sui node), and the loopback names kept away from it.
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
];

/** What the sidecar may reach and touch. */
export interface SidecarAccess {
  /** The `host:port` entries it may connect to or listen on: its own, the relayer's, others. */
  hosts: string[];
  /** The one folder it may read and write: the data directory. */
  dataDir: string;
}

/**
 * The `deno` arguments that start the sidecar: no prompt, no download progress, the network
 * limited to `hosts`, files limited to `dataDir` (and the checkout's code, read), and the
 * environment it is given (a clean one, see `RUNTIME_ENV`). A test that runs `sidecar.ts` itself
 * starts it with these.
 */
export function sidecarRunArgs(access: SidecarAccess): string[] {
  return [
    "run",
    "--no-prompt",
    // Deno fetches the packages only the sidecar imports (the MCP SDK) at its first start, once,
    // without a word; later starts find them in node_modules.
    "--node-modules-dir=auto",
    "--quiet",
    "--unstable-kv",
    `--config=${CONFIG}`,
    `--allow-net=${access.hosts.join(",")}`,
    // Deno loads a plugin's modules when it is imported, which needs the permission to read them.
    `--allow-read=${access.dataDir},${CODE}`,
    `--allow-write=${access.dataDir}`,
    "--allow-env",
    ENTRY,
  ];
}

export class SidecarSupervisor implements SidecarLink {
  readonly url: string;
  readonly token = crypto.getRandomValues(new Uint8Array(32)).toHex();
  #options: SupervisorOptions;
  #relayerUrl = "";
  #child?: Deno.ChildProcess;
  #up = false;
  #sessions = 0;
  #stopping = false;
  #restarts = 0;
  #restartsTotal = 0;
  #startedAt = 0;
  #failedProbes = 0;
  /** Aborted once the running sidecar leaves its probes unanswered; renewed when it answers. */
  #unanswered = new AbortController();
  #probeTimer?: ReturnType<typeof setInterval>;
  #probing = false;
  #restartTimer?: ReturnType<typeof setTimeout>;

  constructor(options: SupervisorOptions) {
    this.#options = options;
    const url = new URL(options.url);
    if (url.hostname === "localhost") url.hostname = "127.0.0.1";
    this.url = url.origin;
  }

  /**
   * Starts the sidecar, which reaches the relayer at `relayerUrl`, and waits (bounded) until
   * it is healthy; it keeps trying after.
   */
  async start(relayerUrl: string): Promise<void> {
    this.#relayerUrl = relayerUrl;
    this.#spawn();
    this.#probeTimer = setInterval(() => this.#probe(), PROBE_MS);
    const deadline = Date.now() + (this.#options.readyTimeoutMs ?? 30_000);
    while (!this.#up && Date.now() < deadline) {
      await this.#probe();
      if (!this.#up) await sleep(100);
    }
    if (!this.#up) {
      this.#options.logger.warn("sidecar is not healthy yet; MCP routes answer 503 until it is");
    }
  }

  status(): "up" | "down" {
    return this.#up ? "up" : "down";
  }

  /** Aborted while it runs but leaves its probes unanswered: the calls waiting on it are let go. */
  get unanswered(): AbortSignal {
    return this.#unanswered.signal;
  }

  sessions(): number {
    return this.#up ? this.#sessions : 0;
  }

  restarts(): number {
    return this.#restartsTotal;
  }

  #spawn(): void {
    const { env, logger } = this.#options;
    const relayerUrl = this.#relayerUrl;
    const passed: Record<string, string> = { ...env };
    for (const name of RUNTIME_ENV) {
      const value = Deno.env.get(name);
      if (value !== undefined) passed[name] = value;
    }
    // The relayer it calls is never behind the proxy, whatever address it listens on.
    passed.NO_PROXY = noProxy(passed.NO_PROXY || passed.no_proxy, [relayerUrl]);
    const hosts = [
      new URL(this.url).host,
      new URL(relayerUrl).host,
      ...this.#options.netHosts ?? [],
    ];
    const child = new Deno.Command(Deno.execPath(), {
      args: sidecarRunArgs({ hosts, dataDir: this.#options.dataDir }),
      env: { ...passed, SVC_SIDECAR_TOKEN: this.token, SVC_RELAYER_URL: relayerUrl },
      clearEnv: true,
      stdin: "piped",
      stdout: "inherit",
      stderr: "inherit",
      // Its own process group: a Ctrl-C or `kill %1` to the relayer's group does not reach it.
      detached: true,
    }).spawn();
    this.#child = child;
    this.#startedAt = Date.now();
    this.#failedProbes = 0;
    logger.info("sidecar started", { pid: child.pid, url: this.url });
    child.status.then((status) => this.#exited(child, status));
  }

  #exited(child: Deno.ChildProcess, status: Deno.CommandStatus): void {
    if (child !== this.#child) return;
    this.#up = false;
    this.#child = undefined;
    child.stdin.close().catch(() => {});
    if (this.#stopping) return;
    if (Date.now() - this.#startedAt > 60_000) this.#restarts = 0;
    const delay = Math.min(30_000, 500 * 2 ** this.#restarts++);
    this.#options.logger.warn("sidecar exited; restarting", {
      exit_code: status.code,
      signal: status.signal,
      restart_in_ms: delay,
    });
    this.#restartTimer = setTimeout(() => {
      this.#restartsTotal++;
      this.#spawn();
    }, delay);
  }

  async #probe(): Promise<void> {
    const child = this.#child;
    if (!child || this.#stopping || this.#probing) return;
    this.#probing = true;
    let healthy = false;
    try {
      const nonce = crypto.getRandomValues(new Uint8Array(16)).toHex();
      const response = await fetch(`${this.url}/health`, {
        headers: { "x-sidecar-token": this.token, "x-health-nonce": nonce },
        signal: AbortSignal.timeout(900),
      });
      const body = response.ok ? await response.json() : await response.body?.cancel();
      healthy = body?.proof === await healthProof(this.token, nonce);
      if (healthy) this.#sessions = Number(body.sessions) || 0;
    } catch {
      healthy = false;
    } finally {
      this.#probing = false;
    }
    if (child !== this.#child) return;
    if (healthy && !this.#up) this.#options.logger.info("sidecar is up", { pid: child.pid });
    this.#up = healthy;
    this.#failedProbes = healthy ? 0 : this.#failedProbes + 1;
    if (healthy && this.#unanswered.signal.aborted) this.#unanswered = new AbortController();
    if (this.#failedProbes >= UNANSWERED_CALLS_AFTER) this.#unanswered.abort();
    const settled = Date.now() - this.#startedAt > (this.#options.readyTimeoutMs ?? 30_000);
    if (this.#failedProbes >= HUNG_AFTER && settled) {
      this.#options.logger.warn("sidecar does not answer; killing it", { pid: child.pid });
      this.#kill(child, "SIGKILL");
    }
  }

  #kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }

  /** Stops the sidecar: closes its stdin, then SIGKILL after the grace period. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#up = false;
    clearInterval(this.#probeTimer);
    clearTimeout(this.#restartTimer);
    const child = this.#child;
    if (!child) return;
    await child.stdin.close().catch(() => {});
    const graceful = await Promise.race([
      child.status.then(() => true),
      sleep(this.#options.graceMs ?? 5000).then(() => false),
    ]);
    if (!graceful) this.#kill(child, "SIGKILL");
    await child.status;
  }
}
