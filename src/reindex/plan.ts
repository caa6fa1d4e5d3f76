/**
 * The decisions a start makes about reindexing: finishing what a reindex that was cut short
 * after its switch left (`settleLeftovers`), and which index a reindex builds (`planReindex`):
 * the one it was building, to resume, when it was for the same embedder, or a new one.
 */
import type { IndexEmbedding, VectorIndexSet } from "../backends/types.ts";
import { type Logger, silentLogger } from "../log.ts";
import type { ReindexPlan, ReindexState } from "./state.ts";

/** The name after `active`: `index` → `index-2`, `index-2` → `index-3`. */
function nextIndexName(active: string): string {
  const numbered = active.match(/^(.*)-(\d+)$/);
  return numbered ? `${numbered[1]}-${Number(numbered[2]) + 1}` : `${active}-2`;
}

/**
 * Completes a reindex whose switch happened but whose old index was not removed yet (the
 * relayer stopped during the grace period, or crashed), and forgets a reindex whose indexes
 * are neither active any more. A reindex still building is left as it is.
 */
export async function settleLeftovers(
  indexes: VectorIndexSet,
  state: ReindexState,
  logger: Logger = silentLogger,
): Promise<void> {
  const plan = await state.plan();
  if (!plan) return;
  const active = await indexes.active();
  if (active === plan.to) {
    if (plan.from !== active) await indexes.remove(plan.from);
    await state.clear();
    logger.info("removed the index the last reindex replaced", { index: plan.from });
  } else if (active !== plan.from) {
    logger.warn("forgot a reindex whose indexes are no longer active", {
      from: plan.from,
      to: plan.to,
    });
    await state.clear();
  }
}

/** Whether two embeddings are the same. */
export function sameEmbedding(a: IndexEmbedding, b: IndexEmbedding): boolean {
  return a.model === b.model && a.dimensions === b.dimensions;
}

/**
 * The reindex to run from the active index to one for `embedding`: the one under way when it
 * is for the same embedder (it resumes), else a new one (an unfinished index for another
 * embedder, or left over, is removed first).
 */
export async function planReindex(
  indexes: VectorIndexSet,
  state: ReindexState,
  embedding: IndexEmbedding,
  options: { logger?: Logger; now?: () => number } = {},
): Promise<ReindexPlan & { resumed: boolean }> {
  const logger = options.logger ?? silentLogger;
  const active = await indexes.active();
  const plan = await state.plan();
  if (plan && plan.from === active && sameEmbedding(plan, embedding)) {
    return { ...plan, resumed: true };
  }
  if (plan && plan.to !== active) {
    logger.info("removing an unfinished index built for another embedder", {
      index: plan.to,
      model: plan.model,
    });
    await indexes.remove(plan.to);
  }
  const to = nextIndexName(active);
  if (await indexes.built(to)) await indexes.remove(to);
  const next: ReindexPlan = {
    from: active,
    to,
    model: embedding.model,
    dimensions: embedding.dimensions,
    startedAt: (options.now ?? Date.now)(),
  };
  await state.begin(next);
  return { ...next, resumed: false };
}
