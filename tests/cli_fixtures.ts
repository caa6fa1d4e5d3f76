/**
 * The operator CLI (`cli/svc.ts`) run as a process against an in-process relayer on a loopback
 * port, for the tests of export, import and the CLI's command line.
 */
import { type ExportedMemory, SvcClient } from "../src/client/mod.ts";
import type { RelayerOptions } from "../src/relayer.ts";
import { BASE, type Caller, startTestRelayer, type TestRelayer } from "./fixtures.ts";
import { ROOT } from "./relayer_process.ts";

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
  /** Run as `deno task svc`, as a user does (`cwd` is then where the task is started). */
  task?: boolean;
}

/** Runs `svc <args>` as `who` (nothing of this process's environment is passed on). */
export async function svc(
  stack: Pick<Stack, "url">,
  who: Caller,
  args: string[],
  options: RunOptions | string = {},
): Promise<Run> {
  const { passphrase, env: more, cwd, task } = typeof options === "string"
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
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: task
      ? ["task", "--quiet", "--config", `${ROOT}deno.json`, "svc", ...args]
      : ["run", "--allow-all", "--unstable-kv", `${ROOT}cli/svc.ts`, ...args],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    cwd: cwd ?? ROOT,
  }).output();
  const text = new TextDecoder().decode(stdout);
  const run = { code, stdout: text, stderr: new TextDecoder().decode(stderr), json: {} };
  if (args.includes("--json") && text.trim()) run.json = JSON.parse(text);
  return run;
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
