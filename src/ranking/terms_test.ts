import assert from "node:assert/strict";
import { NamespaceIndex } from "./lexical_index.ts";
import { LexicalIndex } from "./lexicon.ts";
import { timeOrderedId } from "../ids.ts";
import { MAX_TERMS, stem, TermHasher, terms } from "./terms.ts";
import type { TermsRow } from "../backends/types.ts";
import type { SvcError } from "../errors.ts";
import { digestOf, VARIED_TEXTS } from "../../tests/fixtures/varied_text.ts";

Deno.test("terms: stems, stop words and irregular pasts", () => {
  assert.deepEqual(terms("When did Caroline go to the support groups?"), [
    "caroline",
    "go",
    "support",
    "group",
  ]);
  assert.deepEqual(terms("I went running with my puppies"), ["go", "run", "puppy"]);
  assert.deepEqual(["boxes", "painted", "quickly", "1990s", "gas"].map(stem), [
    "box",
    "paint",
    "quick",
    "1990s",
    "gas",
  ]);
});

Deno.test("terms: keyed hashes differ per owner and never spell the word", async () => {
  const hasher = await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  const alice = await hasher.hash("0xalice", "marmalade marmalade toast");
  const bob = await hasher.hash("0xbob", "marmalade toast");
  assert.equal(alice.length, 3);
  assert.equal(alice[0], alice[1], "the same word, the same hash for one owner");
  assert.notEqual(alice[0], bob[0], "another owner, another hash");
  assert.ok(alice.every((h) => /^[0-9a-f]{16}$/.test(h)));
  const other = await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  assert.notDeepEqual(await other.hash("0xalice", "marmalade"), [alice[0]], "another secret");
});

Deno.test("terms: hashes kept between texts and queries are those a fresh hasher computes, by owner", async () => {
  const secret = crypto.getRandomValues(new Uint8Array(32));
  for (const keepMemoryTerms of [true, false]) {
    const hasher = await TermHasher.fromSecret(secret, { keepMemoryTerms });
    for (let round = 0; round < 2; round++) {
      for (const owner of ["0xalice", "0xbob"]) {
        for (const text of VARIED_TEXTS) {
          const fresh = await TermHasher.fromSecret(secret);
          assert.deepEqual(await hasher.hash(owner, text), await fresh.hash(owner, text));
          assert.deepEqual(await hasher.hashQuery(owner, text), await fresh.hashQuery(owner, text));
        }
      }
    }
    assert.notDeepEqual(
      await hasher.hashQuery("0xalice", "marmalade"),
      await hasher.hashQuery("0xbob", "marmalade"),
      "kept by owner and term",
    );
  }
});

Deno.test("terms: the hashes stored in existing indexes stay the same for the same text", async () => {
  // Indexes on disk hold these hashes: a change here makes old memories unfindable by word.
  // Changed once on purpose: Chinese, Japanese and Thai are cut into words, and combining marks
  // stay in their word (the texts with "東京" and "İstanbul"); every other text is as before.
  // And again: a text saying what keeps the user from something ("We can't …") holds one more
  // hash before its words', the mark of a limit of the user's; its words' hashes are as before.
  const hasher = await TermHasher.fromSecret(Uint8Array.from({ length: 32 }, (_, i) => i));
  const hashes = [];
  for (const text of VARIED_TEXTS) hashes.push(await hasher.hash("0xowner", text));
  assert.equal(
    await digestOf(JSON.stringify(hashes)),
    "42b317496c7fed8383808e04dbcd596267c735e28bc0ce7794b5a12ac0f963df",
  );
  assert.deepEqual(terms("Don’t stop – it’s Caroline‘s ‘favourite’ song"), [
    "don",
    "stop",
    "caroline",
    "favourite",
    "song",
  ]);
  assert.deepEqual(terms("rock 'n' roll, ma'am, O'Brien's café, re\u0301sume\u0301"), [
    "rock",
    "n",
    "roll",
    "ma'am",
    "o'brien",
    "s",
    "café",
    "résumé",
  ]);
  assert.deepEqual(terms("ＡＢＣ１２３ ﬁne ㎒, 3.5 km, e-mail, 🐶 Rex"), [
    "abc123",
    "fine",
    "MHz",
    "3",
    "5",
    "km",
    "e",
    "mail",
    "rex",
  ]);
});

Deno.test("terms: Japanese, Chinese and Thai are cut into words, without their particles", () => {
  assert.deepEqual(terms("私は東京の渋谷に住んでいます"), ["東京", "渋谷", "住", "んで"]);
  assert.deepEqual(terms("我每天骑自行车去上班"), ["每天", "骑", "自行", "车", "去", "上班"]);
  assert.deepEqual(terms("ฉันชอบกินข้าวผัดกับไก่"), ["ชอบ", "กิน", "ข้าว", "ผัด", "ไก่"]);
  assert.deepEqual(terms("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"], "a combining mark stays in its word");
  assert.deepEqual(terms("東京tower runs"), ["東京", "tower", "run"], "other words as before");
});

Deno.test("lexical index: BM25 ranks rare shared terms first; updates replace terms", async () => {
  const rows = [
    { id: "a", terms: ["tea", "morning", "user"] },
    { id: "b", terms: ["coffee", "morning", "user"] },
    { id: "c", terms: ["zanzibar", "user"] },
  ].map((row) => ({ ...row, blobId: row.id, createdAt: 0 }));
  const index = new LexicalIndex({ terms: () => Promise.resolve(rows) });
  const ids = async (query: string[]) =>
    (await index.namespace("o", "n")).search(query, 5).hits.map((hit) => hit.id);
  const found = await ids(["zanzibar", "morning"]);
  assert.equal(found[0], "c", "the rarer term weighs more");
  assert.deepEqual(found.slice(1).sort(), ["a", "b"]);
  await index.add("o", "n", {
    id: "d",
    terms: ["tea", "tea", "zanzibar"],
    blobId: "d",
    createdAt: 0,
  });
  assert.equal((await ids(["tea"]))[0], "d", "higher term frequency wins");
  await index.add("o", "n", { id: "d", terms: ["coffee"], blobId: "d", createdAt: 0 });
  assert.deepEqual(await ids(["tea"]), ["a"], "a re-indexed memory loses its old terms");
  // A namespace not loaded yet is read from the store when first searched.
  await index.add("o", "other", { id: "x", terms: ["tea"], blobId: "x", createdAt: 0 });
  const other = await index.namespace("o", "other");
  assert.deepEqual(other.search(["tea"], 5).hits.map((h) => h.id), ["a"]);
  const matches = other.search(["zanzibar", "tea"], 1);
  assert.deepEqual(matches.hits.map((h) => h.id), ["c"]);
  assert.ok(matches.scoreOf("a") > 0, "scores reach past the best k");
  assert.equal(matches.scoreOf("b"), 0);
  assert.equal(matches.scoreOf("unknown"), 0);
});

Deno.test("lexical index: neighbours in remember order, within the thread", async () => {
  const start = Date.now();
  const [a, b, c, d, e] = [0, 1, 2, 3, 4].map(() => timeOrderedId(start));
  const later = timeOrderedId(start + 3_600_000);
  const loose = timeOrderedId(start);
  const row = (id: string, thread?: string) => ({
    id,
    terms: ["x"],
    blobId: id,
    createdAt: 0,
    ...(thread && { info: { thread } }),
  });
  // Stored rows come in any order; e is of another thread, loose of none.
  const rows = [
    row(d, "t1"),
    row(later, "t1"),
    row(e, "t2"),
    row(b, "t1"),
    row(loose),
    row(a, "t1"),
  ];
  const index = await new LexicalIndex({ terms: () => Promise.resolve(rows) }).namespace("o", "n");
  const near = (id: string, span = 2) => index.neighbours(id, span);
  assert.deepEqual(near(b), [a, d, later]);
  assert.deepEqual(near(b, 1), [a, d]);
  assert.deepEqual(near(a), [b, d]);
  assert.deepEqual(near(later, 1), [d], "an hour later is the same conversation");
  assert.deepEqual(near(e), [], "alone in its thread");
  assert.deepEqual(near(loose), [], "a memory without a thread has no neighbours");
  assert.deepEqual(near(c), [], "not in the index");
  index.add(row(c, "t1"));
  assert.deepEqual(near(b, 1), [a, c], "a late-indexed memory takes its place in the order");
  index.add(row(b, "t1"));
  assert.deepEqual(near(c, 1), [b, d], "re-indexing keeps one entry");
  index.remove(b);
  assert.deepEqual(near(c, 1), [a, d]);
  assert.deepEqual(near(b), []);
  index.add(row(d, "t2"));
  assert.deepEqual(near(c, 1), [a, later], "moved to another thread");
  assert.deepEqual(near(e, 1), [d]);
});

Deno.test("lexical index: a corrected memory keeps its first version's place in its thread", async () => {
  const start = Date.now();
  const turns = [0, 1, 2, 3].map((i) => timeOrderedId(start + i));
  const row = (id: string, createdAt: number, firstCreatedAt?: number) => ({
    id,
    terms: ["x"],
    blobId: id,
    createdAt,
    info: { thread: "t", ...(firstCreatedAt !== undefined && { firstCreatedAt }) },
  });
  const rows = turns.map((id, i) => row(id, start + i));
  const index = await new LexicalIndex({ terms: () => Promise.resolve(rows) }).namespace("o", "n");
  // Turn 1 corrected an hour later: the new version keeps the first one's time.
  const corrected = timeOrderedId(start + 3_600_000);
  index.add(row(corrected, start + 3_600_000, start + 1));
  index.remove(turns[1]);
  assert.deepEqual(index.neighbours(corrected, 1), [turns[0], turns[2]]);
  assert.deepEqual(index.neighbours(turns[3], 2), [corrected, turns[2]]);
  // Built again from the stored rows, it ranks the same; an imported turn goes by its time.
  const imported = timeOrderedId(start + 7_200_000);
  const again = NamespaceIndex.of([
    ...rows.filter((r) => r.id !== turns[1]),
    row(corrected, start + 3_600_000, start + 1),
    row(imported, start + 7_200_000, start + 2),
  ]);
  assert.deepEqual(again.neighbours(corrected, 1), [turns[0], turns[2]]);
  assert.deepEqual(again.neighbours(imported, 1), [turns[2], turns[3]]);
});

Deno.test("lexical index: a search's scores stay its own after later searches, and repeat exactly", () => {
  // Each memory's terms drawn from a small vocabulary, so that searches share many memories.
  const vocabulary = ["a", "b", "c", "d", "e", "f", "g", "h"];
  const rows = Array.from({ length: 300 }, (_, i) => ({
    id: `m${String(i).padStart(4, "0")}`,
    terms: [vocabulary[i % 8], vocabulary[(i * 3) % 7], vocabulary[(i * 5) % 6]],
    blobId: `b${i}`,
    createdAt: 0,
  }));
  const index = NamespaceIndex.of(rows);
  const first = index.search(["a", "c"], 400);
  const scoresBefore = rows.map((row) => first.scoreOf(row.id));
  const second = index.search(["b", "h", "c"], 10, [1, 2, 0.5]);
  assert.deepEqual(rows.map((row) => first.scoreOf(row.id)), scoresBefore);
  assert.deepEqual(index.search(["b", "h", "c"], 10, [1, 2, 0.5]).hits, second.hits);
  // Every memory holding a query term is a hit, scored as `scoreOf` says; the others score 0.
  const holding = rows.filter((row) => row.terms.includes("a") || row.terms.includes("c"));
  assert.equal(first.hits.length, holding.length);
  for (const hit of first.hits) assert.equal(hit.score, first.scoreOf(hit.id));
  assert.ok(first.hits.every((hit, i) => i === 0 || first.hits[i - 1].score >= hit.score));
  const others = rows.filter((row) => !holding.includes(row));
  assert.ok(others.length > 0 && others.every((row) => first.scoreOf(row.id) === 0));
  assert.equal(first.scoreOf("unknown"), 0);
  assert.deepEqual(index.search(["a"], 0).hits, []);
});

Deno.test("lexical index: a term a memory holds twice counts twice, however the index was built", () => {
  const rows = [
    { id: "m1", terms: ["x", "y", "x"], blobId: "b1", createdAt: 0 },
    { id: "m2", terms: ["x", "y", "z"], blobId: "b2", createdAt: 0 },
    { id: "m3", terms: ["y", "z", "w"], blobId: "b3", createdAt: 0 },
  ];
  const built = NamespaceIndex.of(rows);
  const [twice, once] = built.search(["x"], 10).hits;
  assert.deepEqual([twice.id, once.id], ["m1", "m2"]);
  assert.ok(twice.score > once.score);
  const added = NamespaceIndex.of([]);
  for (const row of rows) added.add(row);
  assert.deepEqual(added.search(["x"], 10).hits, built.search(["x"], 10).hits);
  // Replaced, the memory counts its new terms only.
  added.add({ ...rows[0], terms: ["x", "w", "w"] });
  const hits = added.search(["x"], 10).hits;
  assert.equal(
    hits.find((hit) => hit.id === "m1")!.score,
    hits.find((hit) => hit.id === "m2")!.score,
  );
});

Deno.test("lexical index: memories that come and go leave nothing behind, and answers stay the same", () => {
  const vocabulary = ["a", "b", "c", "d", "e", "f", "g", "h"];
  const row = (i: number) => ({
    id: `m${String(i).padStart(5, "0")}`,
    // A term of its own, as a number or a name in a text would be.
    terms: [`own${i}`, "tea", vocabulary[i % 8], vocabulary[(i * 3) % 7]],
    blobId: `b${i}`,
    createdAt: i,
    ...(i % 3 === 0 && { info: { thread: `t${i % 2}` } }),
  });
  const index = NamespaceIndex.of([]);
  let early: ReturnType<NamespaceIndex["search"]> | undefined;
  // Thousands of memories come and go, 100 live at a time; the loop ends 50 after the index
  // compacted, so that the live memories are numbered as those of the early search were.
  let i = 0;
  for (; i < 5_000 || index.held().documents !== 150; i++) {
    index.add(row(i));
    if (i >= 100) index.remove(row(i - 100).id);
    if (i === 150) early = index.search(["a", "own140"], 10);
    const { documents, terms } = index.held();
    assert.ok(documents <= 1024 + 100 && terms <= 1024 + 100 + 10, `${documents}, ${terms}`);
  }
  const live = Array.from({ length: 100 }, (_, k) => row(i - 100 + k));
  const fresh = NamespaceIndex.of(live);
  for (const query of [["tea"], ["a", "c"], [`own${i - 50}`, "b"], ["own10"]]) {
    assert.deepEqual(index.search(query, 20).hits, fresh.search(query, 20).hits, query.join(" "));
  }
  assert.deepEqual(index.entries().map((e) => e.id), fresh.entries().map((e) => e.id));
  assert.deepEqual(index.neighbours(live[51].id, 2), fresh.neighbours(live[51].id, 2));
  assert.equal(index.entry(row(i - 101).id), undefined);
  // The memories the early search saw are gone; those of now were not there to be scored.
  assert.ok(early!.hits.length > 0);
  assert.deepEqual(live.filter((r) => early!.scoreOf(r.id) !== 0), []);
});

Deno.test("lexicon: a namespace without memories is not kept, one emptied is let go, with all it held", async () => {
  const stored = new Map<
    string,
    { id: string; terms: string[]; blobId: string; createdAt: number }[]
  >();
  let loads = 0;
  const lexicon = new LexicalIndex({
    terms(owner, namespace) {
      loads++;
      return Promise.resolve(stored.get(`${owner}/${namespace}`) ?? []);
    },
  });
  // Any name may be asked for: nothing is kept for one without memories.
  for (let i = 0; i < 3; i++) assert.equal((await lexicon.namespace("o", "never")).size, 0);
  assert.equal(loads, 3);
  const rows = [1, 2, 3].map((i) => ({
    id: `m${i}`,
    terms: [`t${i}`],
    blobId: `b${i}`,
    createdAt: i,
  }));
  stored.set("o/home", rows);
  const home = await lexicon.namespace("o", "home");
  assert.equal(await lexicon.namespace("o", "home"), home, "read once while it holds memories");
  assert.equal(loads, 4);
  // Erased: the index drops what it held at once, and the lexicon lets it go.
  stored.set("o/home", []);
  await lexicon.remove("o", "home", rows.map((row) => row.id));
  assert.deepEqual(home.held(), { documents: 0, terms: 0, postings: 0 });
  assert.notEqual(await lexicon.namespace("o", "home"), home);
  assert.equal(loads, 5);
});

Deno.test("terms: a text's first MAX_TERMS content words count, whatever its length", async () => {
  const long = Array.from({ length: 5000 }, (_, i) => `word${i}`).join(" ");
  assert.equal(terms(long).length, MAX_TERMS);
  assert.equal(terms(long).at(-1), `word${MAX_TERMS - 1}`);
  const hasher = await TermHasher.fromSecret(new Uint8Array(32));
  assert.equal((await hasher.hash("o", long)).length, MAX_TERMS);
  // A row stored before the cap is indexed as one stored since.
  const stored = {
    id: "m1",
    terms: terms(long.replaceAll("word", "w")),
    blobId: "b",
    createdAt: 1,
  };
  const uncapped = { ...stored, terms: long.split(" ") };
  assert.deepEqual(NamespaceIndex.of([uncapped]).held(), {
    documents: 1,
    terms: MAX_TERMS,
    postings: MAX_TERMS,
  });
  assert.equal(NamespaceIndex.of([uncapped]).search(["word5000"], 1).hits.length, 0);
});

Deno.test("lexical index: a term of one memory and of many rank alike as they come and go", () => {
  const row = (i: number, terms: string[]) => ({
    id: `m${String(i).padStart(3, "0")}`,
    terms,
    blobId: `b${i}`,
    createdAt: i,
  });
  const index = new NamespaceIndex();
  index.add(row(0, ["tea"]));
  index.add(row(1, ["kiln", "bowl", "kiln"]));
  index.remove("m001"); // its terms stay until a search or a compaction drops them
  index.add(row(2, ["kiln", "clay"])); // "kiln" of a removed memory: taken over
  index.add(row(3, ["kiln", "glaze"])); // "kiln" in two memories now
  index.add(row(4, ["clay"]));
  const fresh = NamespaceIndex.of([
    row(0, ["tea"]),
    row(2, ["kiln", "clay"]),
    row(3, ["kiln", "glaze"]),
    row(4, ["clay"]),
  ]);
  assert.equal(index.held().terms, fresh.held().terms + 1, "the removed memory's bowl");
  for (const query of [["kiln"], ["bowl"], ["clay", "glaze"], ["kiln", "bowl"], ["tea"]]) {
    const [held, built] = [index.search(query, 5), fresh.search(query, 5)];
    assert.deepEqual([held.hits, held.ideal], [built.hits, built.ideal], query.join(" "));
  }
  assert.equal(index.held().terms, fresh.held().terms, "a search dropped it");
});

Deno.test("lexicon: past its budget the least recently used namespaces are let go; one that fills half of it takes no new memory", async () => {
  let loads = 0;
  const rows = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      id: `m${i}`,
      terms: [`a${i}`, `b${i}`, "shared"],
      blobId: `b${i}`,
      createdAt: i,
    }));
  const sizes: Record<string, number> = { small1: 10, small2: 10, small3: 10, big: 400 };
  const budget = (await lexiconOf(rows(10))).bytes * 2.5; // two small ones fit, not three
  const lexicon = new LexicalIndex({
    terms(_owner, namespace) {
      loads++;
      return Promise.resolve(rows(sizes[namespace]));
    },
  }, budget);
  await lexicon.namespace("o", "small1");
  await lexicon.namespace("o", "small2");
  await lexicon.namespace("o", "small1"); // used again: small2 is now the least recent
  await lexicon.namespace("o", "small3");
  assert.equal(lexicon.stats().namespaces, 2);
  assert.ok(lexicon.stats().bytes <= budget);
  assert.equal(loads, 3);
  await lexicon.namespace("o", "small1");
  assert.equal(loads, 3, "kept");
  await lexicon.namespace("o", "small2");
  assert.equal(loads, 4, "let go, read again");
  // A namespace larger than the budget is served, alone, and refuses new memories.
  const big = await lexicon.namespace("o", "big");
  assert.equal(lexicon.stats().namespaces, 1);
  assert.throws(() => lexicon.assertRoom(big), (error: SvcError) => {
    assert.equal(error.status, 507);
    assert.equal(error.details.reason, "namespace_full");
    return true;
  });
  // Erasing makes room again.
  await lexicon.remove("o", "big", rows(400).slice(0, 390).map((row) => row.id));
  lexicon.assertRoom(big);
  lexicon.assertRoom(await lexicon.namespace("o", "small1"));
});

async function lexiconOf(stored: TermsRow[]) {
  return await new LexicalIndex({ terms: () => Promise.resolve(stored) }).namespace("o", "n");
}

Deno.test("lexicon: a namespace brought up to date is the most recently used", async () => {
  const rows = Array.from({ length: 10 }, (_, i) => ({
    id: `m${i}`,
    terms: [`a${i}`],
    blobId: `b${i}`,
    createdAt: i,
  }));
  const loads: string[] = [];
  const lexicon = new LexicalIndex({
    terms(_owner, namespace) {
      loads.push(namespace);
      return Promise.resolve(rows);
    },
  }, (await lexiconOf(rows)).bytes * 2.5);
  await lexicon.namespace("o", "a");
  await lexicon.namespace("o", "b");
  lexicon.drop("o", "a"); // another writer changed it
  await lexicon.namespace("o", "a");
  await lexicon.namespace("o", "c"); // over the budget: b, used least recently, goes
  await lexicon.namespace("o", "a");
  assert.deepEqual(loads, ["a", "b", "a", "c"]);
  await lexicon.namespace("o", "b");
  assert.deepEqual(loads, ["a", "b", "a", "c", "b"]);
});

Deno.test("terms: a fact's relative times are indexed as the years they name, a turn's are not", async () => {
  const hasher = await TermHasher.fromSecret(crypto.getRandomValues(new Uint8Array(32)));
  const text = "Last year I ran the Paris marathon.";
  const at = Date.parse("2025-05-01T12:00:00Z");
  const fact = await hasher.hash("0xowner", text, { at, thread: false });
  const [year] = await hasher.hashQuery("0xowner", "2024");
  assert.ok(fact.includes(year));
  assert.deepEqual(
    await hasher.hash("0xowner", text, { at, thread: true }),
    await hasher.hash("0xowner", text),
  );
  assert.ok(!(await hasher.hash("0xowner", text)).includes(year));
});
