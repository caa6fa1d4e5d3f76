/**
 * The vector index the relayer serves from. The store's active index is opened for the
 * configured embedder when it was built with it (or is new). When it was built with another:
 *
 * - without `SVC_REINDEX=1` the start is refused, naming the two ways to change the embedder;
 *   but with `SVC_EMBEDDER` unset, the index's own embedder serves instead when this relayer
 *   can open it (`kept`): an index built with `use` keeps `use` on a plain `deno task start`;
 * - with it, the previous embedder is opened too (its model id tells which, see
 *   `previousEmbedderConfig`), the relayer serves from the old index through an `IndexSwitch`,
 *   and a `Reindexer` builds the new index in the background (`BackgroundReindex`);
 * - offline (`svc reindex`), the old index is opened without its embedder, as nothing is
 *   served meanwhile;
 * - an index that holds no memory (embedded store) gives way to a new one for the configured
 *   embedder at once, when `SVC_EMBEDDER` is set: there is nothing to embed again.
 *
 * The composition also locks the index (`index_lock.ts`), so `svc reindex` refuses to run
 * beside a relayer.
 */
import {
  type BlobStore,
  type Cipher,
  type Embedder,
  type IndexEmbedding,
  type Logger,
  type OpenedEmbedder,
  type Reranker,
  SvcError,
  type VectorIndexSet,
  type VectorStore,
} from "@svc/relayer/kit";
import { TermHasher, VectorSeal } from "@svc/relayer/stored";
import {
  BackgroundReindex,
  IndexSwitch,
  planReindex,
  recordedEmbedder,
  Reindexer,
  type ReindexPlan,
  type ReindexState,
  sameEmbedding,
  settleLeftovers,
} from "@svc/relayer/reindex";
import type { Config, EmbedderConfig } from "./config.ts";
import { embedderPlugin, EMBEDDERS } from "./embedders.ts";
import { carryImportNote } from "./lancedb_import.ts";

/** The index to serve from, and the reindex to run when one is needed. */
export interface OpenedIndex {
  vectors: VectorStore;
  /**
   * The configured embedder, or during a reindex the switch's (the previous one until it ends),
   * or the index's own (`kept`).
   */
  embedder: Embedder;
  /**
   * Set when the index's own embedder serves instead of the configured one (`SVC_EMBEDDER`
   * unset, `keepIndexEmbedder`): its re-ranker, and what closes it.
   */
  kept?: { reranker?: Reranker; close?: () => Promise<void> };
  /** During a reindex, the re-ranker of the index serving now (the previous one until it ends). */
  reranker?: () => Reranker | undefined;
  /** The reindex to run (`SVC_REINDEX=1` with another embedder, or offline). */
  reindex?: BackgroundReindex;
}

/** What opening the index takes. */
export interface VectorIndexDependencies {
  config: Config;
  indexes: VectorIndexSet;
  /** Keeps the reindex's plan and cursors (in `jobs.kv`, or the shared database). */
  state: ReindexState;
  secret: Uint8Array<ArrayBuffer>;
  cipher: Cipher;
  blobs: BlobStore;
  /** The configured embedder, and its re-ranker. */
  embedder: Embedder;
  reranker?: Reranker;
  /** Opens an embedder of the configuration's kinds (the previous one, during a reindex). */
  openEmbedder: (config: EmbedderConfig) => Promise<OpenedEmbedder>;
  logger: Logger;
  /** `svc reindex`: nothing is served, the old index is opened without its embedder. */
  offline?: boolean;
}

/**
 * The configuration of the embedder whose model id is `model`, with the settings of the
 * configuration where they apply (the Ollama host, the OpenAI-compatible API); `undefined` when
 * this relayer cannot tell or cannot reach it.
 */
export function previousEmbedderConfig(model: string, config: Config): EmbedderConfig | undefined {
  const { modelsDir, embedders } = config.reindex;
  for (const [kind, plugin] of EMBEDDERS) {
    const settings = plugin.recognise?.(model, { modelsDir, configured: embedders[kind] });
    if (settings !== undefined) return { kind, settings, modelsDir };
  }
  return undefined;
}

/** The settings that choose the configured embedder, as a command line names them. */
function settingsOf({ kind, settings }: EmbedderConfig): string {
  const more = embedderPlugin(kind).chosenBy?.(settings);
  return [`SVC_EMBEDDER=${kind}`, more].filter(Boolean).join(" ");
}

/** The command that rebuilds the index for the configured embedder, the relayer stopped. */
function reindexCommand({ kind, settings }: EmbedderConfig): string {
  const command = `deno task svc reindex --embedder ${kind}`;
  return [embedderPlugin(kind).chosenBy?.(settings), command].filter(Boolean).join(" ");
}

/** The settings that choose the embedder whose model id is `model`, when this version knows. */
export function embedderSetting(model: string, config: Config): string | undefined {
  for (const plugin of EMBEDDERS.values()) {
    const setting = plugin.choosing?.(model);
    if (setting) return setting;
  }
  const kind = previousEmbedderConfig(model, config)?.kind;
  return kind && `SVC_EMBEDDER=${kind}`;
}

/** The refusal of an index (of `indexes`) built with another embedder than `wanted`. */
function mismatch(
  indexes: VectorIndexSet,
  config: Config,
  built: IndexEmbedding,
  wanted: IndexEmbedding,
  unset?: string,
): SvcError {
  const configured = unset === undefined
    ? "is configured"
    : `is the default (SVC_EMBEDDER is not set, and the index's own embedder ${unset})`;
  const where = config.store.kind === "postgres"
    ? `the database (${indexes.name})`
    : `${config.dataDir} (${indexes.name})`;
  const setting = embedderSetting(built.model, config);
  const original = setting ? `the original embedder (${setting})` : "the original embedder";
  if (config.store.kind === "postgres") {
    return new SvcError(
      "conflict",
      `Cannot open the vector index in ${where}: it was built with embedder "${built.model}" ` +
        `(${built.dimensions} dimensions) but "${wanted.model}" (${wanted.dimensions}) ` +
        `${configured}. Configure ${original}: changing the embedder is not supported with ` +
        "SVC_STORE=postgres yet.",
    );
  }
  if (built.model === wanted.model) {
    // The same name, another size: the server now serves another model under that name.
    return new SvcError(
      "conflict",
      `Cannot open the vector index in ${where}: it was built with embedder "${built.model}" ` +
        `at ${built.dimensions} dimensions, but "${wanted.model}" now makes vectors of ` +
        `${wanted.dimensions}: its server serves another model under that name. Serve the ` +
        `model the index was built with again, or rebuild the index for this one with the ` +
        `relayer stopped: \`${reindexCommand(config.embedder)}\`.`,
    );
  }
  // A reindex while serving answers recalls with the original embedder: not when it cannot open.
  const restart = `restart with ${settingsOf(config.embedder)} SVC_REINDEX=1`;
  const whileServing = unset === undefined
    ? `${restart} (the relayer keeps serving from the old index meanwhile), or `
    : "";
  const opens = unset === undefined ? "" : " so that it opens";
  return new SvcError(
    "conflict",
    `Cannot open the vector index in ${where}: it was built with embedder "${built.model}" ` +
      `(${built.dimensions} dimensions) but "${wanted.model}" (${wanted.dimensions}) ` +
      `${configured}. Either configure ${original}${opens}` +
      `, or rebuild the index for the new one: ${whileServing}stop the relayer and run ` +
      `\`${reindexCommand(config.embedder)}\`.`,
  );
}

/**
 * Opens the previous embedder for serving during a reindex; it must make the index's vectors.
 * `close` closes what was opened for it.
 */
async function openPrevious(
  deps: VectorIndexDependencies,
  built: IndexEmbedding,
): Promise<OpenedEmbedder> {
  const config = previousEmbedderConfig(built.model, deps.config);
  const offline = "stop the relayer and run " +
    `\`${reindexCommand(deps.config.embedder)}\`, which needs only the new ` +
    "embedder, or configure the original embedder";
  if (!config) {
    throw new SvcError(
      "conflict",
      `Cannot reindex while serving: the index was built with embedder "${built.model}", which ` +
        `this relayer cannot open to answer recalls meanwhile. Either ${offline}.`,
    );
  }
  const opened = await deps.openEmbedder(config).catch((error) => {
    throw new SvcError(
      "backend_unavailable",
      `Cannot reindex while serving: the index was built with embedder "${built.model}", which ` +
        `answers recalls meanwhile and cannot be opened (${(error as Error).message}). ` +
        `Either ${offline}.`,
    );
  });
  const { embedder } = opened;
  if (!sameEmbedding(embedder, built)) {
    await opened.close?.();
    throw new SvcError(
      "conflict",
      `Cannot reindex while serving: the index was built with embedder "${built.model}" ` +
        `(${built.dimensions} dimensions), and this version's "${config.kind}" embedder is ` +
        `"${embedder.model}" (${embedder.dimensions}). Either ${offline}.`,
    );
  }
  return opened;
}

/**
 * Serves index `active` with the embedder it was built with (`SVC_EMBEDDER` unset), refusing the
 * start when this relayer cannot open one that makes its vectors.
 */
async function serveKept(
  deps: VectorIndexDependencies,
  active: string,
  built: IndexEmbedding,
  wanted: IndexEmbedding,
): Promise<OpenedIndex> {
  const { config, indexes, logger } = deps;
  const refuse = (why: string) => mismatch(indexes, config, built, wanted, why);
  const cannot = "is not one this relayer can open";
  const previous = previousEmbedderConfig(built.model, config);
  if (!previous) throw refuse(cannot);
  const { embedder, reranker, close } = await deps.openEmbedder(previous).catch((error) => {
    throw refuse(`could not be opened: ${(error as Error).message}`);
  });
  if (!sameEmbedding(embedder, built)) {
    await close?.();
    throw refuse(cannot);
  }
  const vectors = await indexes.open(active, built).catch(async (error) => {
    await close?.();
    throw error;
  });
  logger.info(
    "SVC_EMBEDDER is not set: serving with the embedder the index was built with; to move to " +
      `the default (${wanted.model}), restart once with ${settingsOf(config.embedder)} ` +
      "SVC_REINDEX=1",
    { model: built.model },
  );
  await warnOfUnfinished(deps.state, built, logger);
  return { vectors, embedder, kept: { reranker, close } };
}

/** Warns of an unfinished reindex for another embedder than `serving`'s; whether there is one. */
async function warnOfUnfinished(
  state: ReindexState,
  serving: IndexEmbedding,
  logger: Logger,
): Promise<boolean> {
  const plan = await state.plan();
  if (!plan || sameEmbedding(plan, serving)) return false;
  logger.warn(
    "an unfinished reindex for another embedder is kept; restart with its embedder and " +
      "SVC_REINDEX=1 to resume it",
    { model: plan.model, index: plan.to },
  );
  return true;
}

/** The memories index `name` of `indexes` (built with `built`) holds. */
export async function memoriesIn(
  indexes: VectorIndexSet,
  name: string,
  built: IndexEmbedding,
): Promise<number> {
  const store = await indexes.open(name, built);
  try {
    return await store.count();
  } finally {
    await store.close();
  }
}

/**
 * An index for `wanted` made active in place of the empty index `active` (built with `built`):
 * nothing to embed again, so the reindex's plan is switched to at once (an unfinished one for
 * another embedder dropped).
 */
async function startAfresh(
  { indexes, state, logger }: VectorIndexDependencies,
  active: string,
  built: IndexEmbedding,
  wanted: IndexEmbedding,
): Promise<VectorStore> {
  const { to } = await planReindex(indexes, state, wanted, { logger });
  const vectors = await indexes.open(to, wanted);
  try {
    const old = await indexes.open(active, built);
    await carryImportNote(old, vectors).finally(() => old.close());
    await indexes.activate(to);
    await indexes.remove(active);
    await state.clear();
  } catch (error) {
    await vectors.close();
    throw error;
  }
  logger.info("the vector index held no memory: the configured embedder starts a new one", {
    model: wanted.model,
  });
  return vectors;
}

/** Opens the active index, and the reindex it needs; see the module documentation. */
export async function openVectorIndex(deps: VectorIndexDependencies): Promise<OpenedIndex> {
  const { config, indexes, embedder, logger, state } = deps;
  await settleLeftovers(indexes, state, logger);
  const active = await indexes.active();
  const built = await indexes.built(active);
  const wanted = { model: embedder.model, dimensions: embedder.dimensions };
  const reindex = deps.offline || config.reindex.enabled;
  if (!built || sameEmbedding(built, wanted)) {
    const unfinished = await warnOfUnfinished(state, wanted, logger);
    if (!unfinished && reindex) {
      logger.info("the vector index is built with the configured embedder: nothing to reindex", {
        model: wanted.model,
      });
    }
    return { vectors: await indexes.open(active, wanted), embedder };
  }
  if (
    config.store.kind === "embedded" && !config.reindex.keepIndexEmbedder &&
    await memoriesIn(indexes, active, built) === 0
  ) {
    return { vectors: await startAfresh(deps, active, built, wanted), embedder };
  }
  if (!reindex) {
    if (!config.reindex.keepIndexEmbedder) throw mismatch(indexes, config, built, wanted);
    return await serveKept(deps, active, built, wanted);
  }
  if (!deps.cipher.holdsKeys) {
    throw new SvcError(
      "conflict",
      `Cannot reindex: the cipher "${deps.cipher.name}" decrypts only with each caller's own ` +
        `key, so the relayer cannot read the memories to embed them again. Configure the ` +
        `original embedder "${built.model}".`,
    );
  }
  const vectorSeal = await VectorSeal.fromSecret(deps.secret);
  const previous = deps.offline
    ? { embedder: recordedEmbedder(built) }
    : await openPrevious(deps, built);
  let source: VectorStore | undefined;
  let target: VectorStore;
  let plan: ReindexPlan;
  try {
    plan = await planReindex(indexes, state, wanted, { logger });
    source = await indexes.open(active, built);
    target = await indexes.open(plan.to, wanted);
  } catch (error) {
    try {
      await source?.close();
    } finally {
      await previous.close?.();
    }
    throw error;
  }
  await carryImportNote(source, target).catch(async (error) => {
    await Promise.all([source.close(), target.close(), previous.close?.()]);
    throw error;
  });
  const indexSwitch = new IndexSwitch({
    name: active,
    embedder: previous.embedder,
    reranker: previous.reranker,
    store: source,
    closeEmbedder: previous.close,
  }, { logger });
  indexSwitch.build({ name: plan.to, embedder, reranker: deps.reranker, store: target });
  const reindexer = new Reindexer({
    indexes,
    switch: indexSwitch,
    state,
    cipher: deps.cipher,
    blobs: deps.blobs,
    vectorSeal,
    hasher: await TermHasher.fromSecret(deps.secret),
    logger,
    ratePerSecond: config.reindex.ratePerSecond,
    graceMs: deps.offline ? 0 : 10_000,
  });
  return {
    vectors: indexSwitch.vectors,
    embedder: indexSwitch.embedder,
    reranker: () => indexSwitch.active.reranker,
    reindex: new BackgroundReindex(reindexer, logger),
  };
}
