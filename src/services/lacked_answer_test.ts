import assert from "node:assert/strict";
import { lackedAnswer, type SubjectLookup } from "./lacked_answer.ts";
import type { NamespaceIndex } from "../ranking/lexical_index.ts";
import { TermHasher } from "../ranking/terms.ts";

Deno.test("lackedAnswer: a question naming many things reads the memories of a few", async () => {
  let searches = 0;
  let reads = 0;
  // Every search finds a memory, which names none of the things asked about.
  const index = {
    search: () => {
      searches++;
      return { hits: [{ id: "m1", score: 1 }], scoreOf: () => 1, ideal: 1 };
    },
  } as unknown as NamespaceIndex;
  const lookup: SubjectLookup = {
    owner: "0xabc",
    hasher: await TermHasher.fromSecret(new Uint8Array(32)),
    index,
    shown: () => true,
    read: (ids) => {
      reads += ids.length;
      return Promise.resolve(ids.map(() => "Nothing of it is here."));
    },
  };
  const things = Array.from({ length: 2_000 }, (_, i) => `the thing${i}`).join(" and ");
  const query = `How much did ${things} cost?`;
  assert.equal(await lackedAnswer(lookup, query, []), undefined);
  assert.ok(searches <= 3, `${searches} searches`);
  assert.ok(reads <= 3, `${reads} memories read`);
});
