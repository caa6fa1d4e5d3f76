/**
 * Changing the embedder without downtime: a new index is built beside the active one from the
 * stored memories (`Reindexer`), while the relayer serves from the old one and writes to both
 * (`IndexSwitch`); then it becomes active at once and the old one is removed. Progress is kept
 * in the relayer's `StateStore` (`ReindexState`), so a reindex cut short resumes.
 * @module
 */
export { IndexSwitch, recordedEmbedder } from "./index_switch.ts";
export { planReindex, sameEmbedding, settleLeftovers } from "./plan.ts";
export { Reindexer, type ReindexProgress, type ReindexSummary } from "./reindexer.ts";
export { type ReindexPlan, ReindexState, type ReindexStateStore } from "../../src/reindex/state.ts";
