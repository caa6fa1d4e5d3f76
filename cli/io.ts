/**
 * What a command line reads and writes besides files and the network: its environment, standard
 * streams and folder. The process passes its own (`processIo`); tests pass theirs and run a
 * command in-process.
 */
import type { PromptTerminal } from "./passphrase.ts";
import type { ProgressOutput } from "./progress.ts";

export interface CliIo {
  env: Record<string, string | undefined>;
  /** Where a passphrase is asked, and where `update` reads its text without `--text`. */
  stdin: PromptTerminal["stdin"] & { readable: ReadableStream<Uint8Array> };
  stdout: { writeSync(bytes: Uint8Array): number };
  stderr: ProgressOutput;
  /** The folder relative paths are resolved in. */
  cwd: string;
  /** How client commands send their requests (`fetch` unless given). */
  fetch?: typeof globalThis.fetch;
}

/** The process's own environment, streams and folder. */
export function processIo(): CliIo {
  return {
    env: Deno.env.toObject(),
    stdin: Deno.stdin,
    stdout: Deno.stdout,
    stderr: Deno.stderr,
    cwd: Deno.cwd(),
  };
}

/** Writes `text` and a line break to `out`. */
export function writeLine(out: { writeSync(bytes: Uint8Array): number }, text: string): void {
  const bytes = new TextEncoder().encode(`${text}\n`);
  for (let written = 0; written < bytes.length;) {
    written += out.writeSync(bytes.subarray(written));
  }
}
