import assert from "node:assert/strict";
import {
  answerKinds,
  asksOwnName,
  holdsAnswer,
  mayHoldAnswer,
  questionType,
} from "./answer_types.ts";

Deno.test("questionType: when, where, who, how much and what colour, by the question's first words", () => {
  assert.equal(questionType("When is my appraisal?"), "time");
  assert.equal(questionType("  how often am I on call?"), "time");
  assert.equal(questionType("Which days am I not in the office?"), "time");
  assert.equal(questionType("Where do I work out?"), "place");
  assert.equal(questionType("Which city did I move to?"), "place");
  assert.equal(questionType("Who is my boss?"), "person");
  assert.equal(questionType("Whose novels do I like?"), "person");
  assert.equal(questionType("How much do I earn?"), "number");
  assert.equal(questionType("What is Colette's phone number?"), "number");
  assert.equal(questionType("What colour is Pepper's collar?"), "colour");
  assert.equal(questionType("Which color did I paint the hall?"), "colour");
  assert.equal(questionType("How do I get to work?"), undefined);
  assert.equal(questionType("What's my diet?"), undefined);
  assert.equal(questionType("I wonder when it was"), undefined, "only at the start");
});

Deno.test("holdsAnswer: dates and times, names and places, people, numbers, colours", () => {
  assert.ok(holdsAnswer("I have a performance review on the 20th of June.", "time"));
  assert.ok(holdsAnswer("I play five-a-side football on Tuesday nights.", "time"));
  assert.ok(holdsAnswer("I quit smoking in 2021", "time"));
  assert.ok(holdsAnswer("The flight leaves at 7pm", "time"));
  assert.ok(!holdsAnswer("I am vegetarian", "time"), '"am" is no time');
  assert.ok(!holdsAnswer("I mentor two junior developers.", "time"));
  assert.ok(holdsAnswer("My gym is the PureGym on Queens Road.", "place"));
  assert.ok(holdsAnswer("We keep a caravan on a campsite in Cornwall.", "place"));
  assert.ok(!holdsAnswer("I bite my nails when I'm stressed.", "place"));
  assert.ok(holdsAnswer("My dentist is Dr. Okafor.", "person"));
  assert.ok(holdsAnswer("I was taught to drive by my stepdad.", "person"));
  assert.ok(!holdsAnswer("I drink my coffee black, no sugar.", "person"));
  assert.ok(holdsAnswer("My salary is 85,000 pounds a year.", "number"));
  assert.ok(holdsAnswer("I sleep about five hours.", "number"));
  assert.ok(holdsAnswer("My aunt is in her sixties.", "number"));
  assert.ok(!holdsAnswer("I hate horror movies.", "number"));
  assert.ok(!holdsAnswer("January", "place"), "a month is no name");
  assert.ok(holdsAnswer("Smudge is a ginger tom.", "colour"));
  assert.ok(!holdsAnswer("Pepper goes to the groomer every six weeks.", "colour"));
});

Deno.test("answerKinds: what it asks for, and a length too for 'how long'", () => {
  assert.deepEqual(answerKinds("How long is Pepper's lead?"), ["time", "number"]);
  assert.deepEqual(answerKinds("When is my appraisal?"), ["time"]);
  assert.deepEqual(answerKinds("What's my diet?"), []);
});

Deno.test("answerKinds: a name, which ranking does not weigh", () => {
  for (
    const question of [
      "What is Fergus's surname?",
      "What was Ottilie's maiden name?",
      "What is the name of Yusuf's baby?",
      "What's Yuki's husband called?",
    ]
  ) {
    assert.deepEqual(answerKinds(question), ["name"], question);
    assert.equal(questionType(question), undefined, question);
  }
  assert.deepEqual(answerKinds("What is Fergus's job?"), []);
});

Deno.test("holdsAnswer: a name is one other than those of whom the question asks", () => {
  const known = new Set(["fergus"]);
  assert.ok(!holdsAnswer("I met Fergus at the party.", "name", known));
  assert.ok(!holdsAnswer("I borrowed Fergus's drill.", "name", known));
  assert.ok(holdsAnswer("I met Fergus Quinlan at the party.", "name", known));
  assert.ok(holdsAnswer("I met Fergus at the party.", "name"));
});

Deno.test("mayHoldAnswer: for a place, anything placed somewhere", () => {
  assert.ok(mayHoldAnswer("Smudge sleeps on the shelf in the hot press.", "place"));
  assert.ok(mayHoldAnswer("Jimmy leaves parcels behind the bins.", "place"));
  assert.ok(!holdsAnswer("Jimmy leaves parcels behind the bins.", "place"));
  assert.ok(!mayHoldAnswer("Fergus loves jazz.", "place", new Set(["fergus"])));
  assert.ok(!mayHoldAnswer("Fergus loves jazz.", "time"));
});

Deno.test("answerKinds: a date for a birthday or an anniversary, which ranking weighs as a time", () => {
  for (
    const question of [
      "When is Bartek's birthday?",
      "When is our wedding anniversary?",
      "What is Fergus's date of birth?",
    ]
  ) {
    assert.deepEqual(answerKinds(question), ["date"], question);
  }
  assert.equal(questionType("When is Bartek's birthday?"), "time");
  assert.deepEqual(answerKinds("When is Mia's birthday party?"), ["time"]);
  assert.deepEqual(answerKinds("When was Mia born?"), ["time"]);
  assert.deepEqual(answerKinds("When does Bartek walk the dog?"), ["time"]);
});

Deno.test("holdsAnswer: a date is a day of the year, not a time of day", () => {
  assert.ok(holdsAnswer("My sister's birthday is the day after Christmas.", "date"));
  assert.ok(holdsAnswer("Bartek turns forty in March.", "date"));
  assert.ok(holdsAnswer("Ottilie was born on the 3rd.", "date"));
  assert.ok(holdsAnswer("We married in 1989.", "date"));
  assert.ok(holdsAnswer("Donncha turned sixty last week.", "date"));
  assert.ok(holdsAnswer("Bartek's birthday was yesterday.", "date"));
  assert.ok(holdsAnswer("Bartek's birthday is on Friday.", "date"));
  assert.ok(holdsAnswer("Bartek's birthday is on St Patrick's Day.", "date"));
  assert.ok(holdsAnswer("Leo was born last spring.", "date"));
  assert.ok(holdsAnswer("We go away every New Year.", "date"));
  assert.ok(holdsAnswer("Mia's birthday is in two weeks.", "date"));
  assert.ok(holdsAnswer("Mia's birthday is the day after mine.", "date"));
  assert.ok(holdsAnswer("Mia was born on st patrick's day.", "date"));
  assert.ok(holdsAnswer("Mia turned ten last weekend.", "date"));
  assert.ok(!holdsAnswer("Donncha does the crossword every morning after breakfast.", "date"));
  assert.ok(!holdsAnswer("Bartek restores motorbikes at weekends and on Fridays.", "date"));
  assert.ok(!holdsAnswer("Bartek bought a new car.", "date"));
});

Deno.test("asksOwnName: a surname, a maiden or first name; not what someone's boat is called", () => {
  assert.ok(asksOwnName("What is Fergus's surname?"));
  assert.ok(asksOwnName("What was Breda's maiden name?"));
  assert.ok(asksOwnName("What is Father Walsh's first name?"));
  assert.ok(!asksOwnName("What is the name of Finbarr's boat?"));
  assert.ok(!asksOwnName("What's Yuki's husband called?"));
});

Deno.test("mayHoldAnswer: a place said without a capital, or by where it is from the user", () => {
  for (
    const text of [
      "Signe lives upstairs.",
      "Signe lives next door to us.",
      "Niamh works for the council.",
      "Niamh works at KPMG.",
      "Niamh lives in dublin now.",
      "Callum heard about the job from a friend.",
    ]
  ) {
    assert.ok(mayHoldAnswer(text, "place"), text);
  }
  const teodor = new Set(["teodor"]);
  assert.ok(!mayHoldAnswer("Teodor needs new goalkeeper gloves in size 7.", "place", teodor));
});

Deno.test("holdsAnswer: a name in capitals or with an apostrophe is a name", () => {
  const known = new Set(["fergus"]);
  assert.ok(holdsAnswer("Fergus O'Brien is my line manager.", "name", known));
  assert.ok(holdsAnswer("Callum works for IBM.", "name"));
  assert.ok(!holdsAnswer("I saw O'Brien's van.", "name", new Set(["obrien"])));
  assert.ok(holdsAnswer("Fergus's surname is de valera.", "name", known), "it says so");
});

Deno.test("answerKinds: 'called' asks for a name only as what something is called", () => {
  assert.deepEqual(answerKinds("What was the reason Niamh called?"), []);
  assert.deepEqual(answerKinds("What is the boat called?"), ["name"]);
});

Deno.test("mayHoldAnswer: a name may open a memory, a common word or 'I'm' does not", () => {
  const known = new Set(["orla"]);
  assert.ok(mayHoldAnswer("Declan is Orla's husband.", "name", known));
  assert.ok(mayHoldAnswer("Galway is where Orla grew up.", "place", known));
  assert.ok(!mayHoldAnswer("Declan is Orla's husband.", "name", new Set(["declan", "orla"])));
  assert.ok(mayHoldAnswer("O'Brien's is where Orla drinks.", "place", known));
  assert.ok(mayHoldAnswer("Aoife's, Orla says, is the best café.", "place", known));
  for (
    const text of [
      "I'm Orla's neighbour.",
      "Don't tell Orla.",
      "After lunch Orla naps.",
      "He'd met Orla twice.",
      "User's sister Orla likes jazz.",
    ]
  ) {
    assert.ok(!mayHoldAnswer(text, "name", known), text);
  }
  // Ranking's test is unchanged.
  assert.ok(!holdsAnswer("Declan is Orla's husband.", "name", known));
});

Deno.test("answerKinds: a weight, which a number alone does not hold", () => {
  assert.deepEqual(answerKinds("How much does Juno weigh?"), ["weight"]);
  assert.deepEqual(answerKinds("How heavy is the new sofa?"), ["weight"]);
  assert.deepEqual(answerKinds("How much does Juno eat?"), ["number"]);
  assert.equal(questionType("How much does Juno weigh?"), "number");
  for (
    const text of [
      "Juno weighs about 500 kilos.",
      "Bertram is 4kg now.",
      "Bonnie is two stone.",
      "Rex is 30 kgs.",
    ]
  ) {
    assert.equal(holdsAnswer(text, "weight"), true, text);
  }
  for (
    const text of ["Juno needs new shoes every seven weeks.", "Bertram is about forty years old."]
  ) {
    assert.equal(holdsAnswer(text, "weight"), false, text);
  }
});

Deno.test("answerKinds: where someone is from, which a garden does not say", () => {
  for (
    const question of [
      "Where did Rosalind grow up?",
      "Where was my father born?",
      "Where is Anselm from?",
      "Where does Yuki come from?",
    ]
  ) assert.deepEqual(answerKinds(question), ["origin"], question);
  assert.equal(questionType("Where did Rosalind grow up?"), "place");
  assert.deepEqual(answerKinds("Where does Rosalind grow dahlias?"), ["place"]);
  for (
    const text of [
      "Rosalind was raised on a farm.",
      "Rosalind is a Dubliner.",
      "Rosalind came over from the old country.",
      "Rosalind was brought up in the countryside.",
      "Rosalind lived by the sea as a kid.",
    ]
  ) assert.equal(mayHoldAnswer(text, "origin", new Set(["rosalind"])), true, text);
  const garden = "Rosalind grows prize-winning dahlias in her back garden.";
  assert.equal(mayHoldAnswer(garden, "place", new Set(["rosalind"])), true);
  assert.equal(mayHoldAnswer(garden, "origin", new Set(["rosalind"])), false);
});

Deno.test("answerKinds: a favourite colour, which ranking does not weigh", () => {
  assert.deepEqual(answerKinds("What is my granddaughter's favourite colour?"), ["colour"]);
  assert.equal(questionType("What is my granddaughter's favourite colour?"), undefined);
});

Deno.test("answerKinds: a code, which a year or an ordinal does not hold", () => {
  for (
    const question of [
      "What is the postcode of our flat?",
      "What is the password for my laptop?",
      "What's my PIN code?",
      "What is the code for my bike lock?",
    ]
  ) assert.deepEqual(answerKinds(question), ["code"], question);
  assert.deepEqual(answerKinds("What is the code of conduct about?"), []);
  assert.deepEqual(answerKinds("What is the dress code for the wedding?"), []);
  for (
    const text of [
      "Our flat is BS8 1AB.",
      "The code for the shed padlock is 4719.",
      "My bike lock code is the year Mam was born.",
      "I keep my passwords in a password manager.",
      "My bike lock opens with 372.",
      "The wifi is sunflower22.",
      "The safe is 12-30-45.",
    ]
  ) assert.equal(holdsAnswer(text, "code"), true, text);
  for (
    const text of [
      "We moved into this flat on the 1st of May 2023.",
      "Our flat is on the fourth floor.",
      "My laptop is a ThinkPad I bought second-hand.",
    ]
  ) assert.equal(holdsAnswer(text, "code"), false, text);
});
