/**
 * The short-fact workload of the load and peer benchmarks: `count` distinct personal facts, each
 * about a named person, with a question that asks for it in other words. Deterministic, so that
 * every system measured stores and searches the same texts.
 *
 * @example
 * ```ts
 * const facts = factWorkload(1000);
 * facts[0].text;     // "Ada commutes to work by bicycle"
 * facts[0].question; // "How does Ada get to the office?"
 * ```
 */

/** A fact to remember and a question that should find it. */
export interface Fact {
  text: string;
  question: string;
}

const NAMES = [
  "Ada",
  "Bela",
  "Chen",
  "Dara",
  "Emeka",
  "Farah",
  "Goran",
  "Hana",
  "Ivo",
  "Jun",
  "Kofi",
  "Lena",
  "Mateo",
  "Nia",
  "Omar",
  "Priya",
  "Quinn",
  "Rosa",
  "Sven",
  "Tariq",
  "Uma",
  "Vera",
  "Wes",
  "Ximena",
  "Yusuf",
  "Zoe",
  "Aziz",
  "Bruna",
  "Cyrus",
  "Dalia",
  "Eitan",
  "Fiona",
  "Gael",
  "Hiro",
  "Ines",
  "Jonas",
  "Kira",
  "Luca",
  "Mira",
  "Nils",
  "Olga",
  "Pavel",
  "Rania",
  "Sami",
  "Talia",
  "Ugo",
  "Vikram",
  "Wanda",
  "Yara",
  "Zain",
]; // deno-fmt-ignore

const SURNAME_STARTS = ["Mor", "Kal", "Ben", "Sto", "Dra", "Vel", "Hal", "Rin", "Tam", "Gor"];
const SURNAME_ENDS = ["ton", "ova", "ez", "berg", "ski", "ami", "ini", "sen", "ard", "uk"];

/** `[fact, question]` templates; `{n}` is the person, `{v}` one of the template's values. */
const TEMPLATES: [string, string, string[]][] = [
  ["{n} commutes to work by {v}", "How does {n} get to the office?", [
    "bicycle",
    "train",
    "bus",
    "scooter",
    "car",
  ]],
  ["{n} is allergic to {v}", "What must {n} avoid eating?", [
    "peanuts",
    "shellfish",
    "gluten",
    "eggs",
    "strawberries",
  ]],
  ["{n}'s daughter is called {v}", "What is the name of {n}'s girl?", [
    "Maya",
    "Elsa",
    "Noor",
    "Ivy",
    "Lucia",
  ]],
  ["{n} works as a {v}", "What is {n}'s job?", [
    "nurse",
    "carpenter",
    "pilot",
    "teacher",
    "lawyer",
  ]],
  ["{n} lives in {v}", "Which city is {n}'s home?", [
    "Lisbon",
    "Osaka",
    "Nairobi",
    "Toronto",
    "Krakow",
  ]],
  ["{n} drinks {v} every morning", "What does {n} have for breakfast?", [
    "green tea",
    "black coffee",
    "orange juice",
    "oat milk",
    "espresso",
  ]],
  ["{n}'s birthday is in {v}", "When was {n} born?", [
    "March",
    "July",
    "October",
    "January",
    "May",
  ]],
  ["{n} drives a {v}", "What car does {n} own?", [
    "red Volvo",
    "blue Honda",
    "white Tesla",
    "grey Fiat",
    "green Jeep",
  ]],
  ["{n} plays the {v}", "Which instrument can {n} play?", [
    "cello",
    "piano",
    "violin",
    "drums",
    "guitar",
  ]],
  ["{n} is vegetarian and never eats {v}", "Does {n} eat meat?", [
    "beef",
    "pork",
    "chicken",
    "lamb",
    "bacon",
  ]],
  ["{n} goes {v} on weekends", "What does {n} do on Saturdays?", [
    "hiking",
    "swimming",
    "climbing",
    "sailing",
    "fishing",
  ]],
  ["{n} has a pet {v}", "What animal lives with {n}?", [
    "cat",
    "dog",
    "parrot",
    "rabbit",
    "tortoise",
  ]],
  ["{n} takes {v} for blood pressure", "Which medicine is {n} on?", [
    "lisinopril",
    "amlodipine",
    "losartan",
    "atenolol",
    "ramipril",
  ]],
  ["{n} studied {v} at university", "What was {n}'s degree?", [
    "physics",
    "history",
    "economics",
    "biology",
    "architecture",
  ]],
  ["{n} supports {v} football club", "Which team is {n} a fan of?", [
    "Benfica",
    "Arsenal",
    "Ajax",
    "Napoli",
    "Celtic",
  ]],
  ["{n}'s wife is a {v}", "What does {n}'s spouse do for a living?", [
    "dentist",
    "chef",
    "journalist",
    "engineer",
    "florist",
  ]],
  ["{n} speaks fluent {v}", "Which foreign language does {n} know?", [
    "Japanese",
    "Portuguese",
    "Swahili",
    "Polish",
    "Korean",
  ]],
  ["{n} is afraid of {v}", "What scares {n}?", [
    "spiders",
    "heights",
    "thunder",
    "snakes",
    "the dark",
  ]],
  ["{n} reads {v} novels before bed", "What books does {n} enjoy?", [
    "mystery",
    "fantasy",
    "romance",
    "science fiction",
    "historical",
  ]],
  ["{n} owns a {v} watch", "What does {n} wear on the wrist?", [
    "gold",
    "silver",
    "vintage",
    "digital",
    "diving",
  ]],
]; // deno-fmt-ignore

/**
 * `count` facts (at most 100,000): every person (a first name, then with one of 100 surnames)
 * with every template, values cycling; distinct texts.
 */
export function factWorkload(count: number): Fact[] {
  const facts: Fact[] = [];
  for (let i = 0; facts.length < count; i++) {
    const [fact, question, values] = TEMPLATES[i % TEMPLATES.length];
    const person = Math.floor(i / TEMPLATES.length);
    const first = NAMES[person % NAMES.length];
    const family = Math.floor(person / NAMES.length) % 100;
    const name = person < NAMES.length
      ? first
      : `${first} ${SURNAME_STARTS[family % 10]}${SURNAME_ENDS[Math.floor(family / 10)]}`;
    const value = values[(person + i) % values.length];
    facts.push({
      text: fact.replaceAll("{n}", name).replaceAll("{v}", value),
      question: question.replaceAll("{n}", name),
    });
  }
  return facts;
}

/**
 * `count` distinct indexes into `size` facts, spread through them and over every template: a
 * stride of about `size / count` made prime to the number of templates and to `size` (a stride
 * of exactly `size / count` could meet a single template).
 */
export function spreadIndexes(size: number, count: number): number[] {
  const gcd = (a: number, b: number): number => b === 0 ? a : gcd(b, a % b);
  let stride = Math.max(1, Math.floor(size / count));
  while (gcd(stride, TEMPLATES.length) !== 1 || gcd(stride, size) !== 1) stride++;
  return Array.from({ length: Math.min(size, count) }, (_, k) => (k * stride) % size);
}
