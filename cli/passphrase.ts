/**
 * The passphrase of an export file, from `--passphrase-file`, else `SVC_EXPORT_PASSPHRASE`,
 * else a prompt on the terminal that does not echo. Never from a flag's value: it would stay
 * in the shell's history and in the process list.
 */
import { UsageError } from "./client_flags.ts";

/** The shortest passphrase a new export takes. */
const MIN_PASSPHRASE_CHARS = 8;

/** The terminal a passphrase is asked on: standard input (raw) and standard error. */
export interface PromptTerminal {
  stdin: {
    isTerminal(): boolean;
    setRaw(mode: boolean): void;
    read(buffer: Uint8Array): Promise<number | null>;
  };
  stderr: { writeSync(bytes: Uint8Array): number };
}

/** Where a passphrase may come from. */
export interface PassphraseSources {
  /** `--passphrase-file`: its first line. */
  file?: string;
  env: (name: string) => string | undefined;
  terminal: PromptTerminal;
  /** A new export: asked twice on the terminal, and at least `MIN_PASSPHRASE_CHARS` long. */
  confirm?: boolean;
}

/** Reads a line on a raw terminal without echoing it; Ctrl-C or Ctrl-D cancels. */
async function promptHidden(terminal: PromptTerminal, question: string): Promise<string> {
  const { stdin, stderr } = terminal;
  stderr.writeSync(new TextEncoder().encode(question));
  stdin.setRaw(true);
  const bytes: number[] = [];
  const buffer = new Uint8Array(64);
  try {
    for (;;) {
      const n = await stdin.read(buffer);
      if (n === null) throw new UsageError("no passphrase was entered");
      for (const byte of buffer.subarray(0, n)) {
        if (byte === 0x03 || byte === 0x04) throw new UsageError("cancelled");
        if (byte === 0x0d || byte === 0x0a) {
          return new TextDecoder().decode(new Uint8Array(bytes));
        }
        if (byte === 0x7f || byte === 0x08) {
          // Back one character: drop the UTF-8 continuation bytes with it.
          while (bytes.length > 0 && (bytes.pop()! & 0xc0) === 0x80);
        } else bytes.push(byte);
      }
    }
  } finally {
    stdin.setRaw(false);
    stderr.writeSync(new TextEncoder().encode("\n"));
  }
}

/** The passphrase, from the first of its sources that gives one. */
export async function readPassphrase(sources: PassphraseSources): Promise<string> {
  let passphrase: string | undefined;
  if (sources.file !== undefined) {
    let text: string;
    try {
      text = await Deno.readTextFile(sources.file);
    } catch (error) {
      throw new UsageError(
        `cannot read --passphrase-file ${sources.file}: ${(error as Error).message}`,
      );
    }
    passphrase = text.split(/\r?\n/)[0];
    if (!passphrase) throw new UsageError(`--passphrase-file ${sources.file} is empty`);
  } else if (sources.env("SVC_EXPORT_PASSPHRASE")) {
    passphrase = sources.env("SVC_EXPORT_PASSPHRASE")!;
  } else {
    const { terminal } = sources;
    if (!terminal.stdin.isTerminal()) {
      throw new UsageError(
        "no passphrase: give --passphrase-file PATH, set SVC_EXPORT_PASSPHRASE, or run in a " +
          "terminal to be asked",
      );
    }
    passphrase = await promptHidden(terminal, "Passphrase: ");
    if (sources.confirm) {
      const again = await promptHidden(terminal, "The same passphrase again: ");
      if (again !== passphrase) throw new UsageError("the two passphrases differ");
    }
  }
  if (sources.confirm && [...passphrase].length < MIN_PASSPHRASE_CHARS) {
    throw new UsageError(
      `the passphrase must be at least ${MIN_PASSPHRASE_CHARS} characters: the file is ` +
        "only as safe as it is",
    );
  }
  if (!passphrase) throw new UsageError("the passphrase is empty");
  return passphrase;
}
