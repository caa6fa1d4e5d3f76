/**
 * `svc export` and `svc import`: an owner's memories into a portable file encrypted under a
 * passphrase (`cli/portable/export_file.ts`), and back; and other services' files
 * (`cli/portable/foreign.ts`) into svc. Progress goes to standard error.
 */
import { dirname, resolve } from "node:path";
import {
  exportPath,
  type ImportFailure,
  type ImportProgress,
  type ImportSummary,
  SvcClient,
  textLines,
} from "@svc/relayer/client";
import { SvcError } from "@svc/relayer/kit";
import { readBounded } from "@svc/util/read_bounded";
import { sleep } from "@svc/util/sleep";
import {
  decryptExport,
  encryptExport,
  EXPORT_VERSION,
  type ExportKey,
} from "./portable/export_file.ts";
import {
  FOREIGN_FORMATS,
  type ForeignFormat,
  type ForeignImport,
  fromMcpMemory,
  fromMem0,
  parseOrUndefined,
} from "./portable/foreign.ts";
import {
  FORMAT_NAMES,
  formatOfText,
  type ImportFormat,
  isExportFile,
  startsExport,
  utf8Text,
} from "./import_formats.ts";
import { PipeCopy } from "./pipe_copy.ts";
import { readPassphrase } from "./passphrase.ts";
import {
  FileWriteError,
  onStopSignal,
  removeStalePartials,
  writeFileAtomically,
} from "./partial_file.ts";
import { ProgressBar } from "./progress.ts";
import { type CliIo, writeLine } from "./io.ts";
import { clientOptions, need, UsageError } from "./client_flags.ts";
import { type Output } from "./svc_memories.ts";
import type { Flags, Invocation } from "./svc_command_line.ts";

export const PORTABILITY_USAGE = `Export and import (signed client, as above):
  export [--namespace NS... | --all] -o FILE
                                         the memories of each NS, or of every namespace the
                                         key may read (the default), into FILE encrypted
                                         under a passphrase
  import FILE [--namespace NS] [--wait]  a file made by svc export (into NS if given)
  import --from jsonl FILE [--namespace NS] [--wait]
                                         the JSON lines GET /api/export answers, as they are
                                         (into NS if given)
  import --from mcp-memory|mem0 FILE [--namespace NS] [--wait]
                                         the reference MCP memory server's memory.jsonl, or
                                         mem0's memories as JSON (into NS, else "default")
  The passphrase comes from --passphrase-file PATH, else SVC_EXPORT_PASSPHRASE, else a
  prompt; never from a flag. Importing the same file again adds nothing.`;

/** The passphrase of `--passphrase-file`, `SVC_EXPORT_PASSPHRASE` or the prompt. */
const passphraseOf = (values: Flags, io: CliIo, confirm?: boolean) =>
  readPassphrase({
    file: values["passphrase-file"],
    env: (name) => io.env[name],
    terminal: io,
    confirm,
  });

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    // (A file where a folder of the path should be: there is no folder to write in.)
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return false;
    }
    throw error;
  }
}

/** Passes bytes through, telling `seen` the running total of what `count` finds in them. */
function counter(count: (chunk: Uint8Array) => number, seen: (total: number) => void) {
  let total = 0;
  return new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      total += count(chunk);
      seen(total);
      controller.enqueue(chunk);
    },
  });
}

/** The line breaks in `chunk`. */
const lineBreaks = (chunk: Uint8Array) => chunk.filter((byte) => byte === 0x0a).length;

async function runExport(client: SvcClient, values: Flags, io: CliIo) {
  if (values.all && values.namespace !== undefined) {
    throw new UsageError("give --namespace NS or --all, not both");
  }
  const output = need(values.output, "-o FILE (where to write the export)");
  if (await exists(output)) {
    throw new SvcError("conflict", `${output} exists already: choose another file or remove it`);
  }
  const folder = dirname(resolve(output));
  if (!(await Deno.stat(folder).catch(() => undefined))?.isDirectory) {
    throw new UsageError(`there is no folder ${folder} to write ${output} in`);
  }
  for (const name of await removeStalePartials(output)) {
    writeLine(io.stderr, `svc: removed ${name}, left by an export that was killed before it ended`);
  }
  const passphrase = await passphraseOf(values, io, true);
  const namespaces = values.namespaces ?? [values.namespace ?? []].flat();
  const response = await client.send("GET", exportPath({ namespace: namespaces }));
  const total = Number(response.headers.get("x-svc-export-count")) || 0;
  const bar = new ProgressBar(io.stderr, "export");
  let memories = 0;
  const plaintext = response.body!.pipeThrough(counter(lineBreaks, (lines) => {
    memories = lines;
    bar.update(lines, total);
  }));
  const bytes = await writeFileAtomically(
    output,
    plaintext.pipeThrough(await encryptExport(passphrase)),
  ).catch((error) => {
    bar.finish();
    if (error instanceof SvcError) throw error;
    if (error instanceof FileWriteError) {
      throw new FileWriteError(`${error.message}; nothing was written to ${output}`, {
        cause: error,
      });
    }
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new SvcError(
        "conflict",
        `${output} was made by another program while the export ran: it was left as it is; ` +
          "export again to another file",
      );
    }
    throw new SvcError(
      "backend_unavailable",
      `Cannot finish the export: it broke off after ${memories} memories (${
        (error as Error).message
      }); nothing was written to ${output}`,
    );
  });
  bar.update(memories, memories);
  bar.finish();
  // Listed when the export began but not in it: manual memories, whose text the relayer cannot
  // read, and memories erased, replaced or expired meanwhile.
  const left = Math.max(0, total - memories);
  // Their logs are not in it: the relayer holds no text of them.
  const blind = (await blindNamespaces(client)).filter((name) =>
    namespaces.length === 0 || namespaces.includes(name)
  );
  return {
    json: {
      file: output,
      memories,
      left_out: left,
      blind_left_out: blind,
      bytes,
      format: "svc-export",
      version: EXPORT_VERSION,
    },
    text: `exported ${memories} ${memories === 1 ? "memory" : "memories"} to ${output} ` +
      "(encrypted: it opens only with its passphrase)" +
      (left > 0
        ? `; ${left} left out: manual memories, whose text the relayer cannot read, and any ` +
          "erased, updated or expired during the export"
        : "") +
      (blind.length > 0
        ? "; not in it, the logs of the operator-blind " +
          `${blind.map((name) => JSON.stringify(name)).join(", ")} ` +
          "(svc blind export --namespace NS --output FILE exports one)"
        : ""),
  };
}

/**
 * The names of the caller's operator-blind namespaces, which an export of all leaves out; none
 * where the relayer does not say (the export is written by then).
 */
async function blindNamespaces(client: SvcClient): Promise<string[]> {
  const answer = await client.blindNamespaces().catch(() => undefined);
  const namespaces = Array.isArray(answer?.namespaces) ? answer.namespaces : [];
  return namespaces.map(({ namespace }) => namespace);
}

/**
 * The line with its namespace replaced (one that is not a JSON object goes as it is, for the
 * relayer to say what it is).
 */
function intoNamespace(line: string, namespace: string | undefined): string {
  if (namespace === undefined) return line;
  const value = parseOrUndefined(line);
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  return isObject ? JSON.stringify({ ...value, namespace }) : line;
}

/**
 * An export file's lines, checked whole first: nothing is sent from an altered file. It is read
 * twice (checked, then sent): a pipe, which reads once, through its temporary copy.
 */
async function exportFileLines(file: string, values: Flags, io: CliIo, pipe?: PipeCopy) {
  const passphrase = await passphraseOf(values, io);
  const open = async () => (await Deno.open(file)).readable;
  const size = pipe ? undefined : (await Deno.stat(file)).size;
  const bar = new ProgressBar(io.stderr, "check ", { unit: "bytes" });
  const counted = (pipe ? pipe.stream() : await open()).pipeThrough(
    counter((chunk) => chunk.length, (read) => bar.update(read, size)),
  );
  let total = 0, key: ExportKey | undefined;
  // The bar's line ends before anything else is said, an error (a wrong passphrase) included.
  try {
    const first = await decryptExport(counted, passphrase);
    key = first.key;
    for await (const line of textLines(first.plaintext)) if (line.trim() !== "") total++;
  } finally {
    bar.finish();
  }
  const origins: string[] = [];
  async function* lines() {
    const { plaintext } = await decryptExport(pipe ? pipe.again() : await open(), key!);
    let number = 0;
    for await (const line of textLines(plaintext)) {
      number++;
      if (line.trim() === "") continue;
      origins.push(`line ${number}`);
      yield intoNamespace(line, values.namespace);
    }
  }
  return { lines: lines(), origins, total, failed: [] as ForeignImport["failed"] };
}

/** The JSON lines of `GET /api/export` (not encrypted), as they are. */
function jsonLines(text: string, namespace?: string) {
  const origins: string[] = [];
  const lines: string[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    origins.push(`line ${i + 1}`);
    lines.push(intoNamespace(line, namespace));
  });
  return { lines, origins, total: lines.length, failed: [] as ForeignImport["failed"] };
}

/** A foreign file's lines (read whole: such files are small). */
function foreignLines(text: string, format: ForeignFormat, namespace?: string) {
  const read = format === "mem0" ? fromMem0(text) : fromMcpMemory(text);
  const origins = read.lines.map(({ origin }) => origin);
  const lines = read.lines.map(({ line }) => ({ ...line, namespace }));
  return { lines, origins, total: lines.length, failed: read.failed };
}

/**
 * The names of standard input, read as a pipe is: Deno lets a command without every permission
 * open no device of `/dev/fd` or `/proc` by its path.
 */
const STANDARD_INPUT = new Set(["-", "/dev/stdin"]);

/** The file to import, or standard input where `file` names it. */
async function opened(file: string, io: CliIo): Promise<ReadableStream<Uint8Array>> {
  return STANDARD_INPUT.has(file) ? io.stdin.readable : (await Deno.open(file)).readable;
}

/** The most bytes of a file to import that is not an export: it is read whole. */
const MAX_TEXT_FILE_BYTES = 256 * 1024 * 1024;

/** A file's text (a byte order mark dropped), refused unless it is UTF-8, and not too large. */
async function utf8File(file: string, io: CliIo): Promise<string> {
  const bytes = await readBounded(
    new Response(await opened(file, io)),
    MAX_TEXT_FILE_BYTES,
    {
      tooLarge: () =>
        new UsageError(
          `Cannot import ${file}: a file other than an svc export may be at most ` +
            `${MAX_TEXT_FILE_BYTES / 1024 / 1024} MiB (nothing was sent)`,
        ),
    },
  );
  const read = utf8Text(bytes);
  if ("text" in read) return read.text;
  throw new UsageError(
    `Cannot import ${file}: line ${read.badLine} is not UTF-8 text (nothing was sent)`,
  );
}

/**
 * The text of a file to import with `--from` (read whole), refused when its first record is of
 * another format than `format`, naming the `--from` that reads it.
 */
async function textToImport(file: string, format: string, io: CliIo): Promise<string> {
  const text = await utf8File(file, io);
  const found = formatOfText(text);
  if (found === "svc-export") {
    throw new UsageError(`${file} is a file of svc export (encrypted): import it without --from`);
  }
  if (found !== undefined && found !== format) {
    throw new UsageError(
      `${file} is ${FORMAT_NAMES[found]}, not ${
        FORMAT_NAMES[format as ImportFormat]
      }: import it with --from ${found}`,
    );
  }
  return text;
}

/**
 * Waits until every job is done or failed; how many failed, and how many found their text
 * remembered meanwhile (another import of the same lines, say).
 */
async function settle(client: SvcClient, jobIds: string[]) {
  let failed = 0;
  let duplicates = 0;
  for (let i = 0; i < jobIds.length; i += 100) {
    let waiting = jobIds.slice(i, i + 100);
    for (let delay = 50; waiting.length > 0; delay = Math.min(delay * 2, 1000)) {
      const { results } = await client.jobs(waiting);
      failed += results.filter((job) => job.status === "failed").length;
      duplicates += results.filter((job) => "duplicate_of" in job && job.duplicate_of).length;
      waiting = results.flatMap((job) =>
        job.status === "pending" || job.status === "running" ? [job.job_id] : []
      );
      if (waiting.length > 0) await sleep(delay);
    }
  }
  return { failed, duplicates };
}

async function runImport(
  client: SvcClient,
  words: string[],
  values: Flags,
  io: CliIo,
) {
  const file = need(words[0], "the file to import");
  // Not whether it is a file: a pipe (`<(gunzip -c memories.svc.gz)`) is read as well.
  const info = STANDARD_INPUT.has(file) ? { isFile: false, isDirectory: false } : await Deno
    .stat(file).catch((error) => {
      if (error instanceof Deno.errors.NotFound) {
        throw new UsageError(`there is no file ${file} to import`);
      }
      throw error;
    });
  if (info.isDirectory) throw new UsageError(`${file} is a folder, not a file to import`);
  const format = values.from;
  const formats = ["jsonl", ...FOREIGN_FORMATS];
  if (format !== undefined && !formats.includes(format)) {
    throw new UsageError(`--from must be one of ${formats.join(", ")}`);
  }
  // A pipe or a device reads once: without --from, its start is read and it is copied as it is
  // read on (with --from, it is read whole, as a file is).
  await using pipe = info.isFile || format !== undefined
    ? undefined
    : await PipeCopy.open(file, await opened(file, io));
  // The file's start is looked at first, so that the wrong --from (or none) is named.
  const exported = pipe ? startsExport(pipe.start) : info.isFile && await isExportFile(file);
  if (format !== undefined && exported) {
    throw new UsageError(`${file} is a file of svc export (encrypted): import it without --from`);
  }
  if (format === undefined && !exported) {
    // Of a pipe, only the start that was read.
    const found = formatOfText(
      pipe ? new TextDecoder().decode(pipe.start) : await utf8File(file, io),
    );
    throw new UsageError(
      found === "svc-export"
        ? `${file} holds the header of an svc export, but not as its first line of at most ` +
          "4 KiB: it was changed since svc export wrote it (import the file as it was written)"
        : found
        ? `${file} is not a file of svc export but ${FORMAT_NAMES[found]}: import it with ` +
          `--from ${found}`
        : `${file} is not a file of svc export: for the JSON lines of GET /api/export give ` +
          "--from jsonl, for the other products' files --from mcp-memory or --from mem0",
    );
  }
  const source = format === undefined
    ? await exportFileLines(file, values, io, pipe)
    : format === "jsonl"
    ? jsonLines(await textToImport(file, format, io), values.namespace)
    : foreignLines(await textToImport(file, format, io), format as ForeignFormat, values.namespace);
  const bar = new ProgressBar(io.stderr, "import");
  let done: ImportProgress | undefined;
  /**
   * What the lines taken so far did, and (`unanswered`) those the request under way may have,
   * if any: it stays, and another import skips it.
   */
  const taken = (unanswered = false) => {
    const said = [
      done?.lines &&
      `the first ${done.lines} lines were taken before: ${done.imported} imported, ` +
        `${done.duplicates} already known`,
      unanswered && done?.sending &&
      `${done.lines ? "the next" : "the first"} ${done.sending} were being sent and may ` +
        "have been taken too",
    ].filter(Boolean);
    return said.length > 0
      ? `${said.join("; ")}; importing the file again skips what was taken`
      : undefined;
  };
  // Ctrl-C (or SIGTERM, SIGHUP) says how far it got, as a refusal does.
  const stopListening = onStopSignal(() => {
    bar.finish();
    const said = taken(true);
    return `import interrupted${said ? ` (${said})` : "; nothing was taken"}`;
  }, io.stderr);
  const summary: ImportSummary = await client.import(source.lines, {
    onProgress: (progress) => {
      done = progress;
      bar.update(progress.lines, source.total);
    },
  }).catch((error) => {
    bar.finish();
    // A request refused after others were taken: what they imported stays. One unanswered
    // (its connection broke) may have been taken too.
    const said = taken(error?.details?.reason === "outcome_unknown");
    if (!(error instanceof SvcError) || !said) throw error;
    throw new SvcError(error.code, `${error.message} (${said})`, { details: error.details });
  }).finally(stopListening);
  bar.finish();
  const failed = [
    ...source.failed,
    ...summary.failed.map(({ line, error }: ImportFailure) => ({
      origin: source.origins[line - 1] ?? `line ${line}`,
      error,
    })),
  ];
  const settled = values.wait ? await settle(client, summary.job_ids) : undefined;
  const failedJobs = settled?.failed;
  // With --wait, a job whose text was stored meanwhile counts as known, not imported (one that
  // failed to store stays imported, and is counted apart).
  const imported = summary.imported - (settled?.duplicates ?? 0);
  const duplicates = summary.duplicates + (settled?.duplicates ?? 0);
  const lines = [
    `imported ${imported} ${imported === 1 ? "memory" : "memories"} from ` +
    `${file}; ${duplicates} already known (skipped)` +
    (failedJobs ? `; ${failedJobs} failed to store` : ""),
    ...(failed.length > 0 ? [`${failed.length} not imported:`] : []),
    ...failed.map(({ origin, error }) => `  ${origin}: ${error}`),
  ];
  return {
    json: {
      file,
      format: format ?? "svc-export",
      imported,
      duplicates,
      failed,
      job_ids: summary.job_ids,
      ...(failedJobs !== undefined && { failed_jobs: failedJobs }),
    },
    text: lines.join("\n"),
    failed: failedJobs !== undefined && failedJobs > 0,
  };
}

/** Runs `export` or `import`. */
export async function runPortabilityCommand(
  { command, words, flags: values, io }: Invocation,
): Promise<Output> {
  if (values.passphrase !== undefined) {
    throw new UsageError(
      "a passphrase is never given as a flag (it would stay in the shell's history and the " +
        "process list): use --passphrase-file PATH, SVC_EXPORT_PASSPHRASE or the prompt",
    );
  }
  const options = await clientOptions(values, (name) => io.env[name], io.fetch);
  let client = await SvcClient.create(options);
  if (command === "import") return await runImport(client, words, values, io);
  // A Seal relayer decrypts with the caller's own key.
  if ((await client.health()).backends.cipher === "seal") {
    client = await SvcClient.create({ ...options, sendDelegateKey: true });
  }
  return await runExport(client, values, io);
}
