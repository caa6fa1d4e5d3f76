/**
 * Changing the embedder under load: a relayer on lexical vectors reindexes to GloVe while
 * clients remember, erase and recall. Nothing remembered is lost, nothing erased comes back,
 * and every recall is answered from one index: each result's distance is the query's distance
 * to the memory under one embedder, the same for all the results of a recall. A row indexed by an
 * earlier version gains the terms its text is indexed by today.
 */
import assert from "node:assert/strict";
import { EncryptedIndexSet } from "../plugins/encrypted_index/mod.ts";
import { GloveEmbedder } from "../plugins/glove_embedder/mod.ts";
import { LanceDbIndexSet } from "../plugins/lancedb/mod.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import { LocalCipher } from "../plugins/local_cipher/mod.ts";
import { cosineDistance } from "../src/backends/memory.ts";
import type { Embedder, VectorIndexSet } from "../src/backends/types.ts";
import { VectorSeal } from "../src/pipeline/vector_seal.ts";
import { TermHasher } from "../src/ranking/terms.ts";
import { IndexSwitch, planReindex, Reindexer, ReindexState } from "@svc/relayer/reindex";
import { KvStateStore } from "@svc/denokv";
import { type Caller, jsonOf, startTestRelayer, type TestRelayer } from "./fixtures.ts";
import { TEST_MODELS_DIR } from "./relayer_process.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOPICS = ["cycling", "cooking", "my sister", "the garden", "jazz", "taxes", "Lisbon"];
const fact = (i: number, kind: string) =>
  `${kind} fact ${i}: I think about ${TOPICS[i % TOPICS.length]} every day, note ${i * 7919}`;

async function rememberBulk(t: TestRelayer, caller: Caller, texts: string[]): Promise<string[]> {
  const body = await jsonOf(
    await t.signed(caller, "POST", "/api/remember/bulk", {
      items: texts.map((text) => ({ text })),
    }),
    202,
  );
  return body.job_ids;
}

/** Waits for every job, 100 at a time (the status route's limit). */
async function settleAll(t: TestRelayer, caller: Caller, ids: string[]): Promise<void> {
  for (let i = 0; i < ids.length; i += 100) await t.settle(caller, ids.slice(i, i + 100));
}

/** The ids `GET /api/memories` lists in the default namespace, sorted. */
async function listIds(t: TestRelayer, caller: Caller): Promise<string[]> {
  const ids: string[] = [];
  let cursor = "";
  do {
    const query = `?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const page = await jsonOf(await t.signed(caller, "GET", `/api/memories${query}`));
    ids.push(...page.memories.map((m: { id: string }) => m.id));
    cursor = page.next_cursor ?? "";
  } while (cursor);
  return ids.sort();
}

/** A recall result, with `explain`. */
interface Explained {
  text: string;
  distance: number;
  explain?: { asked_about: string | null };
}

/**
 * Which embedders a recall's results agree with: "old", "new" or "both"; throws on a mix. A
 * result found by another question (`asked_about`: "my sister" asked as "Hanne") has that
 * question's distance, and is left out.
 */
async function answeredBy(
  query: string,
  answered: Explained[],
  old: Embedder,
  next: Embedder,
): Promise<"old" | "new" | "both"> {
  const results = answered.filter((r) => !r.explain?.asked_about);
  const texts = results.map((r) => r.text);
  const [[qOld, ...tOld], [qNew, ...tNew]] = await Promise.all([
    old.embed([query, ...texts]),
    next.embed([query, ...texts]),
  ]);
  let allOld = true, allNew = true;
  results.forEach((r, i) => {
    const byOld = Math.abs(r.distance - cosineDistance(qOld, tOld[i])) < 1e-3;
    const byNew = Math.abs(r.distance - cosineDistance(qNew, tNew[i])) < 1e-3;
    assert.ok(byOld || byNew, `result ${i} of "${query}" matches neither embedder`);
    allOld &&= byOld;
    allNew &&= byNew;
  });
  assert.ok(allOld || allNew, `the results of "${query}" mix the two indexes`);
  return allOld && allNew ? "both" : allOld ? "old" : "new";
}

async function reindexUnderLoad(openSet: (dir: string) => Promise<VectorIndexSet>) {
  const dir = await Deno.makeTempDir({ prefix: "svc-reindex-" });
  const secret = crypto.getRandomValues(new Uint8Array(32));
  const lexical = new LexicalEmbedder();
  const glove = await GloveEmbedder.open({ cacheDir: TEST_MODELS_DIR });
  const set = await openSet(dir);
  const source = await set.open(await set.active(), lexical);
  const indexes = new IndexSwitch({ name: "index", embedder: lexical, store: source });
  const cipher = await LocalCipher.open({ masterKey: secret });
  try {
    await using t = await startTestRelayer({
      secret,
      cipher,
      vectors: indexes.vectors,
      embedder: indexes.embedder,
    });
    const alice = await t.newCaller();
    const initial: string[] = [];
    for (let i = 0; i < 120; i += 20) {
      const texts = Array.from({ length: 20 }, (_, j) => fact(i + j, "initial"));
      initial.push(...await rememberBulk(t, alice, texts));
    }
    await settleAll(t, alice, initial);
    // A row as an earlier version indexed it: without the terms its text is indexed by today.
    const sisterText = "My sister Hanne lives in Oslo.";
    const [sister] = await rememberBulk(t, alice, [sisterText]);
    await settleAll(t, alice, [sister]);
    initial.push(sister);
    const stored = (await indexes.vectors.terms(alice.owner, "default")).find((r) =>
      r.id === sister
    )!;
    const [sisterVector] = await lexical.embed([sisterText]);
    await indexes.vectors.upsert([
      { ...stored, owner: alice.owner, namespace: "default", vector: sisterVector, terms: [] },
    ]);
    // A client-encrypted memory, of the old size: the new index cannot take it.
    const manual = await jsonOf(
      await t.signed(alice, "POST", "/api/remember/manual", {
        encrypted_data: btoa("sealed by the client"),
        vector: Array.from({ length: lexical.dimensions }, (_, i) => (i === 3 ? 1 : 0)),
      }),
    );
    // The catalog is read before the reindex (and must be read again after the switch).
    assert.equal((await listIds(t, alice)).length, initial.length + 1);

    const state = await ReindexState.open(new KvStateStore(t.kv), secret);
    const plan = await planReindex(set, state, glove);
    indexes.build({ name: plan.to, embedder: glove, store: await set.open(plan.to, glove) });
    const reindexer = new Reindexer({
      indexes: set,
      switch: indexes,
      state,
      cipher,
      blobs: t.blobs,
      vectorSeal: await VectorSeal.fromSecret(secret),
      hasher: await TermHasher.fromSecret(secret),
      batchSize: 8,
      ratePerSecond: 300,
      graceMs: 100,
    });
    let finished = false;
    const running = reindexer.run().finally(() => finished = true);

    const accepted: string[] = [];
    const writing = (async () => {
      // Until the switch and a little after it.
      for (let i = 0, after = 0; after < 5; i++) {
        if (finished) after++;
        accepted.push(
          ...await rememberBulk(t, alice, [0, 1, 2].map((j) => fact(i * 3 + j, "new"))),
        );
        await sleep(10);
      }
    })();
    const erased: string[] = [];
    const erasing = (async () => {
      for (const id of initial.slice(0, 60).filter((_, i) => i % 6 === 0)) {
        await jsonOf(await t.signed(alice, "DELETE", `/api/memories/${id}`));
        erased.push(id);
        await sleep(25);
      }
    })();
    const answers = { old: 0, new: 0, both: 0 };
    const recalling = (async () => {
      for (let i = 0, after = 0; after < 5; i++) {
        if (finished) after++;
        const query = `what about ${TOPICS[i % TOPICS.length]}?`;
        const res = await t.signed(alice, "POST", "/api/recall", {
          query,
          limit: 10,
          explain: true,
        });
        // A recall that straddled the old index's retirement may be asked to try again.
        if (res.status === 503) {
          await res.body?.cancel();
          continue;
        }
        const { results } = await jsonOf(res);
        assert.ok(results.length > 0);
        answers[await answeredBy(query, results, lexical, glove)]++;
      }
    })();
    const summary = await running;
    await Promise.all([writing, erasing, recalling]);
    await settleAll(t, alice, accepted);

    assert.equal(await set.active(), plan.to);
    assert.equal(indexes.active.name, plan.to);
    assert.equal(indexes.embedder.model, glove.model);
    assert.equal(await set.built("index"), null, "the old index is removed");
    assert.ok(answers.old > 0 && answers.new > 0, JSON.stringify(answers));
    for (let i = 0; i < accepted.length; i += 100) {
      const job_ids = accepted.slice(i, i + 100);
      const jobs = await jsonOf(
        await t.signed(alice, "POST", "/api/remember/bulk/status", { job_ids }),
      );
      assert.ok(jobs.results.every((j: { status: string }) => j.status === "done"));
    }
    const expected = new Set([...initial, ...accepted].filter((id) => !erased.includes(id)));
    const indexed = new Set(
      (await indexes.vectors.terms(alice.owner, "default")).map((row) => row.id),
    );
    assert.deepEqual([...indexed].sort(), [...expected].sort());
    assert.deepEqual(await listIds(t, alice), [...expected].sort(), "list agrees with the index");
    assert.ok(!indexed.has(manual.id));
    // Reindexed, the old row has its text's terms, the relation it names included.
    const hasher = await TermHasher.fromSecret(secret);
    const rows = await indexes.vectors.terms(alice.owner, "default");
    const sisterTerms = rows.find((r) => r.id === sister)!.terms;
    assert.deepEqual(sisterTerms, await hasher.hash(alice.owner, sisterText));
    assert.ok(sisterTerms.includes((await hasher.relations(alice.owner, ["sister"]))[0]));
    assert.equal(summary.skipped.manualDimensions, 1);
    // A restore of the namespace skips it (its vector is of the old size) and goes on.
    const restore = await jsonOf(
      await t.signed(alice, "POST", "/api/restore", { namespace: "default", limit: 500 }),
    );
    assert.deepEqual([restore.restored, restore.skipped], [0, restore.total]);
    assert.ok(summary.memories >= initial.length - erased.length);
    // After the switch, recall runs on GloVe vectors only; "my sister" is also asked as "Hanne".
    for (const query of ["who do I visit?", "what about my sister?"]) {
      const { results } = await jsonOf(
        await t.signed(alice, "POST", "/api/recall", { query, limit: 5, explain: true }),
      );
      assert.notEqual(await answeredBy(query, results, lexical, glove), "old");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("reindex under load (encrypted index): nothing lost, nothing erased returns, no recall mixes indexes", async () => {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  await reindexUnderLoad((dir) => EncryptedIndexSet.open({ dir, secret, soleWriter: true }));
});

Deno.test("reindex under load (LanceDB): nothing lost, nothing erased returns, no recall mixes indexes", async () => {
  await reindexUnderLoad((dir) => LanceDbIndexSet.open({ dir }));
});
