/**
 * Recall's quality features through the HTTP API (in-process relayer, signed requests):
 * threads (validated, kept, and the only place neighbours lift each other), `min_score`,
 * `explain`, words of Japanese, Chinese and Thai found by a part of their text, and the MCP
 * recall tool's answer when nothing clears the minimum score, and a question about "my
 * brother-in-law" asked again of the name a memory gives them.
 */
import assert from "node:assert/strict";
import { type Caller, rememberAll, startTestRelayer, type TestRelayer } from "./fixtures.ts";
import { startMcpStack, textOf } from "./mcp_fixtures.ts";
import { LexicalEmbedder } from "../plugins/lexical_embedder/mod.ts";
import type { EmbedOptions } from "../src/backends/types.ts";

type Result = {
  id: string;
  text: string;
  score: number;
  explain?: Record<string, number | string | null>;
};

async function recall(t: TestRelayer, caller: Caller, body: Record<string, unknown>) {
  const res = await t.signed(caller, "POST", "/api/recall", body);
  assert.equal(res.status, 200);
  return (await res.json()) as { results: Result[]; total: number };
}

Deno.test("thread: validated on remember and bulk, kept by get and by an update", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  for (
    const [thread, message] of [
      ["", /thread must be a string of 1 to 128 characters/],
      ["x".repeat(129), /thread must be a string of 1 to 128 characters/],
      [7, /thread must be a string/],
      ["a\nb", /thread must not contain control characters/],
    ] as const
  ) {
    const one = await t.signed(caller, "POST", "/api/remember", { text: "hi", thread });
    assert.equal(one.status, 400);
    assert.match((await one.json()).error, message);
    const bulk = await t.signed(caller, "POST", "/api/remember/bulk", {
      items: [{ text: "hi" }, { text: "ho", thread }],
    });
    assert.equal(bulk.status, 400);
  }
  const thread = "chat 2026-07-01 ✓".padEnd(128, "·");
  const [id] = await rememberAll(t, caller, [{ text: "We talked about bees", thread }]);
  const memory = await (await t.signed(caller, "GET", `/api/memories/${id}`)).json();
  assert.equal(memory.thread, thread);
  const update = await t.signed(caller, "PUT", `/api/memories/${id}`, { text: "About wasps" });
  assert.equal(update.status, 202);
  const { job_id } = await update.json();
  await t.settle(caller, [job_id]);
  const updated = await (await t.signed(caller, "GET", `/api/memories/${job_id}`)).json();
  assert.equal(updated.thread, thread, "the new version keeps the thread");
  const [loose] = await rememberAll(t, caller, [{ text: "No thread here" }]);
  assert.equal(
    (await (await t.signed(caller, "GET", `/api/memories/${loose}`)).json()).thread,
    null,
  );
});

Deno.test("thread: the same text in two threads is two memories, twice in one thread one", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const ids = await rememberAll(t, caller, [
    { text: "Thanks, see you tomorrow!", thread: "a" },
    { text: "Thanks, see you tomorrow!", thread: "b" },
  ]);
  assert.notEqual(ids[0], ids[1]);
  const again = await t.signed(caller, "POST", "/api/remember", {
    text: "thanks,  see you tomorrow!",
    thread: "a",
  });
  assert.equal(again.status, 200);
  assert.equal((await again.json()).duplicate_of, ids[0]);
});

Deno.test("thread: neighbours lift each other only within their thread", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  // The answer shares no word with the question; the turn before it does.
  const turns = [
    "Which colour should the nursery be painted?",
    "Sage, the soft one from the sample card.",
  ];
  const [question, answer] = await rememberAll(
    t,
    caller,
    turns.map((text) => ({ text, thread: "call-1", namespace: "threaded" })),
  );
  const [, loose] = await rememberAll(
    t,
    caller,
    turns.map((text) => ({ text, namespace: "loose" })),
  );
  const body = { query: "nursery colour painted", min_score: 0, explain: true };
  const threaded = await recall(t, caller, { ...body, namespace: "threaded" });
  const got = threaded.results.find((r) => r.id === answer)!;
  assert.equal(got.explain?.neighbour_id, question);
  assert.ok((got.explain?.neighbour as number) > 0.3);
  assert.ok(got.score > (got.explain?.fused as number), "lifted above its own score");
  const plain = await recall(t, caller, { ...body, namespace: "loose" });
  const alone = plain.results.find((r) => r.id === loose);
  assert.ok(alone, "still recalled (min_score 0)");
  assert.equal(alone.explain?.neighbour, 0);
  assert.equal(alone.explain?.neighbour_id, null);
  assert.equal(alone.score, alone.explain?.fused, "no thread: its own score");
});

Deno.test("min_score: unrelated memories stay out; the default keeps a good match", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  await rememberAll(t, caller, [
    { text: "I keep bees on the allotment" },
    { text: "My sister lives in Porto" },
  ]);
  const unrelated = await recall(t, caller, { query: "quantum chromodynamics lecture" });
  assert.deepEqual(unrelated, { results: [], total: 0 });
  const everything = await recall(t, caller, { query: "quantum chromodynamics", min_score: 0 });
  assert.equal(everything.total, 2, "min_score 0 keeps every candidate");
  const bees = await recall(t, caller, { query: "where are my bees?" });
  assert.equal(bees.results[0].text, "I keep bees on the allotment");
  assert.ok(bees.results.every((r) => r.score >= 0.2), "the default minimum");
  const strict = await recall(t, caller, { query: "where are my bees?", min_score: 1 });
  assert.equal(strict.total, 0);
  for (const min_score of [-0.1, 1.5, "0.5", true]) {
    const res = await t.signed(caller, "POST", "/api/recall", { query: "bees", min_score });
    assert.equal(res.status, 400, `min_score ${min_score}`);
    assert.match((await res.json()).error, /min_score must be/);
  }
  const res = await t.signed(caller, "POST", "/api/recall", { query: "bees", explain: "yes" });
  assert.equal(res.status, 400);
  assert.match((await res.json()).error, /explain must be true or false/);
});

Deno.test("explain: each result's vector, lexical, re-rank and neighbour parts", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  await rememberAll(t, caller, [{ text: "I commute by bicycle" }, { text: "I own a red car" }]);
  const plain = await recall(t, caller, { query: "bicycle commute" });
  assert.equal(plain.results[0].explain, undefined, "only when asked");
  const { results } = await recall(t, caller, { query: "bicycle commute", explain: true });
  const [best] = results;
  assert.equal(best.text, "I commute by bicycle");
  assert.deepEqual(Object.keys(best.explain!).sort(), [
    "answer_type",
    "asked_about",
    "fused",
    "lexical",
    "neighbour",
    "neighbour_id",
    "rerank",
    "vector",
  ]);
  const { vector, lexical, rerank, fused } = best.explain as Record<string, number | null>;
  assert.equal(lexical, 1, "the best lexical match");
  assert.equal(rerank, null, "this relayer has no re-ranker");
  assert.ok(Math.abs(fused! - (vector! + 0.25 * lexical!) / 1.25) < 1e-9, "a fact's weights");
  assert.equal(best.score, fused);
  await rememberAll(t, caller, [{ text: "I cycle to the office", thread: "chat" }]);
  const turn = (await recall(t, caller, { query: "cycle office", explain: true })).results[0];
  const parts = turn.explain as Record<string, number>;
  assert.ok(Math.abs(parts.fused - (parts.vector + parts.lexical) / 2) < 1e-9, "a turn's");
});

for (
  const [script, text, query] of [
    ["Japanese", "私は東京の渋谷に住んでいて、毎朝コーヒーを飲みます", "渋谷"],
    ["Chinese", "我每天骑自行车去上班，路上大约二十五分钟", "上班"],
    ["Thai", "ฉันชอบกินข้าวผัดกับไก่ทุกวันตอนเที่ยง", "ข้าวผัด"],
  ]
) {
  Deno.test(`${script}: a memory is found by a word of its text`, async () => {
    await using t = await startTestRelayer();
    const caller = await t.newCaller();
    await rememberAll(t, caller, [{ text }, { text: "I keep bees" }, { text: "東京タワー" }]);
    const { results } = await recall(t, caller, { query, explain: true });
    assert.equal(results[0]?.text, text);
    assert.equal(results[0].explain?.lexical, 1);
    assert.ok(!results.some((r) => r.text === "I keep bees"));
  });
}

Deno.test("svc_recall: no matching memories when nothing clears the minimum score", async () => {
  await using stack = await startMcpStack();
  const client = await stack.connect(await stack.test.newCaller());
  const saved = await client.callTool({
    name: "svc_remember",
    arguments: { text: "I keep bees on the allotment", thread: "garden-chat" },
  });
  assert.match(textOf(saved), /^Saved to memory/);
  const unrelated = await client.callTool({
    name: "svc_recall",
    arguments: { query: "quantum chromodynamics lecture" },
  });
  assert.equal(textOf(unrelated), "No matching memories found");
  const bees = await client.callTool({ name: "svc_recall", arguments: { query: "bees" } });
  assert.match(textOf(bees), /^1\. \[score \d\.\d\d\] I keep bees on the allotment/);
  const strict = await client.callTool({
    name: "svc_recall",
    arguments: { query: "bees", min_score: 1 },
  });
  assert.equal(textOf(strict), "No matching memories found");
});

Deno.test("relations: a question about a relation finds what the store says of its name", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [link, answer] = await rememberAll(t, caller, [
    { text: "Oskar is married to my sister." },
    { text: "Oskar goes fishing on the fjord." },
    { text: "My brother plays chess at weekends." },
    { text: "I do the laundry at weekends." },
    { text: "My sister does yoga at weekends." },
  ]);
  const body = { query: "What does my brother-in-law do at weekends?", limit: 3, min_score: 0.1 };
  const found = await recall(t, caller, { ...body, explain: true });
  const fishing = found.results.find((r) => r.id === answer);
  assert.equal(fishing?.explain?.asked_about, "Oskar", JSON.stringify(found.results));
  // Erased, the memory that said who Oskar is no longer leads to him.
  assert.equal((await t.signed(caller, "DELETE", `/api/memories/${link}`)).status, 200);
  const after = await recall(t, caller, body);
  assert.ok(!after.results.some((r) => r.id === answer), JSON.stringify(after.results));
});

Deno.test("relations: the question asked of the name is embedded while the question is", async () => {
  // The question's embedding is held until another query comes (or, failing that, for a second).
  const asked: { text: string; firstPending: boolean }[] = [];
  let first: PromiseWithResolvers<void> | undefined;
  let firstPending = false;
  const embedder = new LexicalEmbedder();
  const embed = embedder.embed.bind(embedder);
  embedder.embed = async (texts: string[], options?: EmbedOptions) => {
    if (options?.purpose === "query") {
      asked.push({ text: texts[0], firstPending });
      if (first) first.resolve();
      else {
        first = Promise.withResolvers<void>();
        firstPending = true;
        const timer = setTimeout(first.resolve, 1000);
        await first.promise;
        clearTimeout(timer);
        firstPending = false;
      }
    }
    return await embed(texts, options);
  };
  await using t = await startTestRelayer({ embedder });
  const caller = await t.newCaller();
  await rememberAll(t, caller, [
    { text: "Oskar is married to my sister." },
    { text: "Oskar goes fishing on the fjord." },
  ]);
  await recall(t, caller, { query: "What does my brother-in-law do at weekends?" });
  assert.deepEqual(asked, [
    { text: "What does my brother-in-law do at weekends?", firstPending: false },
    { text: "What does Oskar do at weekends?", firstPending: true },
  ]);
});

Deno.test("re-ranker: asked only of the kinds of memory the embedder's weights give it a part in", async () => {
  const embedder = new LexicalEmbedder();
  const weights = {
    turn: { lexical: 1, rerank: 2, answer: 0 },
    fact: { lexical: 0.25, rerank: 0, answer: 1 },
  };
  Object.defineProperty(embedder, "ranking", { value: { weights } });
  const asked: string[][] = [];
  const reranker = {
    name: "counting",
    rerank: (_query: string, texts: string[]) => {
      asked.push(texts);
      return Promise.resolve(texts.map(() => 0.5));
    },
  };
  await using t = await startTestRelayer({ embedder, reranker });
  const caller = await t.newCaller();
  const [fact, turn] = await rememberAll(t, caller, [
    { text: "My bicycle is a green Dutch bike." },
    { text: "I ride my bicycle to work.", thread: "chat-1" },
  ]);
  const { results } = await recall(t, caller, { query: "bicycle", min_score: 0, explain: true });
  assert.deepEqual(asked, [["I ride my bicycle to work."]]);
  assert.deepEqual(results.map((r) => r.id).sort(), [fact, turn].sort());
  assert.equal(results.find((r) => r.id === fact)?.explain?.rerank, null);
  assert.equal(results.find((r) => r.id === turn)?.explain?.rerank, 0.5);
});

Deno.test("relations: among several friends, the one called as the question does is asked about first", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  await rememberAll(t, caller, [
    { text: "Mags and I have been best friends since school." },
    { text: "Callum has been my friend since primary school." },
    { text: "My friend Aoife moved to Cork." },
    { text: "My old friend Dara plays the fiddle." },
    { text: "My pen pal Yuki writes to me from Osaka." },
    { text: "Mags runs a bakery." },
    { text: "Callum runs a pub." },
    { text: "Yuki runs a tea shop." },
  ]);
  const query = "What kind of shop does my pen pal run?";
  const { results } = await recall(t, caller, { query, limit: 3, explain: true });
  const tea = results.find((r) => /tea shop/.test(r.text));
  assert.equal(tea?.explain?.asked_about, "Yuki", JSON.stringify(results.map((r) => r.text)));
  // The question's words find no one in place of those the relation defines.
  await rememberAll(t, caller, [
    { text: "My stepmum Eileen is lovely." },
    { text: "Eileen turned seventy in May." },
    ...["politics", "football", "the garden", "money", "the dog"].map((topic) => ({
      text: `My wife and my father argued about ${topic}.`,
    })),
    // Enough other memories that "wife" and "father" are rare words.
    ...Array.from({ length: 60 }, (_, i) => ({ text: `Shopping list ${i}: bread and milk.` })),
  ]);
  const age = await recall(t, caller, { query: "How old is my father's wife?", explain: true });
  const seventy = age.results.find((r) => /seventy/.test(r.text));
  assert.equal(seventy?.explain?.asked_about, "Eileen");
});

Deno.test("relations: a question about a name finds what the store says of its relation", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [, answer] = await rememberAll(t, caller, [
    { text: "My sister Niamh came to stay at Easter." },
    { text: "My sister is a nurse in Galway." },
    { text: "Niamh likes long walks at weekends." },
    { text: "I do the laundry at weekends." },
    { text: "Our nurse at the surgery is kind." },
  ]);
  const body = { query: "Where does Niamh work?", limit: 3, min_score: 0.1, explain: true };
  const { results } = await recall(t, caller, body);
  const found = results.find((r) => r.id === answer);
  assert.equal(found?.explain?.asked_about, "my sister", JSON.stringify(results));
  // Asked by her full name, where the store knows her first name.
  const full = await recall(t, caller, { ...body, query: "Where does Niamh Kelly work?" });
  const byFull = full.results.find((r) => r.id === answer);
  assert.equal(byFull?.explain?.asked_about, "my sister", JSON.stringify(full.results));
  // Not when the store defines the full name as someone else.
  await rememberAll(t, caller, [{ text: "My friend Niamh O'Brien is a vet." }]);
  const other = await recall(t, caller, { ...body, query: "Where does Niamh O'Brien work?" });
  assert.ok(other.results.every((r) => r.explain?.asked_about !== "my sister"));
});

Deno.test("things: a question about a thing finds what the store says of its name", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [link, answer] = await rememberAll(t, caller, [
    { text: "My car is a Volvo estate." },
    { text: "I bought the Volvo in March 2021." },
    { text: "My car is due a wash." },
    { text: "I have had my bicycle since school." },
    { text: "The Volvo plant in Ghent builds trucks." },
    { text: "My second car is a Nissan Leaf." },
    { text: "The maple leaf is on the Canadian flag." },
  ]);
  const body = { query: "How long have I had my car?", limit: 3, min_score: 0.1 };
  const found = await recall(t, caller, { ...body, explain: true });
  const bought = found.results.find((r) => r.id === answer);
  assert.equal(bought?.explain?.asked_about, "Volvo", JSON.stringify(found.results));
  // The memory that gives the name is not asked about again.
  const giver = found.results.find((r) => r.id === link);
  assert.ok(giver && giver.explain?.asked_about === null, JSON.stringify(found.results));
  // A name's common word is no name: "the maple leaf" does not say "Nissan Leaf".
  const second = await recall(t, caller, {
    query: "How long have I had my second car?",
    limit: 5,
    min_score: 0,
    explain: true,
  });
  assert.ok(
    second.results.every((r) => !r.text.includes("maple") || !r.explain?.asked_about),
    JSON.stringify(second.results),
  );
  // A thing's words may run into the question's verb: "our caravan kept" is "our caravan".
  const [, stored] = await rememberAll(t, caller, [
    { text: "Our caravan is a Bailey Pegasus." },
    { text: "The Bailey is stored on a farm near Kinsale." },
  ]);
  const caravan = await recall(t, caller, {
    query: "Where is our caravan kept?",
    limit: 3,
    min_score: 0,
    explain: true,
  });
  assert.equal(
    caravan.results.find((r) => r.id === stored)?.explain?.asked_about,
    "Bailey Pegasus",
    JSON.stringify(caravan.results),
  );
  // Erased, the memory that named the car no longer leads to the Volvo.
  assert.equal((await t.signed(caller, "DELETE", `/api/memories/${link}`)).status, 200);
  const after = await recall(t, caller, body);
  assert.ok(!after.results.some((r) => r.id === answer), JSON.stringify(after.results));
});

Deno.test("times: a relative time is also asked as the year it names", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const year = new Date().getFullYear();
  const [, , berlin] = await rememberAll(t, caller, [
    { text: `I ran the Rome marathon in ${year - 6}.` },
    { text: `I ran the Paris marathon in ${year - 4}.` },
    { text: `I ran the Berlin marathon in ${year - 2}.` },
  ]);
  const asked = { query: "Which marathon did I run two years ago?", limit: 1, explain: true };
  const [first] = (await recall(t, caller, asked)).results;
  assert.equal(first.id, berlin, first.text);
  assert.equal(first.explain?.asked_about, `in ${year - 2}`);
  // A memory's own relative time is read against when it was written.
  const [paris] = await rememberAll(t, caller, [
    { text: "Last year I ran the Paris marathon." },
    { text: `I ran the Dublin marathon in ${year - 3}.` },
  ]);
  const last = { query: `Which marathon did I run in ${year - 1}?`, limit: 1 };
  assert.equal((await recall(t, caller, last)).results[0].id, paris);
  // A season is asked about as its months.
  const [august] = await rememberAll(t, caller, [
    { text: "My in-laws are coming to stay with us for two weeks in August." },
    { text: "Our neighbours are visiting their family in Poland at Christmas." },
    { text: "My sister came to see us at Easter." },
  ]);
  const summer = { query: "Who is visiting us this summer?", limit: 3, explain: true };
  const found = (await recall(t, caller, summer)).results.find((r) => r.id === august);
  assert.equal(found?.explain?.asked_about, `in June, July or August ${year}`);
});

Deno.test("limits: whether the user may do something is also asked of what keeps them from it", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  const [gluten] = await rememberAll(t, caller, [
    { text: "The reason I skip pastries: gluten gives me cramps." },
    { text: "The reason Callum skips pastries: he is allergic to nuts." },
    { text: "The hotel serves breakfast from seven until ten." },
    { text: "The croissants at the Small Street café are the best in town." },
    { text: "I eat porridge with honey for breakfast." },
    { text: "Our hotel in Lisbon had a rooftop pool." },
  ]);
  const query = "Can I eat the croissants at the hotel breakfast?";
  const { results } = await recall(t, caller, { query, limit: 10, min_score: 0.01, explain: true });
  const asked = (text: RegExp) =>
    results.find((r) => text.test(r.text))?.explain?.asked_about ?? null;
  assert.equal(results.find((r) => r.id === gluten)?.explain?.asked_about, "a reason I can't");
  // Only the user's limits: Callum's, which says the same of him, is not asked about.
  assert.equal(asked(/Callum/), null);
  assert.equal(asked(/Lisbon/), null);
  // Whom the question names is still asked about too.
  await rememberAll(t, caller, [
    { text: "My brother Tom lives in Leeds." },
    { text: "Tom's car is a red Golf." },
  ]);
  const car = await recall(t, caller, { query: "Could I borrow my brother's car?", explain: true });
  assert.equal(car.results.find((r) => /Golf/.test(r.text))?.explain?.asked_about, "Tom");
});

Deno.test("nothing matches: no memory about whom a question asks holds the kind of answer it asks for", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  await rememberAll(t, caller, [
    { text: "Callum is vegan and won't even eat honey." },
    { text: "Callum lives in a flat in Leith." },
    { text: "My sister Hanne works at a bank." },
    { text: "I turned 40 in March." },
  ]);
  const ask = (query: string, more: Record<string, unknown> = {}) =>
    t.signed(caller, "POST", "/api/recall", { query, ...more }).then((res) => res.json());
  // Callum's memories hold no number; the user's age does not answer for him.
  const old = await ask("How old is Callum?", { explain: true });
  assert.deepEqual(old.results, []);
  assert.deepEqual(old.no_answer, { about: "Callum", asks_for: "number" });
  // What he is to the user finds memories about him by "my best friend", not by "friends".
  await rememberAll(t, caller, [
    { text: "Callum has been my best friend since primary school." },
    { text: "We bought the dinghy with two friends." },
  ]);
  const friend = await ask("How old is Callum?", { explain: true });
  assert.deepEqual(friend.no_answer, { about: "Callum", asks_for: "number" });
  // Called in other forms still: a full name, a curly apostrophe, "the cat".
  await rememberAll(t, caller, [
    { text: "Diarmuid is my father’s brother." },
    { text: "My father’s brother turned 60 in May." },
    { text: "Tibbles is my cat." },
    { text: "The cat weighs 5 kilos now." },
    { text: "Oisín turned 40 in May." },
    { text: "Oisín Ryan lives next door to my mum." },
  ]);
  const questions = [
    "How old is Diarmuid?",
    "How much does Tibbles weigh?",
    "How old is Oisín Ryan?",
  ];
  for (const question of questions) {
    const kept = await ask(question, { explain: true });
    assert.equal(kept.no_answer, undefined, question);
    assert.ok(kept.results.length > 0, question);
  }
  // A relation, through the name the store gives it.
  const sister = await ask("When did my sister start at the bank?", { explain: true });
  assert.deepEqual(sister.no_answer, { about: "my sister", asks_for: "time" });
  // A year the question names is no name of Callum's: the marathon in it is not about him.
  const year = new Date().getFullYear();
  await rememberAll(t, caller, [{ text: `I ran the Berlin marathon in ${year - 2}.` }]);
  const then = await ask("How old was Callum two years ago?", { explain: true });
  assert.deepEqual(then.no_answer, { about: "Callum", asks_for: "number" });
  // min_score still decides; explain still says why.
  const given = await ask("How old is Callum?", { min_score: 0, explain: true });
  assert.ok(given.results.length > 0);
  assert.equal(given.no_answer.about, "Callum");
  // "How long" asks for a length too; "in her forties" is an age.
  await rememberAll(t, caller, [
    { text: "Pepper's lead is 2 metres." },
    { text: "Ottilie is in her forties." },
  ]);
  assert.match((await ask("How long is Pepper's lead?")).results[0].text, /2 metres/);
  assert.match((await ask("How old is Ottilie?")).results[0].text, /forties/);
  // Another kind of question, or a memory with the kind of answer, is answered as before.
  assert.ok((await ask("What can't Callum eat?")).results.length > 0);
  // A birthday asks for a day of the year, which "every morning" is not.
  await rememberAll(t, caller, [{ text: "Callum swims every morning before work." }]);
  const birthday = await ask("When is Callum's birthday?", { explain: true });
  assert.deepEqual(birthday.no_answer, { about: "Callum", asks_for: "date" });
  await rememberAll(t, caller, [{ text: "Callum turned 38 last week." }]);
  const now = await ask("How old is Callum?", { explain: true });
  assert.match(now.results[0].text, /turned 38/);
  assert.equal(now.no_answer, undefined);
  assert.equal((await ask("When is Callum's birthday?", { explain: true })).no_answer, undefined);
  // A name or a place is asked for too: Fergus's own name is not his surname.
  await rememberAll(t, caller, [
    { text: "Fergus fixed my bike last week." },
    { text: "Fergus loves jazz." },
    { text: "Jerry is my husband's best friend." },
    { text: "Jerry loves jazz too." },
    { text: "My husband's best friend has a season ticket at Turners Cross." },
  ]);
  const surname = await ask("What is Fergus's surname?", { explain: true });
  assert.deepEqual(surname.no_answer, { about: "Fergus", asks_for: "name" });
  const grew = await ask("Where did Fergus grow up?", { explain: true });
  assert.deepEqual(grew.no_answer, { about: "Fergus", asks_for: "origin" });
  // A name after a preposition is a place, no part of his.
  await rememberAll(t, caller, [{ text: "Fergus swims at Sandycove with the club in Dalkey." }]);
  assert.deepEqual((await ask("What is Fergus's surname?", { explain: true })).no_answer, {
    about: "Fergus",
    asks_for: "name",
  });
  // Another person the store knows is no part of someone's name; their own full name is.
  await rememberAll(t, caller, [
    { text: "Breda married my brother Finbarr in 1989." },
    { text: "Breda does the flowers for the church every Saturday." },
  ]);
  const maiden = await ask("What was Breda's maiden name?", { explain: true });
  assert.deepEqual(maiden.no_answer, { about: "Breda", asks_for: "name" });
  // A name right after hers is hers, whoever else bears it.
  await rememberAll(t, caller, [{ text: "Fergus Ryan coaches my son Ryan at hurling." }]);
  assert.equal((await ask("What is Fergus's surname?", { explain: true })).no_answer, undefined);
  // A relative's surname may be hers.
  await rememberAll(t, caller, [{ text: "Breda's brother is my uncle Finbarr Kelly." }]);
  assert.equal(
    (await ask("What was Breda's maiden name?", { explain: true })).no_answer,
    undefined,
  );
  await rememberAll(t, caller, [{ text: "My sister-in-law Breda Murphy sings in the choir." }]);
  const named = await ask("What was Breda's maiden name?", { explain: true });
  assert.equal(named.no_answer, undefined);
  assert.ok(named.results.length > 0);
  // A name may open a memory.
  await rememberAll(t, caller, [
    { text: "Orla teaches piano." },
    { text: "Declan is Orla's husband." },
  ]);
  const husband = await ask("What is the name of Orla's husband?", { explain: true });
  assert.equal(husband.no_answer, undefined);
  assert.match(husband.results[0]?.text ?? "", /Declan/);
  await rememberAll(t, caller, [{ text: "Galway is where Orla grew up." }]);
  assert.equal((await ask("Where did Orla grow up?", { explain: true })).no_answer, undefined);
  // Who someone is, any memory about them may say.
  await rememberAll(t, caller, [{ text: "My dog is called Nemo." }]);
  assert.match((await ask("Who is Nemo?")).results[0]?.text ?? "", /Nemo/);
  // The name the store gives a relation is what it is called.
  await rememberAll(t, caller, [{ text: "Our dog is called Biscuit." }]);
  assert.match((await ask("What is our dog called?")).results[0]?.text ?? "", /Biscuit/);
  // A memory may name him by what he is to the user.
  const ticket = await ask("Where does Jerry have a season ticket?");
  assert.match(ticket.results[0]?.text ?? "", /Turners Cross/);
  await rememberAll(t, caller, [{ text: "Fergus grew up on a farm outside Tralee." }]);
  assert.match((await ask("Where did Fergus grow up?")).results[0].text, /Tralee/);
  // Which one of a kind of thing: no memory about Ivan names an instrument, or plays one.
  await rememberAll(t, caller, [
    { text: "Ivan conducts the choir I sing with at St Luke's." },
    { text: "Ivan wants the requiem learnt off by heart before Easter." },
  ]);
  const instrument = await ask("What instrument does Ivan play?", { explain: true });
  assert.deepEqual(instrument.results, []);
  assert.deepEqual(instrument.no_answer, { about: "Ivan", asks_for: "instrument" });
  await rememberAll(t, caller, [{ text: "Ivan has a battered old cello in his office." }]);
  const cello = await ask("What instrument does Ivan play?", { explain: true });
  assert.equal(cello.no_answer, undefined);
  assert.match(cello.results[0]?.text ?? "", /cello/);
  // The MCP tool says so too.
  await using stack = await startMcpStack();
  const mcp = await stack.connect(await stack.test.newCaller());
  await mcp.callTool({ name: "svc_remember", arguments: { text: "Callum lives in Leith." } });
  const tool = await mcp.callTool({
    name: "svc_recall",
    arguments: { query: "How old is Callum?" },
  });
  assert.equal(textOf(tool), "No matching memories found");
});

Deno.test("nothing matches: about a thing, a pet by name and kind, where someone is from", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  await rememberAll(t, caller, [
    { text: "My road bike is a blue Ribble with a carbon frame." },
    { text: "I keep my road bike on a hook in the hallway." },
    { text: "The piano was last tuned in January by Mr Pryce." },
    { text: "The piano's middle C sticks in damp weather." },
    { text: "Bertram the tortoise is about forty years old." },
    { text: "Rosalind grows prize-winning dahlias in her back garden." },
    { text: "My granddaughter Ellie is seven and mad about horses." },
    { text: "Our vet does home visits on Thursdays." },
    { text: "The man who owns our holiday cottage wants the deposit by May." },
    { text: "The kids' school is a ten-minute walk from our flat." },
    { text: "The hospital car park is free for visitors." },
    { text: "Our TV is a 55-inch LG OLED." },
    { text: "My favourite TV series is The Wire." },
    { text: "The Wire first aired in 2002." },
  ]);
  const ask = (query: string) =>
    t.signed(caller, "POST", "/api/recall", { query, explain: true }).then((res) => res.json());
  const lacked = {
    "How much did my road bike cost?": { about: "road bike", asks_for: "number" },
    "What make is the piano?": { about: "piano", asks_for: "make" },
    "How much does Bertram the tortoise weigh?": { about: "Bertram", asks_for: "weight" },
    "Where did Rosalind grow up?": { about: "Rosalind", asks_for: "origin" },
    "What is my granddaughter's favourite colour?": {
      about: "my granddaughter",
      asks_for: "colour",
    },
    // A thing's memories name it "LG OLED", not "The Wire": 2002 says nothing of the TV.
    "When did we buy our TV?": { about: "tv", asks_for: "time" },
  };
  for (const [question, why] of Object.entries(lacked)) {
    const answer = await ask(question);
    assert.deepEqual(answer.results, [], question);
    assert.deepEqual(answer.no_answer, why, question);
  }
  // What a question asks of a thing is not the thing: a code for the flat.
  assert.deepEqual((await ask("What is the postcode of our flat?")).no_answer, {
    about: "flat",
    asks_for: "code",
  });
  // Someone is no thing, nor a place; a last word is the question's verb only after "did",
  // "does" or "do" ("the school break" is no school).
  for (
    const question of [
      "Which day does our vet do home visits?",
      "When does the man who owns our holiday cottage want the deposit?",
      "When is my wife at the hospital overnight?",
      "When is the school break?",
    ]
  ) assert.equal((await ask(question)).no_answer, undefined, question);
  // A memory that calls the thing by the name its memories give it is about it.
  await rememberAll(t, caller, [
    { text: "My car is a Volvo estate." },
    { text: "I bought the Volvo in March 2021." },
  ]);
  const car = await ask("When did I buy my car?");
  assert.equal(car.no_answer, undefined);
  assert.ok(car.results.some((result: { text: string }) => /March 2021/.test(result.text)));
  assert.deepEqual((await ask("What colour is my car?")).no_answer, {
    about: "car",
    asks_for: "colour",
  });
  // Other words for the thing, a possessive, a place or a noun at the end: still answered.
  await rememberAll(t, caller, [
    { text: "My husband Tom is a plumber." },
    { text: "My husband loves golf." },
    { text: "My van is a Transit." },
    { text: "My van's paintwork is metallic blue." },
    { text: "The kitchen is painted sage green." },
    { text: "The extension cost €60,000 in 2020." },
    { text: "My bike cost £800." },
    { text: "The new boiler cost €3,000." },
    { text: "My house is in Clontarf." },
    { text: "Rosalind was brought up in the countryside." },
  ]);
  for (
    const question of [
      "What is my husband called?",
      "What colour is my van?",
      "How much did we pay for the kitchen extension?",
      "How much did I pay for the boiler in my house?",
      "Where did Rosalind grow up?",
      "How much did my road bike cost?",
    ]
  ) {
    const answer = await ask(question);
    assert.equal(answer.no_answer, undefined, question);
    assert.ok(answer.results.length > 0, question);
  }
  // A memory with the kind of answer, in the thing's own words, answers.
  await rememberAll(t, caller, [
    { text: "I paid €900 for my road bike." },
    { text: "The piano is a Yamaha upright." },
    { text: "Rosalind was born and raised on a farm." },
  ]);
  for (const question of Object.keys(lacked).slice(0, 2).concat("Where did Rosalind grow up?")) {
    const answer = await ask(question);
    assert.equal(answer.no_answer, undefined, question);
    assert.ok(answer.results.length > 0, question);
  }
});

Deno.test("nothing matches: a memory's relation phrase of any length answers, never a 500", async () => {
  await using t = await startTestRelayer();
  const caller = await t.newCaller();
  // Between "my best" and "friend", 40,000 newlines: a phrase read from the memory as it is.
  await rememberAll(t, caller, [{ text: `Bran is my best${"\n".repeat(40_000)}friend.` }]);
  const res = await t.signed(caller, "POST", "/api/recall", {
    query: "Where does Bran live?",
    explain: true,
  });
  assert.equal(res.status, 200);
  assert.deepEqual((await res.json()).no_answer, { about: "Bran", asks_for: "place" });
});
