/**
 * The operator CLI (`cli/svc.ts`) run against an in-process relayer on a loopback port, in this
 * process (or as a process of its own), for the tests of export, import and the command line.
 */
import { type ExportedMemory, SvcClient } from "../src/client/mod.ts";
import type { RelayerOptions } from "../src/relayer.ts";
import { BASE, type Caller, startTestRelayer, type TestRelayer } from "./fixtures.ts";
import { coverageEnv, ROOT } from "./relayer_process.ts";
import { taskCommand } from "./task_flags.ts";
import { main } from "../cli/svc.ts";

export const PASSPHRASE = "a long and memorable passphrase";

/** What a run of `svc` did. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, with `--json`. */
  json: Record<string, unknown>;
}

/** A relayer on a loopback port, and a folder for the files of a test. */
export interface Stack extends AsyncDisposable {
  test: TestRelayer;
  url: string;
  dir: string;
}

export async function startStack(overrides: Partial<RelayerOptions> = {}): Promise<Stack> {
  // The in-process fixtures sign for BASE; the CLI for the loopback URL.
  const audiences = new Set<string>([BASE]);
  const test = await startTestRelayer({ audiences, ...overrides });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    test.relayer.handler,
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  audiences.add(url);
  const dir = await Deno.makeTempDir({ prefix: "svc-export-test-" });
  return {
    test,
    url,
    dir,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await test[Symbol.asyncDispose]();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** How `svc` is run besides its arguments. */
export interface RunOptions {
  /** `SVC_EXPORT_PASSPHRASE`, when given. */
  passphrase?: string;
  /** More environment (it replaces the caller's own settings of the same names). */
  env?: Record<string, string>;
  /** The folder it runs in (the checkout's root by default). */
  cwd?: string;
  /** Run as `deno task svc` in a process of its own, as a user does (`cwd` is then where the task is started). */
  task?: boolean;
  /** Run as `deno run cli/svc.ts` in a process of its own (in this process by default). */
  process?: boolean;
  /** What it reads on standard input (nothing by default). */
  stdin?: string;
}

/** Whether `args` ask for JSON: `--json` before any `--` (after it, it is text). */
export function asksJson(args: string[]): boolean {
  const end = args.indexOf("--");
  return args.slice(0, end === -1 ? undefined : end).includes("--json");
}

/**
 * Runs `svc <args>` as `who`, in this process unless `options` asks for a process (nothing of
 * this process's environment is passed on).
 */
export async function svc(
  stack: Pick<Stack, "url">,
  who: Caller,
  args: string[],
  options: RunOptions | string = {},
): Promise<Run> {
  const { passphrase, env: more, cwd, task, process, stdin } = typeof options === "string"
    ? { passphrase: options } as RunOptions
    : options;
  const env: Record<string, string> = {
    SVC_SERVER_URL: stack.url,
    SVC_DELEGATE_KEY: who.key.privateKey,
    SVC_ACCOUNT_ID: who.accountId,
    SVC_DATA_DIR: "/nonexistent-svc-cli-test",
    ...(passphrase !== undefined && { SVC_EXPORT_PASSPHRASE: passphrase }),
    ...more,
  };
  const run = task || process
    ? await svcProcess(args, env, cwd ?? ROOT, task, stdin)
    : await svcInProcess(args, env, cwd ?? ROOT, stdin);
  if (asksJson(args) && run.stdout.trim()) run.json = JSON.parse(run.stdout);
  return run;
}

/** Runs `svc <args>` with `env` as its whole environment, in this process. */
export async function svcInProcess(
  args: string[],
  env: Record<string, string>,
  cwd = ROOT,
  stdinText?: string | Uint8Array,
  fetch?: typeof globalThis.fetch,
): Promise<Run> {
  const stdout = new Captured();
  const stderr = new Captured();
  const bytes = typeof stdinText === "string" ? new TextEncoder().encode(stdinText) : stdinText;
  const stdin = {
    isTerminal: () => false,
    readable: ReadableStream.from(bytes ? [bytes] : []),
    setRaw() {},
    read: () => Promise.resolve(null),
  };
  const code = await main(args, { env, stdin, stdout, stderr, cwd, fetch });
  return { code, stdout: stdout.text(), stderr: stderr.text(), json: {} };
}

/** Runs `svc <args>` in a process of its own, with `env` as its whole environment. */
async function svcProcess(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  task?: boolean,
  stdinText?: string,
): Promise<Run> {
  const child = new Deno.Command(Deno.execPath(), {
    args: task
      ? ["task", "--quiet", "--config", `${ROOT}deno.json`, "svc", ...args]
      : taskCommand("svc", args),
    env: { ...coverageEnv(), ...env },
    clearEnv: true,
    stdin: stdinText === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    cwd,
  }).spawn();
  if (stdinText !== undefined) {
    await ReadableStream.from([new TextEncoder().encode(stdinText)]).pipeTo(child.stdin);
  }
  const { code, stdout, stderr } = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, stdout: decode(stdout), stderr: decode(stderr), json: {} };
}

/** A standard stream that keeps what is written to it, and is no terminal. */
export class Captured {
  #decoder = new TextDecoder();
  #text = "";
  isTerminal = () => false;
  writeSync(bytes: Uint8Array): number {
    this.#text += this.#decoder.decode(bytes, { stream: true });
    return bytes.length;
  }
  text(): string {
    return this.#text + this.#decoder.decode();
  }
}

export function clientOf(stack: Stack, who: Caller): Promise<SvcClient> {
  return SvcClient.create({
    baseUrl: stack.url,
    privateKey: who.key.privateKey,
    accountId: who.accountId,
  });
}

/** Every memory `client` may export. */
export async function exported(client: SvcClient): Promise<ExportedMemory[]> {
  const out = [];
  for await (const memory of client.export()) out.push(memory);
  return out;
}
