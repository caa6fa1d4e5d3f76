import assert from "node:assert/strict";
import { askedNames, askedOf, askedRelations, definedRelations, definitions } from "./relations.ts";

/** Who a text names, and as what, without how it says it. */
const who = (text: string) => definitions(text).map(({ name, relations }) => ({ name, relations }));

Deno.test("definitions: a name with its relation, before or after it", () => {
  const cases: [string, { name: string; relations: string[] }[]][] = [
    ["My daughter Elif started school.", [{ name: "Elif", relations: ["daughter"] }]],
    ["Ruairi is my godson.", [{ name: "Ruairi", relations: ["godchild"] }]],
    ["Dr Adeyemi is our family GP.", [{ name: "Dr Adeyemi", relations: ["doctor"] }]],
    ["Callum has been my best friend for years.", [{ name: "Callum", relations: ["friend"] }]],
    ["Fergus is my line manager at work.", [{ name: "Fergus", relations: ["manager"] }]],
    ["Signe lives in the flat below ours.", [{ name: "Signe", relations: ["neighbour"] }]],
    ["My stepdad Clive’s boat leaks.", [{ name: "Clive", relations: ["stepfather"] }]],
    ["My boss's name is Karen Liu.", [{ name: "Karen Liu", relations: ["manager"] }]],
    ["Our dog is called Biscuit.", [{ name: "Biscuit", relations: ["dog"] }]],
  ];
  for (const [text, want] of cases) assert.deepEqual(who(text), want, text);
});

Deno.test("definitions: relations of relations are composed", () => {
  assert.deepEqual(who("Rosalind is my wife's mother."), [
    { name: "Rosalind", relations: ["mother-in-law"] },
  ]);
  assert.deepEqual(who("Greet is my father's older sister."), [
    { name: "Greet", relations: ["aunt"] },
  ]);
  assert.deepEqual(who("Oskar is married to my sister Hanne."), [
    { name: "Hanne", relations: ["sister"] },
    { name: "Oskar", relations: ["sibling-in-law"] },
  ]);
});

Deno.test("definitions: nothing where no one is named by a relation", () => {
  for (
    const text of [
      "My road bike needs new brake pads.",
      "I went to Leeds with my sister.",
      "The Monday after, my boss left.",
      "My trip with Anna was fun.",
      "My friend's dog Rex barks.",
    ]
  ) assert.deepEqual(definitions(text), [], text);
});

Deno.test("definedRelations: one term per relation, apart from every word", () => {
  const terms = definedRelations("My wife Noor and my wife's mother Rosalind met.");
  assert.deepEqual(terms, ["relation\0partner", "relation\0mother-in-law"]);
});

Deno.test("askedRelations: the words that name a relation, replaced by a name", () => {
  const question = "Which batteries does my stepdad's hearing aid use?";
  const [asked, ...more] = askedRelations(question);
  assert.deepEqual(more, []);
  assert.deepEqual(asked.relations, ["stepfather"]);
  assert.equal(askedOf(question, asked, "Clive"), "Which batteries does Clive's hearing aid use?");
  const [boss] = askedRelations("When is my boss away?");
  assert.deepEqual(boss.relations, ["manager"]);
  const [law] = askedRelations("Where does my brother-in-law work?");
  assert.deepEqual(law.relations, ["sibling-in-law"]);
  assert.deepEqual(askedRelations("What did I eat on my birthday?"), []);
});

Deno.test("askedRelations: not a relation asked together with the user", () => {
  assert.deepEqual(askedRelations("Where did my wife and I go on honeymoon?"), []);
  assert.deepEqual(askedRelations("What do me and my brother argue about?"), []);
  assert.equal(askedRelations("What do my brother and his wife do?").length, 1);
});

Deno.test("askedRelations: a word of several relations, composed", () => {
  const [inLaws] = askedRelations("Which of my wife's relatives is ill?");
  assert.deepEqual(inLaws.relations, ["mother-in-law", "father-in-law", "sibling-in-law"]);
  const [parents] = askedRelations("Where do my parents live?");
  assert.deepEqual(parents.relations, ["mother", "father"]);
  assert.deepEqual(askedRelations("Is our family getting bigger?"), []);
});

Deno.test("askedNames: the names a question asks about, as it spells them", () => {
  assert.deepEqual(askedNames("Where does Niamh work?"), [{ start: 11, end: 16, name: "Niamh" }]);
  assert.deepEqual(askedNames("What does Dr Adeyemi say?").map((n) => n.name), ["Dr Adeyemi"]);
  assert.deepEqual(askedNames("What is Hanne's job?").map((n) => n.name), ["Hanne"]);
  assert.deepEqual(askedNames("When did I go to Leeds?").map((n) => n.name), ["Leeds"]);
  assert.deepEqual(askedNames("What did I eat on Monday?"), []);
  assert.deepEqual(askedNames("Tell me about Leeds").map((n) => n.name), ["Leeds"]);
  assert.deepEqual(askedNames("When did we put up our TV?"), []);
  assert.deepEqual(askedNames("Where is my iPhone charger?"), []);
  assert.deepEqual(askedNames("What sport does my Tom play?").map((n) => n.name), ["Tom"]);
  assert.deepEqual(askedNames("When do the Kellys arrive?").map((n) => n.name), ["Kellys"]);
});

Deno.test("definitions: the relation as the text says it", () => {
  assert.deepEqual(definitions("My sister Niamh is a nurse.")[0].said, "sister");
  assert.deepEqual(
    definitions("Greet is my father's older sister.")[0].said,
    "father's older sister",
  );
  assert.equal(definitions("Oskar is married to my sister.")[0].said, undefined);
});

Deno.test("definitions: a name before its relation, lists, kin titles, and married to the user", () => {
  const named = (text: string) =>
    definitions(text).map(({ name, relations }) => `${name}: ${relations.join("/")}`);
  assert.deepEqual(named("Tomás (my husband) fixed the boiler."), ["Tomás: partner"]);
  assert.deepEqual(named("Carol, my mum, turns seventy."), ["Carol: mother"]);
  assert.deepEqual(named("I have two daughters, Ana and Mia."), [
    "Ana: daughter",
    "Mia: daughter",
  ]);
  assert.deepEqual(named("My kids are called Ana, Ben and Leo."), [
    "Ana: son/daughter",
    "Ben: son/daughter",
    "Leo: son/daughter",
  ]);
  assert.deepEqual(named("My sister Hanne and Bartek came."), ["Hanne: sister"], "one sister");
  assert.deepEqual(named("Uncle Pete lives in Galway."), ["Pete: uncle"]);
  assert.deepEqual(named("Grandma Rosa makes tamales."), ["Rosa: grandmother"]);
  assert.deepEqual(named("I'm married to Tomás."), ["Tomás: partner"]);
  assert.deepEqual(named("Tomás and I got married in 2015."), ["Tomás: partner"]);
  assert.deepEqual(named("I adopted a dog named Pepper."), ["Pepper: dog"]);
  assert.deepEqual(named("My dentist is Dr. Okafor."), ["Dr. Okafor: dentist"]);
  assert.deepEqual(named("My brother in law Oskar bakes."), ["Oskar: sibling-in-law"]);
  assert.deepEqual(named("My ex-wife Dana lives in Denver."), ["Dana: ex-partner"]);
  assert.deepEqual(named("Theo is my youngest."), ["Theo: son/daughter"]);
  assert.deepEqual(named("My boss is Italian."), [], "a capitalised word after 'is' alone");
  assert.deepEqual(named("We bought a dog last year."), []);
});

Deno.test("definitions: no one where the words only look like a relation's", () => {
  for (
    const text of [
      "After meeting John, my wife and I went home.",
      "In Berlin, my sister runs a bakery.",
      "Thanks Carol, my mum loved the flowers.",
      "My mum called Sarah last night.",
      "My boss called Karen into his office.",
      "We flew to Paris and I got engaged there.",
      "I bought Granny Smith apples.",
      "I married Anna's sister Kate.",
      "I told my kids. Ana and Tom were not happy.",
    ]
  ) assert.deepEqual(definitions(text), [], text);
});

Deno.test("relations: step-children, the people a household pays, pets, and words for several", () => {
  const cases: [string, { name: string; relations: string[] }[]][] = [
    ["My stepson Marcus drives a van.", [{ name: "Marcus", relations: ["stepson"] }]],
    ["Our lodger Kasia works nights.", [{ name: "Kasia", relations: ["tenant"] }]],
    ["My hairdresser Orla is moving to Galway.", [{ name: "Orla", relations: ["hairdresser"] }]],
    ["Jimmy is our postman.", [{ name: "Jimmy", relations: ["postman"] }]],
    ["Father Walsh is our parish priest.", [{ name: "Walsh", relations: ["priest"] }]],
    ["Our mare Juno is twenty.", [{ name: "Juno", relations: ["horse"] }]],
  ];
  for (const [text, want] of cases) assert.deepEqual(who(text), want, text);
  const asked = (question: string) => askedRelations(question).map((r) => r.relations);
  assert.deepEqual(asked("What is my sibling's job?"), [["brother", "sister"]]);
  assert.deepEqual(asked("Where does my parent live?"), [["mother", "father"]]);
  assert.deepEqual(asked("When are my in-laws visiting?"), [["mother-in-law", "father-in-law"]]);
  assert.deepEqual(asked("What do my grandkids like?"), [["grandson", "granddaughter"]]);
});

Deno.test("relations: a relative's spouse, friends and colleagues said of both, neighbours by where they live, 'the cat'", () => {
  const cases: [string, { name: string; relations: string[] }[]][] = [
    ["Rory married my cousin Sinéad in 1995.", [
      { name: "Sinéad", relations: ["cousin"] },
      { name: "Rory", relations: ["cousin-in-law"] },
    ]],
    ["Joe married my aunt Mary.", [
      { name: "Mary", relations: ["aunt"] },
      { name: "Joe", relations: ["uncle"] },
    ]],
    ["Eileen married my father in 1985.", [{ name: "Eileen", relations: ["stepmother"] }]],
    ["Mags and I have been best friends since school.", [
      { name: "Mags", relations: ["friend"] },
    ]],
    ["Tom and I are colleagues at the bank.", [{ name: "Tom", relations: ["colleague"] }]],
    ["Gearóid from next door fixed our gate.", [{ name: "Gearóid", relations: ["neighbour"] }]],
    ["Dev from across the road lends us his ladder.", [
      { name: "Dev", relations: ["neighbour"] },
    ]],
    // Not kin said of both, nor a shop or a noise next door, nor friends of others.
    ["Ana and I are sisters.", []],
    ["I bought it from Tesco next door.", []],
    ["Noise from next door kept me up.", []],
    ["Tom and I are friends with the Smiths.", []],
    // Not the spouse of whom no relation word names, nor of someone the text names already.
    ["Eileen married my father's friend.", []],
    ["Rory married my cousin's daughter.", []],
    ["My mother Eileen married my father in 1985.", [{ name: "Eileen", relations: ["mother"] }]],
  ];
  for (const [text, want] of cases) assert.deepEqual(who(text), want, text);
  const asked = (question: string) => askedRelations(question).map((r) => r.relations);
  assert.deepEqual(asked("What does my cousin's husband do?"), [["cousin-in-law"]]);
  assert.deepEqual(asked("How old is my father's wife?"), [["stepmother"]]);
  assert.deepEqual(asked("Where does the cat sleep at night?"), [["cat"]]);
  for (
    const question of [
      "Who is the manager of the shop?",
      "What's the best dog food?",
      "Who let the dogs out?",
      "Did the dog next door bark?",
    ]
  ) assert.deepEqual(asked(question), [], question);
  assert.deepEqual(asked("Does the cat like my sister?"), [["sister"], ["cat"]]);
});
