import assert from "node:assert/strict";
import { startFakeWalrus } from "../../tests/fixtures/walrus_network.ts";
import { readFromAggregators } from "./aggregators.ts";

/** The global fetch, recording each request's URL and signal. */
function recordingFetch() {
  const seen: { url: string; signal: AbortSignal }[] = [];
  const wrapped: typeof fetch = (input, init) => {
    seen.push({ url: String(input), signal: init!.signal! });
    return fetch(input, init);
  };
  return { seen, fetch: wrapped };
}

const options = { hedgeMs: 40, timeoutMs: 10_000, maxBytes: 1024 };

Deno.test("readFromAggregators: a slow aggregator is overtaken and its request aborted", async () => {
  await using walrus = startFakeWalrus({ aggregators: 3 });
  const blobId = await walrus.seed(new TextEncoder().encode("bytes"));
  walrus.aggregators[0].latencyMs = 60_000;
  const { seen, fetch } = recordingFetch();
  // A hedge long enough that the second aggregator answers before it, on a busy machine too.
  const hedged = { ...options, hedgeMs: 1_000, fetch };
  const read = await readFromAggregators(walrus.aggregatorUrls, blobId, hedged);
  assert.equal(read.kind, "found");
  assert.equal(seen.length, 2, "the third aggregator was not needed");
  assert.ok(seen[0].url.startsWith(walrus.aggregatorUrls[0]));
  assert.equal(seen[0].signal.aborted, true, "the loser was aborted");
  assert.equal(walrus.aggregators[1].answered, 1);
  assert.equal(walrus.aggregators[2].requests.length, 0);
});

Deno.test("readFromAggregators: failures move on at once; 404 everywhere is not_found", async () => {
  await using walrus = startFakeWalrus({ aggregators: 3 });
  const blobId = await walrus.seed(new TextEncoder().encode("bytes"));
  const slowHedge = { ...options, hedgeMs: 60_000 };
  await walrus.aggregators[0].setDown("unavailable");
  await walrus.aggregators[1].setDown("refused");
  const read = await readFromAggregators(walrus.aggregatorUrls, blobId, slowHedge);
  assert.equal(read.kind, "found", "no hedge wait: each failure starts the next one");

  const unknown = await walrus.blobIdOf(new TextEncoder().encode("unknown"));
  assert.deepEqual(await readFromAggregators(walrus.aggregatorUrls, unknown, slowHedge), {
    kind: "not_found",
  });
  await walrus.aggregators[2].setDown("unavailable");
  const down = await readFromAggregators(walrus.aggregatorUrls, blobId, slowHedge);
  assert.equal(down.kind, "unavailable");
  assert.equal((down as { causes: unknown[] }).causes.length, 3);
});

Deno.test("readFromAggregators: a body over the limit is a failure, not the blob", async () => {
  await using walrus = startFakeWalrus({ aggregators: 1 });
  const blobId = await walrus.seed(new Uint8Array(2048));
  const read = await readFromAggregators(walrus.aggregatorUrls, blobId, options);
  assert.equal(read.kind, "unavailable");
});

Deno.test("readFromAggregators: the caller's abort stops every request", async () => {
  await using walrus = startFakeWalrus({ aggregators: 2 });
  const blobId = await walrus.seed(new TextEncoder().encode("bytes"));
  for (const a of walrus.aggregators) a.latencyMs = 60_000;
  const { seen, fetch } = recordingFetch();
  const controller = new AbortController();
  const reading = readFromAggregators(walrus.aggregatorUrls, blobId, {
    ...options,
    fetch,
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(new Error("caller gave up")), 100);
  const read = await reading;
  assert.equal(read.kind, "unavailable");
  assert.equal(seen.length, 2);
  assert.ok(seen.every((s) => s.signal.aborted));
});
