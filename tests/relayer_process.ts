/** Runs the real relayer (`main.ts`) and the operator CLI as child processes for e2e tests. */
import { loadMasterKey } from "../app/master_key.ts";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LOCAL_PACKAGE_ID } from "../plugins/local_ledger/mod.ts";
import { type RememberAnswer, SvcClient } from "../src/client/mod.ts";
import { addressOf } from "@svc/util/keys";
import { taskCommand } from "./task_flags.ts";

/** The checkout's root folder, where `main.ts` and `deno.json` are. */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

export interface RelayerProcess extends AsyncDisposable {
  url: string;
  process: Deno.ChildProcess;
  /** Everything the relayer (and its sidecar) wrote to stderr so far. */
  log(): string;
  /** SIGKILL (to the whole process group when started with `processGroup`), then wait for the exit. */
  kill(): Promise<void>;
  /** SIGTERM, then wait for a clean exit. */
  stop(): Promise<Deno.CommandStatus>;
}

export const TEST_MODELS_DIR = `${Deno.env.get("TMPDIR") ?? "/tmp"}/svc-test-models`;
/**
 * Fills `modelsDir` with links to what the tests' shared models directory holds (GloVe and `use`
 * converted once), for a test whose downloads must not land in the shared one.
 */
export async function linkTestModels(modelsDir: string): Promise<void> {
  await Deno.mkdir(modelsDir, { recursive: true });
  await Deno.mkdir(TEST_MODELS_DIR, { recursive: true });
  for await (const entry of Deno.readDir(TEST_MODELS_DIR)) {
    if (entry.isFile) {
      await Deno.symlink(`${TEST_MODELS_DIR}/${entry.name}`, `${modelsDir}/${entry.name}`);
    }
  }
}

/** The `SVC_ONNX_*` settings of this process's environment. */
function onnxSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(Deno.env.toObject()).filter(([name]) => name.startsWith("SVC_ONNX_")),
  );
}

/** Where the test relayers keep their data directories' master keys (not the user's own). */
export const TEST_KEYS_DIR = `${Deno.env.get("TMPDIR") ?? "/tmp"}/svc-test-keys`;

/** The master key of a data directory a test relayer (or `svcCli`) used. */
export function testMasterKey(dataDir: string): Promise<Uint8Array<ArrayBuffer>> {
  return loadMasterKey(dataDir, { keysDir: TEST_KEYS_DIR });
}

/** The coverage directory of a `deno test --coverage` run, so a child's lines are counted too. */
export function coverageEnv(): Record<string, string> {
  const dir = Deno.env.get("DENO_COVERAGE_DIR");
  return dir ? { DENO_COVERAGE_DIR: dir } : {};
}

/** The environment of a process started with a cleared one, as a host starts `svc-mcp`. */
export function hostEnv(home: string): Record<string, string> {
  return { HOME: home, PATH: Deno.env.get("PATH") ?? "", ...coverageEnv() };
}

/**
 * A loopback port that was free a moment ago, for a process to listen on later. It is drawn below
 * Linux's ephemeral range (32768 and up), where the system takes no port for outgoing connections
 * (port 0 draws from that range, and a busy test run's connections could take it meanwhile).
 */
export function freePort(): number {
  while (true) {
    const port = 20_000 + Math.floor(Math.random() * 12_768);
    try {
      Deno.listen({ hostname: "127.0.0.1", port }).close();
      return port;
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    }
  }
}

/**
 * Starts `main.ts` (and so its sidecar) on free ports with `dataDir`; resolves once it listens.
 * With `processGroup`, the relayer leads a process group of its own (its sidecar included), and
 * `kill` sends SIGKILL to the whole group at once. `root` is the checkout whose `main.ts` runs
 * (this one by default; a benchmark's baseline runs another commit's) with the flags of that
 * checkout's `deno task start`; `flags` are added to them (a benchmark's `--cpu-prof`).
 */
export async function startRelayer(
  dataDir: string,
  env: Record<string, string> = {},
  options: { processGroup?: boolean; root?: string; flags?: string[]; maxFiles?: number } = {},
): Promise<RelayerProcess> {
  const group = options.processGroup ?? false;
  const root = options.root ?? ROOT;
  const args = taskCommand("start", [], { root, extra: options.flags });
  // `maxFiles`: the open files the process may hold, as `ulimit -n` sets it.
  const [command, commandArgs] = options.maxFiles === undefined
    ? [Deno.execPath(), args]
    : ["bash", [
      "-c",
      `ulimit -n ${options.maxFiles} && exec "$@"`,
      "bash",
      Deno.execPath(),
      ...args,
    ]];
  const process = new Deno.Command(command, {
    args: commandArgs,
    env: {
      SVC_DATA_DIR: dataDir,
      SVC_PORT: "0",
      SVC_DASHBOARD_PORT: "0",
      SIDECAR_URL: `http://127.0.0.1:${freePort()}`,
      SVC_LOG_LEVEL: "info",
      // The word vectors are converted once per machine, not once per test.
      SVC_MODELS_DIR: TEST_MODELS_DIR,
      SVC_KEYS_DIR: TEST_KEYS_DIR,
      // No test reaches the real model hub: a relayer without SVC_EMBEDDER finds none.
      SVC_HF_ENDPOINT: `http://127.0.0.1:${freePort()}`,
      // GloVe, quick to load, unless the test (or, for a benchmark, the environment) names
      // another ("" leaves the relayer's default, `use`).
      SVC_EMBEDDER: Deno.env.get("SVC_EMBEDDER") ?? "local",
      // And, for a benchmark, the ONNX model it names (SVC_ONNX_MODEL_DIR, SVC_ONNX_THREADS …).
      ...onnxSettings(),
      ...env,
    },
    stdout: "null",
    stderr: "piped",
    cwd: root,
    detached: group,
  }).spawn();
  const lines = process.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let url = "";
  while (!url) {
    const { value, done } = await lines.read();
    if (done) throw new Error(`relayer exited before listening:\n${buffered}`);
    buffered += value;
    url = buffered.match(/"url":"(http:\/\/[^"]+)"/)?.[1] ?? "";
  }
  // Keep draining stderr so the child never blocks on a full pipe.
  const drained = (async () => {
    while (true) {
      const { value, done } = await lines.read();
      if (done) break;
      buffered += value;
    }
  })();
  let status: Promise<Deno.CommandStatus> | undefined;
  const finish = async (signal: Deno.Signal) => {
    if (!status) {
      try {
        if (group && signal === "SIGKILL") Deno.kill(-process.pid, signal);
        else process.kill(signal);
      } catch { /* already gone */ }
      status = process.status;
    }
    const result = await status;
    await drained;
    return result;
  };
  return {
    url,
    process,
    log: () => buffered,
    kill: async () => void await finish("SIGKILL"),
    stop: () => finish("SIGTERM"),
    [Symbol.asyncDispose]: async () => void await finish("SIGKILL"),
  };
}

/** The dashboard's origin, as the relayer logs it once it listens (on the port it was given). */
export async function dashboardUrl(relayer: RelayerProcess): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const url = relayer.log().match(/"dashboard listening".*?"url":"(http:\/\/[^"]+)"/)?.[1];
    if (url) return url;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the dashboard did not listen:\n${relayer.log()}`);
}

/** Deletes the data directory's vector index (the encrypted index's database files). */
export async function removeIndex(dataDir: string): Promise<void> {
  for (const suffix of ["", "-wal", "-shm"]) {
    await Deno.remove(`${dataDir}/index.sqlite${suffix}`).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
}

/** Runs `cli/svc.ts` as `deno task svc` does, with `--json`, and returns its one JSON object. */
export async function svcCli(
  dataDir: string,
  args: string[],
  env: Record<string, string> = {},
  root = ROOT,
) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc", [...args, "--json"], { root }),
    env: { SVC_DATA_DIR: dataDir, SVC_KEYS_DIR: TEST_KEYS_DIR, ...env },
    cwd: root,
  }).output();
  const text = new TextDecoder().decode(stdout);
  if (code !== 0) {
    throw new Error(
      `svc ${args.join(" ")} exited ${code}: ${text} ${new TextDecoder().decode(stderr)}`,
    );
  }
  return JSON.parse(text);
}

/** The job of a remember answer; throws for a duplicate, which has none. */
export function jobIdOf(answer: RememberAnswer): string {
  if (answer.status === "duplicate") {
    throw new Error(`the text is already remembered as ${answer.duplicate_of}`);
  }
  return answer.job_id;
}

/** Creates an account and a delegate key through the CLI and returns a client for it. */
export async function newAccountClient(dataDir: string, url: string) {
  const { accountId, owner } = await svcCli(dataDir, ["account", "create"]);
  const key = await svcCli(dataDir, ["key", "add", "--account", accountId, "--label", "e2e"]);
  const client = await SvcClient.create({ baseUrl: url, privateKey: key.privateKey, accountId });
  return { accountId, owner, privateKey: key.privateKey as string, client };
}

/**
 * Does what the dashboard's Approve does for a sign-in `link`: registers its key on the
 * account through the CLI, then posts the callback to the agent's listener as `dashboard`.
 * Returns the listener's answer status.
 */
export async function approveSignIn(
  dataDir: string,
  link: URL,
  account: { accountId: string; owner: string },
  dashboard: string,
): Promise<number> {
  const params = link.searchParams;
  await svcCli(dataDir, [
    "key",
    "add",
    "--account",
    account.accountId,
    "--public-key",
    params.get("publicKey")!,
    "--label",
    params.get("label")!,
  ]);
  const answer = await fetch(`http://127.0.0.1:${params.get("port")}/callback`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: dashboard },
    body: JSON.stringify({
      accountId: account.accountId,
      walletAddress: account.owner,
      packageId: LOCAL_PACKAGE_ID,
      txDigest: "local",
      label: params.get("label"),
      state: params.get("state"),
    }),
  });
  await answer.body?.cancel();
  return answer.status;
}

/** Resolves once the relayer reports its sidecar up (30 s at most). */
export async function waitForSidecar(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if ((await (await fetch(`${url}/health`)).json()).sidecar === "up") return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the sidecar did not come up");
}

/** The stdio package spawned as an MCP host spawns it (pipes, no TTY), with `HOME` = `home`. */
export async function connectStdioPackage(args: string[], home: string): Promise<Client> {
  const client = new Client({ name: "test-host", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: Deno.execPath(),
      args: taskCommand("svc-mcp", args),
      env: hostEnv(home),
      cwd: ROOT,
      stderr: "ignore",
    }),
  );
  return client;
}

/** The stdio package spawned with raw pipes, so a test can close its stdin as a host does. */
export interface StdioHost extends AsyncDisposable {
  process: Deno.ChildProcess;
  /** Sends a JSON-RPC request on stdin and resolves with its answer from stdout. */
  request(method: string, params?: unknown): Promise<Record<string, unknown>>;
  /** Writes `line` as it is and resolves with the answer carrying `id` (`null` for none). */
  answerTo(line: string, id: number | null): Promise<Record<string, unknown>>;
  /** A tool call's text (`isError` results included). */
  callTool(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Closes stdin, as a host that quits or drops the server does. */
  closeStdin(): Promise<void>;
  /** Everything written to stderr so far. */
  stderr(): string;
}

export async function spawnStdioHost(
  args: string[],
  home: string,
  env: Record<string, string> = {},
): Promise<StdioHost> {
  const process = new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc-mcp", args),
    env: { ...hostEnv(home), ...env },
    clearEnv: true,
    cwd: ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = process.stdin.getWriter();
  const waiting = new Map<number | null, (message: Record<string, unknown>) => void>();
  let errors = "";
  (async () => {
    for await (const chunk of process.stderr.pipeThrough(new TextDecoderStream())) errors += chunk;
  })();
  (async () => {
    let buffered = "";
    for await (const chunk of process.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let newline;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
        waiting.get(message.id)?.(message);
      }
    }
  })();
  let nextId = 1;
  const write = (line: string) => writer.write(new TextEncoder().encode(line + "\n"));
  const send = (message: unknown) => write(JSON.stringify(message));
  const request = async (method: string, params: unknown = {}) => {
    const id = nextId++;
    const answer = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    await send({ jsonrpc: "2.0", id, method, params });
    return await answer;
  };
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "test-host", version: "1.0.0" },
  });
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  return {
    process,
    request,
    async answerTo(line, id) {
      const answer = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
      await write(line);
      return await answer;
    },
    async callTool(name, args = {}) {
      const answer = await request("tools/call", { name, arguments: args });
      const result = answer.result as { content: { text: string }[] };
      return result.content.map((c) => c.text).join("");
    },
    closeStdin: () => writer.close(),
    stderr: () => errors,
    async [Symbol.asyncDispose]() {
      try {
        process.kill("SIGKILL");
      } catch { /* already gone */ }
      await process.status;
    },
  };
}

/** The process's exit status, or `null` if it is still running after `ms`. */
export function exitWithin(
  process: Deno.ChildProcess,
  ms: number,
): Promise<Deno.CommandStatus | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    process.status.finally(() => clearTimeout(timer)),
    new Promise<null>((resolve) => timer = setTimeout(() => resolve(null), ms)),
  ]);
}

/** `svc-mcp login` run from a terminal, once it has printed its sign-in link. */
export interface TerminalLogin {
  process: Deno.ChildProcess;
  /** The `/connect/mcp` link it printed. */
  link: URL;
  /** Its stderr once it has exited (everything it printed, link included). */
  stderr(): Promise<string>;
}

/** Runs `svc-mcp login ARGS` with `home` as its HOME; resolves once it prints the link. */
export async function startTerminalLogin(args: string[], home: string): Promise<TerminalLogin> {
  const process = new Deno.Command(Deno.execPath(), {
    args: taskCommand("svc-mcp", ["login", ...args, "--no-browser"]),
    env: hostEnv(home),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = process.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let printed = "";
  let link: string | undefined;
  while (!link) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`svc-mcp login exited early:\n${printed}`);
    printed += value;
    link = printed.match(/http:\/\/localhost:\d+\/connect\/mcp\?\S+/)?.[0];
  }
  return {
    process,
    link: new URL(link),
    async stderr() {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        printed += read.value;
      }
      return printed;
    },
  };
}

/** Saves credentials for `key` of `accountId` in `home`, as `svc-mcp login` does. */
export async function saveCredentials(
  home: string,
  relayerUrl: string,
  accountId: string,
  key: { privateKey: string; publicKey: string },
) {
  await Deno.mkdir(`${home}/.svc`, { mode: 0o700 });
  await Deno.writeTextFile(
    `${home}/.svc/credentials.json`,
    JSON.stringify({
      version: 1,
      delegatePrivateKey: key.privateKey,
      delegatePublicKey: key.publicKey,
      delegateAddress: addressOf(key.publicKey),
      walletAddress: "0x1",
      accountId,
      packageId: LOCAL_PACKAGE_ID,
      relayerUrl,
      label: "host",
      createdAt: new Date().toISOString(),
    }),
    { mode: 0o600 },
  );
}
