/** Query vectors: kept per key of each account; nobody's queries move another's entries. */
import assert from "node:assert/strict";
import { MemoryEmbedder } from "../testing/memory_embedder.ts";
import type { EmbedOptions } from "../backends/types.ts";
import {
  type QueryAsker,
  QueryVectors,
  SHELF_IDLE_MS,
  SHELVES,
  SHELVES_PER_ACCOUNT,
  VECTORS_PER_KEY,
} from "./query_vectors.ts";

/** The in-memory embedder, counting the queries it embeds. */
class CountingEmbedder extends MemoryEmbedder {
  embedded = 0;
  override embed(texts: string[], options?: EmbedOptions) {
    if (options?.purpose === "query") this.embedded += texts.length;
    return super.embed(texts, options);
  }
}

/** Query vectors over a counting embedder, on a clock the test moves. */
function setUp() {
  const embedder = new CountingEmbedder();
  const clock = { now: 0 };
  const queryVectors = new QueryVectors(embedder, () => clock.now);
  /** How many of `queries` `asker` has to embed (asking them all). */
  const misses = async (asker: QueryAsker, queries: string[]) => {
    const before = embedder.embedded;
    for (const query of queries) await queryVectors.vectorOf(asker, query);
    return embedder.embedded - before;
  };
  return { clock, misses };
}

/** `count` queries named after `prefix`. */
function queries(prefix: string, count = VECTORS_PER_KEY): string[] {
  return Array.from({ length: count }, (_, i) => `${prefix} ${i}`);
}

const ALICE = { owner: "0xa11ce", key: "0xa11ce" };
const ALICE_AGENT = { owner: "0xa11ce", key: "0xa9e27" };
const BOB = { owner: "0xb0b", key: "0xb0b" };

Deno.test("query vectors: a key asking the same words again skips the model", async () => {
  const { misses } = setUp();
  assert.equal(await misses(ALICE, queries("mine")), VECTORS_PER_KEY);
  assert.equal(await misses(ALICE, queries("mine")), 0);
});

Deno.test("query vectors: another key of the same account does not hit a key's queries", async () => {
  const { misses } = setUp();
  await misses(ALICE, ["Who is my dentist?"]);
  assert.equal(await misses(ALICE_AGENT, ["Who is my dentist?"]), 1);
  assert.equal(await misses(BOB, ["Who is my dentist?"]), 1);
});

Deno.test("query vectors: another account's 10,000 distinct queries leave an account's entries in place", async () => {
  const { clock, misses } = setUp();
  await misses(ALICE, queries("mine"));
  clock.now += SHELF_IDLE_MS - 1;
  assert.equal(await misses(BOB, queries("flood", 10_000)), 10_000);
  assert.equal(await misses(ALICE, queries("mine")), 0);
});

Deno.test("query vectors: another key of the same account asking evicts none of a key's entries", async () => {
  const { misses } = setUp();
  await misses(ALICE, queries("mine"));
  await misses(ALICE_AGENT, queries("agent", 1_000));
  assert.equal(await misses(ALICE, queries("mine")), 0);
});

Deno.test("query vectors: a key keeps its most recent queries, dropping only its own oldest", async () => {
  const { misses } = setUp();
  await misses(ALICE, queries("mine", VECTORS_PER_KEY + 1));
  assert.equal(await misses(ALICE, ["mine 0"]), 1);
  assert.equal(await misses(ALICE, [`mine ${VECTORS_PER_KEY}`]), 0);
});

Deno.test("query vectors: when every shelf is held, a new key embeds every query and evicts nobody", async () => {
  const { misses } = setUp();
  await misses(ALICE, ["mine"]);
  // An account holds at most SHELVES_PER_ACCOUNT shelves; its further keys keep nothing.
  for (let i = 0; i < SHELVES_PER_ACCOUNT + 1; i++) {
    await misses({ owner: "0xb0b", key: `${i}` }, ["q"]);
  }
  assert.equal(await misses({ owner: "0xb0b", key: `${SHELVES_PER_ACCOUNT}` }, ["q"]), 1);
  // The other shelves, filled by other accounts.
  const accounts = Math.ceil((SHELVES - 1 - SHELVES_PER_ACCOUNT) / SHELVES_PER_ACCOUNT);
  for (let a = 0; a < accounts; a++) {
    for (let k = 0; k < SHELVES_PER_ACCOUNT; k++) {
      await misses({ owner: `${a}`, key: `${k}` }, ["q"]);
    }
  }
  const late = { owner: "0x1a7e", key: "0x1a7e" };
  assert.equal(await misses(late, ["q", "q"]), 2);
  assert.equal(await misses(ALICE, ["mine"]), 0);
  assert.equal(await misses({ owner: "0xb0b", key: "0" }, ["q"]), 0);
});

Deno.test("query vectors: a shelf goes when its own key leaves it idle, not sooner, whatever others ask", async () => {
  const { clock, misses } = setUp();
  await misses(ALICE, ["mine"]);
  clock.now += SHELF_IDLE_MS - 1;
  assert.equal(await misses(ALICE, ["mine"]), 0);
  clock.now += SHELF_IDLE_MS - 1;
  await misses(BOB, ["theirs"]);
  assert.equal(await misses(ALICE, ["mine"]), 0);
  clock.now += SHELF_IDLE_MS;
  assert.equal(await misses(ALICE, ["mine"]), 1);
});

Deno.test("query vectors: an idle key's shelf frees a place for a new key", async () => {
  const { clock, misses } = setUp();
  for (let a = 0; a < SHELVES / SHELVES_PER_ACCOUNT; a++) {
    for (let k = 0; k < SHELVES_PER_ACCOUNT; k++) {
      await misses({ owner: `${a}`, key: `${k}` }, ["q"]);
    }
  }
  assert.equal(await misses(ALICE, ["mine", "mine"]), 2);
  clock.now += SHELF_IDLE_MS;
  assert.equal(await misses(ALICE, ["mine", "mine"]), 1);
});
