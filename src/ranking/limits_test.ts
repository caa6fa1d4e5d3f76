import assert from "node:assert/strict";
import { askedLimit, statesLimit } from "./limits.ts";

Deno.test("askedLimit: a question whether the user may do something, asked as what keeps them from it", () => {
  assert.deepEqual(askedLimit("Could I hire a car on holiday?"), {
    question: "Is there a reason I can't hire a car on holiday?",
    about: "a reason I can't",
  });
  assert.equal(
    askedLimit("Should we book the bus tour?")?.question,
    "Is there a reason we shouldn't book the bus tour?",
  );
  assert.equal(
    askedLimit("Is it safe for me to clear the barbed wire?")?.question,
    "Is there a reason I shouldn't clear the barbed wire?",
  );
  assert.equal(askedLimit("Am I allowed to park here?")?.about, "a reason I can't");
  for (const question of ["Where can I park?", "Can you remind me of Niamh's address?"]) {
    assert.equal(askedLimit(question), undefined, question);
  }
});

Deno.test("statesLimit: what the user cannot do or have, what makes them ill or afraid, what ran out", () => {
  for (
    const text of [
      "Gluten gives me terrible stomach cramps.",
      "I don't have a driving licence.",
      "My passport expired in August.",
      "I'm red-green colour-blind.",
      "Our lease says no pets of any kind.",
      "I’m claustrophobic in lifts.",
    ]
  ) {
    assert.ok(statesLimit(text), text);
  }
  for (
    const text of [
      "Callum is allergic to shellfish.",
      "I prefer tea to coffee.",
      "I'm sure I don't know.",
      "I can't wait for the weekend!",
      "I cannot wait for summer.",
      "I don't have to work on Fridays.",
      "We set off for Galway at dawn.",
      "My mum gives me her recipes.",
    ]
  ) {
    assert.ok(!statesLimit(text), text);
  }
});
