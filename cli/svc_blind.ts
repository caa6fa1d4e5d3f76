/**
 * `svc blind …`: operator-blind namespaces from a terminal, through `openBlindMemory`.
 * `--cache FILE` keeps the namespace's log on this machine, sealed under the key, so a command
 * reads only the log's tail.
 */
import { type ImportLine, verifyReceipt } from "@svc/relayer/client";
import { SvcError } from "@svc/relayer/kit";
import { openBlindMemory } from "./blind_memory.ts";
import { FORMAT_NAMES, formatOfText, utf8Text } from "./import_formats.ts";
import {
  clientOptions,
  memoryIdArg,
  minScoreArg,
  need,
  positiveInt,
  tagsArg,
  threadArg,
  UsageError,
} from "./client_flags.ts";
import type { Output } from "./svc_memories.ts";
import { type Invocation, subcommandsOf } from "./svc_command_line.ts";
import { visible } from "./visible_text.ts";

export const BLIND_USAGE =
  `Operator-blind namespaces (the relayer cannot read them; this machine embeds
and ranks with the ONNX model of --model-dir DIR or SVC_ONNX_MODEL_DIR):
  blind enable [--namespace NS]           make the namespace operator-blind
  blind move [--namespace NS]             move its earlier memories into its log
  blind remember TEXT [--namespace NS] [--tag T]... [--thread ID]
  blind recall QUERY [--namespace NS] [--limit N] [--tag T]... [--min-score S] [--explain]
  blind list [--namespace NS]             its memories, newest first, with their ids
  blind update ID --text TEXT [--tag T]... [--namespace NS]
                                         store a new version that replaces the memory
  blind forget ID [--namespace NS]
  blind erase --namespace NS --confirm NS erase the namespace's log and keys
  blind export --output FILE              its memories as JSON lines (texts in clear)
  blind import FILE                       remember an export's JSON lines here
  blind let-in --public-key HEX [--namespace NS]
                                         let another key of the account read it
  --cache FILE keeps the namespace's log here, sealed with the key`;

/** Runs `svc blind <sub> [words]`. */
export async function runBlind(
  { words: [sub, ...words], flags: values, io }: Invocation,
): Promise<Output> {
  const env = (name: string) => io.env[name];
  const subcommands = subcommandsOf("blind");
  if (!sub || !subcommands.includes(sub)) {
    throw new UsageError(`blind takes one of ${subcommands.join(", ")}`);
  }
  const text = words.join(" ").trim() || undefined;
  const id = sub === "forget" || sub === "update"
    ? memoryIdArg(words[0], "the memory id")
    : undefined;
  const newText = sub === "update" ? need(values.text, "--text") : undefined;
  const publicKey = sub === "let-in" ? need(values["public-key"], "--public-key") : undefined;
  const output = sub === "export" ? need(values.output, "--output FILE") : undefined;
  const file = sub === "import" ? need(words[0], "the file") : undefined;
  const lines = file === undefined ? undefined : await importedLines(file);
  if (sub === "erase" && (values.namespace === undefined || values.confirm !== values.namespace)) {
    throw new UsageError("blind erase needs --namespace NS and --confirm NS: it cannot be undone");
  }
  const options = await clientOptions(values, env, io.fetch);
  const opened = await openBlindMemory(options, env, {
    modelDir: values["model-dir"],
    namespace: values.namespace,
    cacheFile: values.cache,
  });
  try {
    const { memory } = opened;
    const namespace = memory.namespace;
    switch (sub) {
      case "enable":
        await memory.enable();
        return { json: { namespace, blind: true }, text: `${namespace} is operator-blind` };
      case "move": {
        const moved = await memory.moveIn();
        return { json: { namespace, moved }, text: `moved ${moved} memories into ${namespace}` };
      }
      case "remember": {
        const [memoryId] = await memory.remember([
          {
            text: need(text, "the text"),
            tags: tagsArg(values.tag),
            thread: threadArg(values.thread),
          },
        ]);
        return { json: { namespace, id: memoryId }, text: `remembered ${memoryId}` };
      }
      case "recall": {
        const found = await memory.recall(need(text, "the query"), {
          limit: positiveInt(values.limit, "--limit", 100),
          tags: tagsArg(values.tag),
          minScore: minScoreArg(values["min-score"]),
          explain: values.explain,
        });
        const lines = found.results.map((r, i) =>
          `${i + 1}. [score ${r.score.toFixed(2)}] ${visible(r.text)}`
        );
        return { json: { ...found }, text: lines.join("\n") || "No matching memories found" };
      }
      case "list": {
        const memories = await memory.memories();
        const lines = memories.map((m) =>
          `${m.id}  ${new Date(m.createdAt).toISOString()}  ${visible(m.text)}`
        );
        return { json: { namespace, memories }, text: lines.join("\n") || "no memories yet" };
      }
      case "update": {
        const updated = await memory.update(id!, { text: newText!, tags: tagsArg(values.tag) });
        return { json: { ...updated }, text: `stored ${updated.id}; it replaces ${id}` };
      }
      case "forget": {
        const receipt = await memory.forget(id!);
        const health = await (await (io.fetch ?? fetch)(`${options.baseUrl}/health`))
          .json();
        const verified = await verifyReceipt(receipt, health.receiptKey);
        return {
          json: { ...receipt, verified },
          text: `erased ${id}; receipt ${verified ? "verified" : "NOT verified"}`,
          failed: !verified,
        };
      }
      case "export": {
        const exported = await memory.exportLines();
        const text = exported.map((line) => JSON.stringify(line) + "\n").join("");
        await Deno.writeTextFile(output!, text, { mode: 0o600 });
        return {
          json: { namespace, exported: exported.length, output },
          text: `exported ${exported.length} memories to ${output} (their texts in clear)`,
        };
      }
      case "import": {
        const held = new Set((await memory.memories()).map((entry) => entry.id));
        const ids = await memory.importLines(lines!.map(({ line }) => line)).catch((error) => {
          // Named by the file's line, blank ones counted.
          const at = /^line (\d+): /.exec(error?.message ?? "");
          if (!(error instanceof SvcError) || !at) throw error;
          const line = lines![Number(at[1]) - 1].number;
          throw new UsageError(`${file}: line ${line}: ${error.message.slice(at[0].length)}`);
        });
        const imported = new Set(ids.filter((id) => !held.has(id))).size;
        const duplicates = ids.length - imported;
        return {
          json: { namespace, imported, duplicates },
          text: `imported ${imported}; ${duplicates} already known (skipped)`,
        };
      }
      case "erase": {
        const erased = await memory.forgetAll();
        return { json: { ...erased }, text: `erased ${erased.erased} memories and ${namespace}` };
      }
      default: // let-in
        await memory.letIn(publicKey!);
        return { json: { namespace, public_key: publicKey }, text: `let ${publicKey} in` };
    }
  } finally {
    await opened.close();
  }
}

/**
 * The JSON lines of an export file (`svc blind export`, or the API's), each with its number
 * (from 1); a usage error names a file of another format, or the first line that is not UTF-8
 * or not JSON.
 */
async function importedLines(path: string): Promise<{ line: ImportLine; number: number }[]> {
  const read = utf8Text(await Deno.readFile(path));
  if ("badLine" in read) throw new UsageError(`${path}: line ${read.badLine} is not UTF-8 text`);
  const format = formatOfText(read.text);
  if (format !== undefined && format !== "jsonl") {
    throw new UsageError(`${path} is ${FORMAT_NAMES[format]}, not JSON lines of an export`);
  }
  return read.text.split("\n").flatMap((line, i) => {
    if (!line.trim()) return [];
    try {
      return [{ line: JSON.parse(line) as ImportLine, number: i + 1 }];
    } catch {
      throw new UsageError(`${path}: line ${i + 1} is not JSON`);
    }
  });
}
