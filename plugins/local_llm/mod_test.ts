import assert from "node:assert/strict";
import { asNote, LocalExtractiveLlm } from "./mod.ts";

Deno.test("local LLM: keeps facts about the user, as notes", async () => {
  const llm = new LocalExtractiveLlm();
  const text = `Hi there! How are you? So, I'm vegetarian and I never eat fish.
    My sister lives in Berlin. lol that movie was great. He said he likes pizza.
    I usually go running at 6am before work. What time is it? I'm allergic to peanuts.
    Thanks! I was born in 1990. I have two cats. Honestly I can't stand cilantro.`;
  assert.deepEqual(await llm.extractFacts(text), [
    "Vegetarian and never eats fish",
    "Sister lives in Berlin",
    "Usually goes running at 6am before work",
    "Allergic to peanuts",
    "Born in 1990",
    "Has two cats",
    "Cannot stand cilantro",
  ]);
  assert.deepEqual(await llm.extractFacts("Hello! How was your weekend? Nice weather."), []);
  assert.deepEqual(await llm.extractFacts(""), []);
  const many = Array.from({ length: 30 }, (_, i) => `I have ${i + 2} plants.`).join(" ");
  assert.equal((await llm.extractFacts(many)).length, 30);
  assert.deepEqual(await llm.extractFacts("I love tea. I love tea!"), ["Loves tea"]);
  // Habits and a family's facts, of the kinds people tell.
  assert.deepEqual(
    await llm.extractFacts(
      "I commute by bicycle. I swim every morning. I hike on weekends. My kids go to school " +
        "nearby. My sister lived in Berlin.",
    ),
    [
      "Commutes by bicycle",
      "Swims every morning",
      "Hikes on weekends",
      "Kids go to school nearby",
      "Sister lived in Berlin",
    ],
  );
});

Deno.test("local LLM: a fact typed in a hurry is read as one typed with care", async () => {
  const llm = new LocalExtractiveLlm();
  const cases: [string, string[]][] = [
    ["i work nights", ["Works nights"]],
    ["I WORK NIGHTS", ["Works nights"]],
    ["i'm allergic to nuts", ["Allergic to nuts"]],
    ["I’ve lived in Rome", ["Has lived in Rome"]],
    ["I am a teacher and i live in Rome", ["Is a teacher and lives in Rome"]],
    // Not the user: a message (an im), German "im", "i.e.".
    ["send me an im", []],
    ["Im Sommer fahre ich nach Italien.", []],
    ["Ich wohne im Zentrum, i.e. downtown.", []],
  ];
  for (const [text, facts] of cases) assert.deepEqual(await llm.extractFacts(text), facts, text);
});

Deno.test("local LLM: notes as people write them", () => {
  const cases: [string, string][] = [
    ["I'm a nurse", "Is a nurse"],
    ["I study physics", "Studies physics"],
    ["I watch films on Fridays!", "Watches films on Fridays"],
    ["I don't drink coffee", "Does not drink coffee"],
    ["I've lived in Rome", "Has lived in Rome"],
    ["I'll move to Oslo in May", "Will move to Oslo in May"],
    ["I'd rather sit by the window", "Would rather sit by the window"],
    ["I was in the navy", "Was in the navy"],
    ["I can swim", "Can swim"],
    ["I'm not a fan of jazz", "Not a fan of jazz"],
    ["Well, my dog is called Rex", "Dog is called Rex"],
    ["I taught myself Italian", "Taught themselves Italian"],
    ["I love my dog and I walk him daily", "Loves their dog and walks him daily"],
    ["I take the bus because I can't drive", "Takes the bus because they cannot drive"],
    ["When I was a child I lived in Porto", "When they were a child they lived in Porto"],
    ["I told my doctor that I'm allergic to penicillin", "Allergic to penicillin"],
    ["Please remember that my wife's birthday is May 3", "Wife's birthday is May 3"],
    ["I said I would never eat meat", "Would never eat meat"],
  ];
  for (const [input, expected] of cases) assert.equal(asNote(input), expected, input);
});

/** What people tell an agent, and the facts analyze keeps of it, each read and approved. */
const REVIEWED: [string, string[]][] = [
  [
    "Hi! I'm Maya. I work as a nurse at St. Olav's and I do night shifts twice a week. " +
    "My husband Tom is a carpenter. What's the weather like tomorrow?",
    [
      "Is Maya",
      "Works as a nurse at St. Olav's and does night shifts twice a week",
      "Husband Tom is a carpenter",
    ],
  ],
  [
    "Quick note for later: I told my doctor that I am allergic to penicillin, and I avoid " +
    "ibuprofen too. My pharmacy is on Elm Street.",
    ["Allergic to penicillin, and avoids ibuprofen too", "Pharmacy is on Elm Street"],
  ],
  [
    "We're planning the trip. I prefer window seats when I fly. I don't eat pork. " +
    "My daughter Ana is 7 and she loves dinosaurs. Can you book the hotel?",
    [
      "Prefers window seats when they fly",
      "Does not eat pork",
      "Daughter Ana is 7 and she loves dinosaurs",
    ],
  ],
  [
    "lol yes. i moved to Lisbon last year from Berlin. i commute by bike. " +
    "my landlord said the rent goes up in May.",
    ["Moved to Lisbon last year from Berlin", "Commutes by bike"],
  ],
  [
    "Remember that I'm training for a marathon in October. I run every morning before " +
    "work. I've been vegetarian since 2019.",
    [
      "Training for a marathon in October",
      "Runs every morning before work",
      "Has been vegetarian since 2019",
    ],
  ],
];

Deno.test("local LLM: its facts on the reviewed examples read as people write them", async () => {
  const llm = new LocalExtractiveLlm();
  for (const [text, facts] of REVIEWED) assert.deepEqual(await llm.extractFacts(text), facts, text);
  for (const fact of REVIEWED.flatMap(([, facts]) => facts)) {
    assert.doesNotMatch(fact, /\bthe user\b|\bI\b|\.$/i, "no subject named, no full stop");
  }
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
