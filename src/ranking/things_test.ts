import assert from "node:assert/strict";
import { askedThing, namesThing } from "./things.ts";

Deno.test("askedThing: the kind of thing a question asks which one of", () => {
  const asked = {
    "What instrument does Ivan play?": "instrument",
    "What sports does Ivan play?": "sport",
    "What is Priya's favourite food?": "food",
    "What's her favourite movie?": "film",
    "What breed of cat is Mungo?": "breed",
    "What kind of car does Marcus have?": "car",
    "What does Noor do for a living?": "job",
    "What does Wendell's wife do?": "job",
    "What is Noor's job?": "job",
    "What did Paddy do for a living?": "job",
    "Which language does Yuki speak at home?": "language",
    "What make is the piano?": "make",
    "What brand of laptop does Ivan have?": "make",
  };
  for (const [question, kind] of Object.entries(asked)) {
    assert.equal(askedThing(question), kind, question);
  }
  for (
    const question of [
      "What does Smudge do at night?",
      "Which school does Teodor go to?",
      "What is Saoirse's dissertation about?",
      "Where does Ivan play?",
      "What did I have for lunch?",
      "What did Tom do?",
    ]
  ) assert.equal(askedThing(question), undefined, question);
});

Deno.test("namesThing: a memory that names one, or speaks of one", () => {
  const names: [string, string][] = [
    ["Ivan has a battered old cello.", "instrument"],
    ["Sami plays bass in a jazz trio.", "instrument"],
    ["Mungo is a Persian.", "breed"],
    ["Pepper is a springer spaniel.", "breed"],
    ["Smudge goes mad for sardines.", "food"],
    ["Priya's favourite is her mum's dal.", "food"],
    ["Marcus just bought a second-hand estate car.", "car"],
    ["Marcus drives a Skoda.", "car"],
    ["Marcus coaches the under-tens at the hurling club.", "sport"],
    ["Lena is a firefighter.", "job"],
    ["Rory shoes horses for a living.", "job"],
    ["Clodagh teaches maths.", "subject"],
  ];
  for (const [text, kind] of names) assert.equal(namesThing(text, kind), true, text);
  assert.equal(namesThing("Ahmed repairs boilers.", "job", new Set(["ahmed"])), true);
  // Plurals, past tenses, a make after a possessive, a title alone, a player.
  const theirs: [string, string][] = [
    ["Tom loves potatoes.", "food"],
    ["Paddy farmed in Mayo all his life.", "job"],
    ["Noor Haddad teaches piano.", "job"],
    ["Bea's Tesla is in the garage.", "car"],
    ["Tom loves Jaws.", "film"],
    ["Ivan is a drummer.", "instrument"],
    ["Rex is a lab.", "breed"],
  ];
  const people = new Set(["tom", "paddy", "noor", "bea", "ivan", "rex"]);
  for (const [text, kind] of theirs) assert.equal(namesThing(text, kind, people), true, text);
  // A place of several words names no thing: "at St Luke's".
  assert.equal(namesThing("Ivan sings at St Luke's.", "instrument", people), false);
  const none: [string, string][] = [
    ["Ivan conducts the choir I sing with at St Luke's.", "instrument"],
    ["My cat Mungo sleeps on the radiator.", "breed"],
    ["Smudge brings mice in from the garden most nights.", "food"],
    ["Marcus works nights as a paramedic.", "car"],
    ["My wife Noor and I met at a climbing wall in Leith.", "job"],
    ["Ruairi turns nine on the 14th of June.", "sport"],
    ["Priya is doing a PhD in soil science at UCC.", "food"],
    ["Tomasz lives on strong black coffee and cigarettes.", "job"],
    ["Ivan has a cello.", "no such kind"],
    // What follows "is a" names a thing of another kind; a title or one letter names no make.
    ["Ivan is a solicitor in Cork.", "instrument"],
    ["Ivan was a keen swimmer.", "instrument"],
    ["The piano was last tuned by Mr Pryce.", "make"],
    ["The piano's middle C sticks.", "make"],
    ["Ivan goes wild for carrots.", "breed"],
  ];
  // Whom the question asks about is no thing: "Mungo" in "My cat Mungo".
  const known = new Set(["ivan", "mungo", "smudge", "marcus", "noor", "ruairi", "priya", "tomasz"]);
  for (const [text, kind] of none) assert.equal(namesThing(text, kind, known), false, text);
  // A name after an article or a possessive may be a make, a breed or a title.
  for (
    const [text, kind] of [
      ["Bea's got a battered Land Rover Defender.", "car"],
      ["Luna is a Russian blue.", "breed"],
      ["Paddy is working through every Maigret in order.", "book"],
      ["The piano is a Yamaha upright.", "make"],
      ["My phone is an iPhone 13.", "make"],
      ["My phone is a google pixel.", "make"],
      ["Grace is a jazz drummer.", "job"],
    ]
  ) assert.equal(namesThing(text, kind), true, text);
  assert.equal(namesThing("Marcus comes from Kilkenny.", "car"), false);
  assert.equal(namesThing("Marcus married my sister Hanne.", "car", new Set(["hanne"])), false);
});
