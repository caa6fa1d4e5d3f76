/**
 * Changing the embedder without downtime: a new index is built beside the active one from the
 * stored memories (`Reindexer`), while the relayer serves from the old one and writes to both
 * (`IndexSwitch`); then it becomes active at once and the old one is removed. Progress is kept
 * in the relayer's `StateStore` (`ReindexState`), so a reindex cut short resumes. A relayer runs
 * it in the background (`BackgroundReindex`), `svc reindex` in the foreground.
 *
 * @example
 * ```ts
 * const state = await ReindexState.open(stateStore, secret);
 * const plan = await planReindex(indexes, state, embedder);
 * indexes.build({ name: plan.to, embedder, store: await set.open(plan.to, embedder) });
 * ```
 * @module
 */
export { type IndexGeneration, IndexSwitch, recordedEmbedder } from "./index_switch.ts";
export { planReindex, sameEmbedding, settleLeftovers } from "./plan.ts";
export { Reindexer, type ReindexProgress, type ReindexSummary } from "./reindexer.ts";
export { type ReindexPlan, ReindexState } from "./state.ts";
export { BackgroundReindex } from "./background.ts";
