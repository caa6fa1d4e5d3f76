/**
 * The query-vector cache is silent across callers: how fast a key's recall runs never tells it
 * whether another key (of its account or another's) asked the same words, nor how much another
 * account asked. Timing through the in-process relayer, made robust: the embedder takes
 * `EMBED_MS` for "probe" queries only (the flood is fast), the arms are interleaved, many samples
 * each, and medians are compared with half the embedding time as the margin. A positive control
 * (the prober's own repeated query, a hit) shows the measurement sees a signal when there is one.
 */
import assert from "node:assert/strict";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { MemoryVectorStore } from "../src/backends/memory.ts";
import type { EmbedOptions } from "../src/backends/types.ts";
import { type Caller, startTestRelayer, type TestRelayer } from "./fixtures.ts";

/** How long the embedder takes for a query starting with "probe", in milliseconds. */
const EMBED_MS = 30;
/** The margin a difference of medians must reach to be a signal. */
const MARGIN_MS = EMBED_MS / 2;
/** Samples per arm. */
const SAMPLES = 15;

/** The lexical embedder, taking `EMBED_MS` for each probe query. */
class SlowProbeEmbedder extends LexicalEmbedder {
  override async embed(texts: string[], options?: EmbedOptions) {
    if (options?.purpose === "query" && texts.some((text) => text.startsWith("probe"))) {
      await new Promise((resolve) => setTimeout(resolve, EMBED_MS));
    }
    return super.embed(texts, options);
  }
}

/** A relayer whose embedder is slow on probe queries. */
function slowRelayer(): Promise<TestRelayer> {
  const embedder = new SlowProbeEmbedder();
  return startTestRelayer({ embedder, vectors: new MemoryVectorStore(embedder.dimensions) });
}

/** Recalls `query` in `namespace` as `caller`, in milliseconds. */
async function timedRecall(
  t: TestRelayer,
  caller: Caller,
  query: string,
  namespace = "default",
): Promise<number> {
  const start = performance.now();
  const res = await t.signed(caller, "POST", "/api/recall", { query, namespace });
  await res.body?.cancel();
  assert.equal(res.status, 200);
  return performance.now() - start;
}

/** The median of `samples`. */
function median(samples: number[]): number {
  const sorted = samples.toSorted((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The prober's recall times, in three interleaved arms: a query the victim asked just before,
 * one the victim did not ask (the victim asked something else, as fast), and the prober's own
 * query asked a second time (a hit, the control).
 */
async function probeArms(t: TestRelayer, victim: Caller, prober: Caller, namespace: string) {
  const asked: number[] = [], silent: number[] = [], own: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    await timedRecall(t, victim, `probe asked ${i}`);
    asked.push(await timedRecall(t, prober, `probe asked ${i}`, namespace));
    await timedRecall(t, victim, `probe elsewhere ${i}`);
    silent.push(await timedRecall(t, prober, `probe silent ${i}`, namespace));
    await timedRecall(t, prober, `probe own ${i}`, namespace);
    own.push(await timedRecall(t, prober, `probe own ${i}`, namespace));
  }
  return { asked: median(asked), silent: median(silent), own: median(own) };
}

/** Fails when `arms` show the victim's query, and unless they show the prober's own. */
function assertSilent(arms: { asked: number; silent: number; own: number }) {
  const shown = JSON.stringify(arms);
  assert.ok(arms.own < arms.silent - MARGIN_MS, `the control shows no hit: ${shown}`);
  assert.ok(arms.asked > arms.silent - MARGIN_MS, `the victim's query is a hit: ${shown}`);
}

Deno.test("query vector timing: a key scoped to one namespace cannot tell whether another key of its account asked", async () => {
  await using t = await slowRelayer();
  const victim = await t.newCaller();
  const prober = await t.addKey(victim, { scope: { namespaces: ["work"] } });
  assertSilent(await probeArms(t, victim, prober, "work"));
});

Deno.test("query vector timing: an account cannot tell whether another account asked", async () => {
  await using t = await slowRelayer();
  assertSilent(await probeArms(t, await t.newCaller(), await t.newCaller(), "default"));
});

Deno.test("query vector timing: another account's 1,100 queries leave an account's cached queries as fast", async () => {
  await using t = await slowRelayer();
  const victim = await t.newCaller();
  const prober = await t.newCaller();
  /** The medians of the prober's first (misses) and second (hits) asking, `between` them. */
  const rehits = async (arm: string, between: () => Promise<void>) => {
    const queries = Array.from({ length: 9 }, (_, i) => `probe ${arm} ${i}`);
    const first = [], again = [];
    for (const query of queries) first.push(await timedRecall(t, prober, query));
    await between();
    for (const query of queries) again.push(await timedRecall(t, prober, query));
    return { first: median(first), again: median(again) };
  };
  const silent = await rehits("silent", () => Promise.resolve());
  const flooded = await rehits("flooded", async () => {
    for (let i = 0; i < 1_100; i++) await timedRecall(t, victim, `flood ${i}`);
  });
  const shown = JSON.stringify({ silent, flooded });
  assert.ok(silent.again < silent.first - MARGIN_MS, `the control shows no hit: ${shown}`);
  assert.ok(flooded.again < silent.again + MARGIN_MS, `the flood evicted: ${shown}`);
});
