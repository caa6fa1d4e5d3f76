import assert from "node:assert/strict";
import { LocalExtractiveLlm, toThirdPerson } from "./mod.ts";

Deno.test("local LLM: keeps facts about the user, in the third person", async () => {
  const llm = new LocalExtractiveLlm();
  const text = `Hi there! How are you? So, I'm vegetarian and I never eat fish.
    My sister lives in Berlin. lol that movie was great. He said he likes pizza.
    I usually go running at 6am before work. What time is it? I'm allergic to peanuts.
    Thanks! I was born in 1990. I have two cats. Honestly I can't stand cilantro.`;
  assert.deepEqual(await llm.extractFacts(text), [
    "The user is vegetarian and the user never eats fish.",
    "The user's sister lives in Berlin.",
    "The user usually goes running at 6am before work.",
    "The user is allergic to peanuts.",
    "The user was born in 1990.",
    "The user has two cats.",
    "The user cannot stand cilantro.",
  ]);
  assert.deepEqual(await llm.extractFacts("Hello! How was your weekend? Nice weather."), []);
  assert.deepEqual(await llm.extractFacts(""), []);
  const many = Array.from({ length: 30 }, (_, i) => `I have ${i + 2} plants.`).join(" ");
  assert.equal((await llm.extractFacts(many)).length, 20);
  assert.deepEqual(await llm.extractFacts("I love tea. I love tea!"), ["The user loves tea."]);
  // Habits and a family's facts, of the kinds people tell.
  assert.deepEqual(
    await llm.extractFacts(
      "I commute by bicycle. I swim every morning. I hike on weekends. My kids go to school " +
        "nearby. My sister lived in Berlin.",
    ),
    [
      "The user commutes by bicycle.",
      "The user swims every morning.",
      "The user hikes on weekends.",
      "The user's kids go to school nearby.",
      "The user's sister lived in Berlin.",
    ],
  );
});

Deno.test("local LLM: a fact typed in a hurry is read as one typed with care", async () => {
  const llm = new LocalExtractiveLlm();
  const cases: [string, string[]][] = [
    ["i work nights", ["The user works nights."]],
    ["I WORK NIGHTS", ["The user works nights."]],
    ["i'm allergic to nuts", ["The user is allergic to nuts."]],
    ["I’ve lived in Rome", ["The user has lived in Rome."]],
    ["I am a teacher and i live in Rome", ["The user is a teacher and the user lives in Rome."]],
    // Not the user: a message (an im), German "im", "i.e.".
    ["send me an im", []],
    ["Im Sommer fahre ich nach Italien.", []],
    ["Ich wohne im Zentrum, i.e. downtown.", []],
  ];
  for (const [text, facts] of cases) assert.deepEqual(await llm.extractFacts(text), facts, text);
});

Deno.test("local LLM: third-person rewriting", () => {
  const cases: [string, string][] = [
    ["I'm a nurse", "The user is a nurse."],
    ["I study physics", "The user studies physics."],
    ["I watch films on Fridays!", "The user watches films on Fridays."],
    ["I don't drink coffee", "The user does not drink coffee."],
    ["I've lived in Rome", "The user has lived in Rome."],
    ["I'll move to Oslo in May", "The user will move to Oslo in May."],
    ["Well, my dog is called Rex", "The user's dog is called Rex."],
    ["I taught myself Italian", "The user taught themselves Italian."],
  ];
  for (const [input, expected] of cases) assert.equal(toThirdPerson(input), expected, input);
});

Deno.test("local LLM: answers by quoting the memories that match", async () => {
  const llm = new LocalExtractiveLlm();
  const memories = ["I have two cats", "My sister lives in Berlin", "I am vegetarian"];
  assert.equal(
    await llm.answer("Where does my sister live?", memories),
    'From your memories: "My sister lives in Berlin" (memory 2).',
  );
  assert.equal(
    await llm.answer("Anything else?", memories),
    'From your memories: "I have two cats" (memory 1).',
  );
  assert.match(await llm.answer("Where?", []), /nothing in your memories/);
});
