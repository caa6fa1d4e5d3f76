/**
 * `svc reindex --embedder NAME`: rebuilds the vector index of `SVC_DATA_DIR` for another
 * embedder, offline (the relayer stopped: the index's lock is refused while one runs), with a
 * progress bar on stderr. It reads the relayer's configuration from the environment, with
 * `SVC_EMBEDDER` replaced by `NAME`; interrupted (Ctrl-C, a crash), it resumes when run again.
 * A relayer can do the same while serving: `SVC_REINDEX=1` (see docs/embedders.md).
 */
import { EMBEDDER_KINDS, openBackends } from "@svc/app";
import { createLogger, SvcError } from "@svc/relayer/kit";
import type { ReindexProgress, ReindexSummary } from "@svc/relayer/reindex";
import { pathExists } from "@svc/util/files";
import { UsageError } from "./client_flags.ts";
import { type Output } from "./svc_memories.ts";
import { checkRelayerData, configOf } from "./svc_store.ts";
import type { Invocation } from "./svc_command_line.ts";

export const REINDEX_USAGE =
  `Index (reads SVC_DATA_DIR and the relayer's SVC_* settings; the relayer stopped):
  reindex --embedder NAME                rebuild the vector index for embedder NAME (a value of
                                         SVC_EMBEDDER: local, lexical, use, onnx, ollama,
                                         openai);
                                         resumes where an interrupted run stopped`;

/** Where progress goes: a bar redrawn in place on a terminal, else a line every 5 s. */
export function progressWriter(
  write: (text: string) => void,
  terminal: boolean,
  now: () => number = Date.now,
): { update(progress: ReindexProgress): void; end(): void } {
  let shown = -Infinity;
  let drawn = false;
  return {
    update(p) {
      const final = p.phase === "done";
      if (!final && now() - shown < (terminal ? 100 : 5_000)) return;
      shown = now();
      // Done is whole, whatever was left out (the summary says what and why).
      const share = final || p.memories === 0 ? 1 : Math.min(1, p.done / p.memories);
      const phase = p.phase === "copying" ? "" : ` (${p.phase})`;
      const counts = `${p.done}/${p.memories} memories, ${p.namespacesDone}/${p.namespaces} ` +
        `namespaces${phase}`;
      if (terminal) {
        const bar = "#".repeat(Math.round(share * 30)).padEnd(30, "-");
        write(`\rreindex [${bar}] ${Math.floor(share * 100)}% ${counts}\x1b[K`);
        drawn = true;
      } else write(`reindex: ${Math.floor(share * 100)}% ${counts}\n`);
    },
    end() {
      if (drawn) write("\n");
    },
  };
}

/** The summary `svc reindex` prints. */
export function describe(summary: ReindexSummary): string {
  const { from, to, skipped, memories } = summary;
  const lines = [
    `Reindexed ${memories} ${
      memories === 1 ? "memory" : "memories"
    } with "${to.model}" (${to.dimensions} dimensions) ` +
    `in ${summary.seconds} s${summary.resumed ? `, resuming after ${summary.resumed}` : ""}.`,
    `The index "${to.index}" is active; "${from.index}" (built with "${from.model}") is removed.`,
  ];
  if (skipped.manualDimensions || skipped.unreadable) {
    lines.push(
      `Left out: ${skipped.manualDimensions} client-encrypted memories whose vector is not of ` +
        `the new size, ${skipped.unreadable} unreadable (their ids are in the warnings above).`,
    );
  }
  return lines.join("\n");
}

/** Runs the reindex in the foreground, its progress on standard error. */
export async function runReindex(
  { flags: { embedder }, io: { env, stderr } }: Invocation,
): Promise<Output> {
  if (!embedder) throw new UsageError("reindex needs --embedder NAME");
  if (!EMBEDDER_KINDS.includes(embedder)) {
    throw new UsageError(
      `--embedder must be one of ${EMBEDDER_KINDS.join(", ")} (got ${JSON.stringify(embedder)})`,
    );
  }
  // Nothing answers analyze or ask meanwhile: no language model to open.
  const config = configOf({ ...env, SVC_EMBEDDER: embedder, SVC_LLM: "none" });
  if (config.store.kind === "postgres") {
    throw new UsageError(
      "reindex works on a data directory; with SVC_STORE=postgres, keep the embedder the index " +
        "was built with",
    );
  }
  // A mistyped SVC_DATA_DIR would otherwise become a new, empty data directory.
  if (!await pathExists(config.dataDir)) {
    throw new UsageError(
      `the data directory ${config.dataDir} does not exist: set SVC_DATA_DIR to the relayer's`,
    );
  }
  await checkRelayerData(config.dataDir, "to reindex");
  const logger = createLogger(config.logLevel === "debug" ? "debug" : "warn");
  const backends = await openBackends(config, logger, { offlineReindex: true });
  const stop = new AbortController();
  const interrupt = () =>
    stop.abort(new SvcError("backend_unavailable", "Cannot reindex: interrupted"));
  Deno.addSignalListener("SIGINT", interrupt);
  try {
    const { model, dimensions } = backends.relayer.embedder;
    if (!backends.reindex) {
      return {
        json: { status: "unchanged", model, dimensions },
        text: `The index is built with "${model}" already (or is empty): nothing to reindex.`,
      };
    }
    const write = (text: string) => stderr.writeSync(new TextEncoder().encode(text));
    const progress = progressWriter(write, stderr.isTerminal());
    try {
      const summary = await backends.reindex.reindexer.run({
        signal: stop.signal,
        onProgress: (p) => progress.update(p),
      });
      return { json: { status: "reindexed", ...summary }, text: describe(summary) };
    } catch (error) {
      if (!stop.signal.aborted) throw error;
      throw new SvcError(
        "backend_unavailable",
        "Cannot reindex: interrupted; run the same command again to resume",
      );
    } finally {
      progress.end();
    }
  } finally {
    Deno.removeSignalListener("SIGINT", interrupt);
    await backends.close();
  }
}
