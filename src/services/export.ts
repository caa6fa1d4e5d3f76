/**
 * Export: an owner's memories as JSON lines, one memory object per line (`ExportedMemory`),
 * namespace by namespace (by name), oldest first. The ids are gathered from the catalog when
 * the export starts (the plan); the texts are read and decrypted in batches as the stream is
 * consumed, so an export of any size holds one batch. A memory erased, replaced or expired
 * meanwhile is left out, as is one the relayer cannot read (a client-encrypted manual memory).
 */
import type { VectorStore } from "../backends/types.ts";
import type { Logger } from "../log.ts";
import type { RememberedBy } from "../pipeline/attributes.ts";
import type { LifecycleService } from "./lifecycle.ts";
import type { Memory } from "./memory_view.ts";
import type { ReadOptions } from "./reader.ts";
import { readWithin, utf8Length } from "../text_limits.ts";

/** Who stored a memory (the address and label of its key at the time), and when (ISO 8601). */
export type Provenance = RememberedBy;

/** One line of an export: a memory, as list and get show it. */
export interface ExportedMemory {
  /** The memory's text. */
  text: string;
  /** Its tags. */
  tags: string[];
  /** Its namespace. */
  namespace: string;
  /** The thread (conversation or session id) it was remembered in; `null` for none. */
  thread: string | null;
  /** When the memory was first remembered (ISO 8601). */
  created_at: string;
  /** When this version was stored (ISO 8601). */
  updated_at: string;
  /** When it expires (ISO 8601); `null`: never. */
  expires_at: string | null;
  /** Who stored it; `null` for a memory stored before that was recorded. */
  remembered_by: Provenance | null;
  /** Its id on the relayer it was exported from (an import gives it a new one). */
  id: string;
}

/** The memories an export holds: per namespace, the ids gathered when it started. */
export type ExportPlan = { namespace: string; ids: string[] }[];

/** The most memories of one chunk of an export's stream. */
const EXPORT_BATCH = 64;

/** The export line of a memory; `null` for one whose text the relayer cannot read. */
function exportLine(memory: Memory): ExportedMemory | null {
  const { text, tags, namespace, thread, created_at, updated_at, expires_at, remembered_by, id } =
    memory;
  if (text === null) return null;
  return { text, tags, namespace, thread, created_at, updated_at, expires_at, remembered_by, id };
}

export interface ExportDependencies {
  lifecycle: LifecycleService;
  vectors: VectorStore;
  logger: Logger;
}

export function createExportService({ lifecycle, vectors, logger }: ExportDependencies) {
  return {
    /** The owner's namespaces, by name. */
    async namespaces(owner: string): Promise<string[]> {
      return (await vectors.namespaces(owner)).map(({ namespace }) => namespace).sort();
    },

    /** What an export of `namespaces` holds, gathered now. */
    async plan(owner: string, namespaces: string[]): Promise<ExportPlan> {
      return await Promise.all(
        namespaces.map(async (namespace) => ({
          namespace,
          ids: await lifecycle.ids(owner, namespace),
        })),
      );
    },

    /**
     * The lines of `plan` (UTF-8, each ending with `\n`), read a batch at a time as the
     * stream is pulled. The first batch is read before it resolves, so that a failure there (a
     * cipher refusing the caller) rejects it and can be answered as an error; a failure later
     * errors the stream (its client sees it cut short). `sent` is told the ids of each batch
     * of lines as it is handed on (for the access log: what was sent, not what was planned).
     */
    async stream(
      owner: string,
      plan: ExportPlan,
      options: ReadOptions & {
        batch?: number;
        sent?: (namespace: string, ids: string[]) => void;
        /** Throws once the caller may no longer read (its key removed meanwhile): the stream ends. */
        stillAllowed?: () => Promise<void>;
      } = {},
    ): Promise<ReadableStream<Uint8Array>> {
      const batch = options.batch ?? EXPORT_BATCH;
      const encoder = new TextEncoder();
      let part = 0; // the plan's namespace being read
      let at = 0; // the next of its ids
      type Lines = { namespace: string; ids: string[]; bytes: Uint8Array };
      /**
       * The next batch's lines: up to `batch` memories, as many as one answer holds
       * (`readWithin`); `null` once every memory is read.
       */
      const read = async (): Promise<Lines | null> => {
        // Batches whose memories all went meanwhile add nothing: go on to one that does.
        while (part < plan.length) {
          if (part > 0 || at > 0) await options.stillAllowed?.();
          const { namespace, ids } = plan[part];
          const memories = await readWithin(
            ids.slice(at, at + batch),
            async (id) => (await lifecycle.memories(owner, namespace, [id], options))[0],
            (memory) => utf8Length(memory?.text ?? ""),
          );
          at += memories.length;
          if (at >= ids.length) [part, at] = [part + 1, 0];
          const lines = memories.flatMap((memory) => (memory && exportLine(memory)) ?? []);
          if (lines.length > 0) {
            const text = lines.map((line) => JSON.stringify(line) + "\n").join("");
            return { namespace, ids: lines.map(({ id }) => id), bytes: encoder.encode(text) };
          }
        }
        return null;
      };
      let first: Lines | null | undefined = await read();
      let cancelled = false;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const lines = first === undefined ? await read() : first;
            first = undefined;
            // The reader went (its client left) while the batch was read.
            if (cancelled) return;
            if (!lines) return controller.close();
            controller.enqueue(lines.bytes);
            options.sent?.(lines.namespace, lines.ids);
          } catch (error) {
            if (options.signal?.aborted || cancelled) throw error;
            logger.warn("export stopped", { error });
            // The answer is cut off, which tells its client. Deno writes a response stream's
            // reason on stderr as it is: the log has the JSON line, so not the stack trace too.
            controller.error("");
          }
        },
        cancel() {
          cancelled = true;
        },
      }, { highWaterMark: 0 });
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;
