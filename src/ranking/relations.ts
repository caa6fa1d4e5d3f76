/**
 * Who the user's people and pets are, from what the user said: "My daughter Elif …", "Bartek is
 * married to my sister", "Greet is my father's older sister". A memory that names someone by
 * their relation to the user defines them (`definitions`); a question that asks about "my
 * brother-in-law" names a relation (`askedRelations`), which recall replaces with the names the
 * store defines for it and asks again. Relations are compared as canonical names: "boss" and
 * "line manager" are one relation, "my father's sister" is "aunt", a sister's husband is a
 * sibling-in-law. English only; offline; no model.
 *
 * @example
 * ```ts
 * definitions("Bartek is married to my sister Hanne.");
 * // [{ name: "Hanne", relations: ["sister"] }, { name: "Bartek", relations: ["sibling-in-law"] }]
 * askedRelations("What does my brother-in-law do?");
 * // [{ start: 10, end: 27, relations: ["sibling-in-law"] }]
 * ```
 * @module
 */

/** Each relation's words, by its canonical name. */
const RELATIONS: Record<string, string> = {
  partner: "partner wife husband spouse girlfriend boyfriend fiancé fiancée fiance fiancee",
  mother: "mother mum mom mam mummy mommy",
  father: "father dad daddy papa",
  son: "son boy",
  daughter: "daughter",
  brother: "brother",
  sister: "sister",
  grandmother: "grandmother gran granny grandma nan nana nanna",
  grandfather: "grandfather grandad granddad grandpa",
  grandson: "grandson",
  granddaughter: "granddaughter",
  stepmother: "stepmother stepmum stepmom step-mother step-mum step-mom",
  stepfather: "stepfather stepdad step-father step-dad",
  stepbrother: "stepbrother step-brother",
  stepsister: "stepsister step-sister",
  stepson: "stepson step-son",
  stepdaughter: "stepdaughter step-daughter",
  "mother-in-law": "mother-in-law mother_in_law",
  "father-in-law": "father-in-law father_in_law",
  "sibling-in-law": "brother-in-law sister-in-law brother_in_law sister_in_law",
  "child-in-law": "son-in-law daughter-in-law son_in_law daughter_in_law",
  "ex-partner": "ex ex-wife ex-husband ex-partner ex-girlfriend ex-boyfriend",
  aunt: "aunt auntie aunty",
  uncle: "uncle",
  cousin: "cousin",
  "cousin-in-law": "cousin-in-law cousin_in_law",
  niece: "niece",
  nephew: "nephew",
  godchild: "godson goddaughter godchild",
  godparent: "godmother godfather godparent",
  manager: "boss manager supervisor line_manager",
  colleague: "colleague co-worker coworker workmate",
  friend: "friend mate pal buddy best_friend",
  neighbour: "neighbour neighbor",
  doctor: "doctor gp physician",
  dentist: "dentist",
  therapist: "therapist counsellor counselor psychologist",
  vet: "vet veterinarian",
  lawyer: "lawyer solicitor attorney",
  accountant: "accountant",
  nanny: "nanny babysitter childminder",
  coach: "coach trainer personal_trainer",
  teacher: "teacher tutor",
  landlord: "landlord landlady",
  tenant: "tenant lodger",
  hairdresser: "hairdresser barber",
  physiotherapist: "physio physiotherapist",
  cleaner: "cleaner housekeeper",
  gardener: "gardener",
  mechanic: "mechanic",
  postman: "postman postwoman postie mailman",
  priest: "priest vicar pastor rabbi imam",
  carer: "carer caregiver",
  housemate: "flatmate housemate roommate",
  "business partner": "business_partner",
  dog: "dog puppy",
  cat: "cat kitten",
  horse: "horse mare pony",
  rabbit: "rabbit bunny",
  hamster: "hamster",
  budgie: "budgie parakeet parrot",
  tortoise: "tortoise",
};

/** Canonical relations by each of their words ("line manager" → "manager"). */
const NOUNS = new Map<string, string[]>(
  Object.entries(RELATIONS).flatMap(([relation, names]) =>
    names.split(" ").map((name) => [name.replaceAll("_", " "), [relation]])
  ),
);
// Words of several relations: "my wife's parents" are the user's parents-in-law. "Family" and
// "relatives" name relations only after someone's ("my wife's family").
for (
  const [words, relations] of [
    ["kid kids child children youngest eldest oldest", "son daughter"],
    ["parent parents", "mother father"],
    ["sibling siblings", "brother sister"],
    ["grandparent grandparents", "grandmother grandfather"],
    ["grandchild grandchildren grandkid grandkids", "grandson granddaughter"],
    ["stepchild stepchildren stepkids", "stepson stepdaughter"],
    ["in-laws", "mother-in-law father-in-law"],
    ["family relatives relations folks", "mother father brother sister"],
  ]
) for (const word of words.split(" ")) NOUNS.set(word, relations.split(" "));

const ONLY_AFTER = new Set(["family", "relatives", "relations", "folks"]);

/** The relations a word or words name, a plural as its singular ("daughters", "sons"). */
function relationsOf(named: string): string[] | undefined {
  return NOUNS.get(named) ?? (named.endsWith("s") ? NOUNS.get(named.slice(0, -1)) : undefined);
}

/** Whether `word` names a relation ("physio", "kids"). */
export function namesRelation(word: string): boolean {
  return relationsOf(word) !== undefined;
}

/** `a`'s `b`, by canonical names: "father sister" is an aunt. */
const COMPOSED: Record<string, string> = {
  "partner mother": "mother-in-law",
  "partner father": "father-in-law",
  "partner brother": "sibling-in-law",
  "partner sister": "sibling-in-law",
  "brother partner": "sibling-in-law",
  "sister partner": "sibling-in-law",
  "mother sister": "aunt",
  "father sister": "aunt",
  "mother brother": "uncle",
  "father brother": "uncle",
  "mother mother": "grandmother",
  "father mother": "grandmother",
  "mother father": "grandfather",
  "father father": "grandfather",
  "brother son": "nephew",
  "sister son": "nephew",
  "brother daughter": "niece",
  "sister daughter": "niece",
  "aunt son": "cousin",
  "aunt daughter": "cousin",
  "uncle son": "cousin",
  "uncle daughter": "cousin",
  "son son": "grandson",
  "daughter son": "grandson",
  "son daughter": "granddaughter",
  "daughter daughter": "granddaughter",
  "son partner": "child-in-law",
  "daughter partner": "child-in-law",
  "cousin partner": "cousin-in-law",
  "aunt partner": "uncle",
  "uncle partner": "aunt",
  "father partner": "stepmother",
  "mother partner": "stepfather",
};

function composed(first: string[], then: string[]): string[] {
  return [...new Set(first.flatMap((a) => then.flatMap((b) => COMPOSED[`${a} ${b}`] ?? [])))];
}

interface Token {
  /** Lower case, with a possessive "'s" cut off. */
  word: string;
  capital: boolean;
  possessive: boolean;
  start: number;
  /** Where the word ends, before a possessive "'s". */
  end: number;
}

function tokens(text: string): Token[] {
  return [...text.matchAll(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu)].map((match) => {
    const raw = match[0].replace(/’/g, "'");
    const possessive = /'s$/i.test(raw);
    const word = (possessive ? raw.slice(0, -2) : raw).toLowerCase();
    const start = match.index;
    const end = start + (possessive ? raw.length - 2 : raw.length);
    return { word, capital: /^\p{Lu}/u.test(raw), possessive, start, end };
  });
}

/** Words that introduce a relation to the user. */
const OWNERS = new Set(["my", "our"]);
/** Words a relation's modifiers are never ("my trip with my sister" has no modifier "with"). */
const NOT_MODIFIERS = new Set(
  "a an the and or but of to in on at for with from by as is are was were be been has have had i me my our we you"
    .split(" "),
);

/** A relation named from token `at` on, and the token after it. */
interface Phrase {
  relations: string[];
  /** The token after the phrase. */
  next: number;
  /** Whether its last word is possessive ("my stepdad's"). */
  possessive: boolean;
  /** Whether it names several ("my daughters", "my kids"). */
  many: boolean;
}

/**
 * The relation named by the words from `at`: up to two modifiers ("older", "line") and a
 * relation word, then perhaps "'s" and another ("father's older sister").
 */
function phraseAt(words: Token[], at: number, after = false): Phrase | undefined {
  for (let skip = 0; skip <= 2; skip++) {
    const modifiers = words.slice(at, at + skip);
    if (modifiers.some((w) => w.capital || w.possessive || NOT_MODIFIERS.has(w.word))) return;
    for (const length of [3, 2, 1]) {
      const noun = words.slice(at + skip, at + skip + length);
      if (noun.length < length || noun.slice(0, -1).some((w) => w.possessive)) continue;
      const named = noun.map((w) => w.word).join(" ");
      const relations = relationsOf(named);
      if (!relations || (!after && ONLY_AFTER.has(named))) continue;
      // The last of two relation words names it: "our family GP".
      const next = words[at + skip + length];
      if (!noun.at(-1)!.possessive && next && relationsOf(next.word)) continue;
      const many = !NOUNS.has(named) || relations.length > 1;
      const phrase = {
        relations,
        next: at + skip + length,
        possessive: noun.at(-1)!.possessive,
        many,
      };
      if (!phrase.possessive) return phrase;
      const then = phraseAt(words, phrase.next, true);
      const both = then && composed(relations, then.relations);
      return both?.length ? { ...then!, relations: both } : phrase;
    }
  }
}

/** Titles a name may start with. */
const TITLES = new Set(["dr", "mr", "mrs", "ms", "miss", "prof", "sir"]);
/** Capitalised words that are not names. */
const NOT_NAMES = new Set(
  ("i i'm i've i'd i'll my our the a an we he she they it this that his her their your me " +
    "when where what who which how why there here monday tuesday wednesday thursday friday " +
    "saturday sunday").split(" "),
);

function nameWord(token: Token | undefined): boolean {
  return token !== undefined && token.capital && !NOT_NAMES.has(token.word) &&
    !relationsOf(token.word);
}

/** A name without its title ("Dr Adeyemi" → "Adeyemi"). */
export function bareName(name: string): string {
  return tokens(name).filter((token, i) => i > 0 || !TITLES.has(token.word)).map((token) =>
    name.slice(token.start, token.end)
  ).join(" ");
}

/** Whether only spaces (or a title's full stop) part token `i` from the one before. */
function spaced(text: string, words: Token[], i: number): boolean {
  return /^\.?\s+$/.test(text.slice(words[i - 1].end, words[i].start)) &&
    (!text.slice(words[i - 1].end, words[i].start).startsWith(".") ||
      TITLES.has(words[i - 1].word));
}

/** The name of up to three words (a title first) from token `at`, in the text's own spelling. */
function nameFrom(text: string, words: Token[], at: number): string | undefined {
  let end = at;
  const joined = (i: number) => !words[i - 1].possessive && spaced(text, words, i);
  while (end < at + 3 && nameWord(words[end]) && (end === at || joined(end))) end++;
  if (end === at || (end === at + 1 && TITLES.has(words[at].word))) return;
  return text.slice(words[at].start, words[end - 1].end);
}

/** The name of up to three words ending at token `last`. */
function nameUpTo(text: string, words: Token[], last: number): string | undefined {
  let start = last + 1;
  while (
    start > last - 2 && nameWord(words[start - 1]) && !words[start - 1].possessive &&
    (start > last || spaced(text, words, start))
  ) start--;
  if (start > last) return;
  return text.slice(words[start].start, words[last].end);
}

/** Verbs between a name and the relation it is ("Ruairi is my godson"). */
const IS = ["is", "was", "has been", "is now"];
/** Verbs between a name and the relation it is married to. */
const MARRIED = ["is married to", "was married to", "is engaged to", "married"];

/** The index of the token before `verb`, when the words before token `at` are `verb`. */
function before(words: Token[], at: number, verbs: string[]): number | undefined {
  for (const verb of verbs) {
    const parts = verb.split(" ");
    const from = at - parts.length;
    if (from > 0 && parts.every((part, i) => words[from + i].word === part)) return from - 1;
  }
}

/**
 * The token after "is called", "'s name is" and the like from token `at`, or after "is" before a
 * title ("is Dr Okafor"); with `bare`, after "named" and "called" too ("a dog named Pepper", not
 * "my mum called Sarah").
 */
function calledAt(words: Token[], at: number, bare = false): number | undefined {
  for (const verb of bare ? [...CALLED, ["named"], ["called"]] : CALLED) {
    if (verb.every((part, i) => words[at + i]?.word === part)) return at + verb.length;
  }
  if (["is", "was"].includes(words[at]?.word) && TITLES.has(words[at + 1]?.word)) return at + 1;
}

const CALLED = [
  "is called",
  "is named",
  "was called",
  "are called",
  "are named",
  "name is",
  "names are",
]
  .map((verb) => verb.split(" "));

/** Someone a text names, and their relations to the user. */
export interface Definition {
  name: string;
  relations: string[];
  /** The relation as the text says it after "my" ("line manager", "father's older sister"). */
  said?: string;
}

/** Where a neighbour lives, from "lives" on ("Signe lives in the flat below ours"). */
const NEIGHBOURS =
  /^lives (?:next door|upstairs|downstairs|across the (?:road|street|hall|landing)|in the (?:flat|house|apartment) (?:below|above|next door|opposite|across))/;
/** A neighbour by where they are from, after a name that opens its sentence ("Gearóid from next door"). */
const FROM_NEXT_DOOR = /^from (?:next door|(?:across|over) the (?:road|street))\b/;
/** Capitalised words that open a sentence before "from next door" and are no name. */
const NOT_NEIGHBOURS = new Set(
  "noise music everyone everybody someone somebody nobody anyone people parking traffic".split(" "),
);

/** The people (and pets) `text` names with their relation to the user. */
export function definitions(text: string): Definition[] {
  const words = tokens(text);
  const found: Definition[] = [];
  const define: Define = (names, relations, said) => {
    for (const name of names) found.push({ name, relations, said });
  };
  const defined = (name: string) => found.some((d) => d.name === name);
  words.forEach((_, at) => byRelation(text, words, at, define, defined));
  words.forEach((_, at) => byOtherWords(text, words, at, define));
  return found;
}

/** Records that `names` are the user's `relations`. */
type Define = (names: string[], relations: string[], said?: string) => void;

/**
 * Who the relation introduced at token `at` names ("my sister Hanne", "Ruairi is my godson");
 * `defined` tells whom the text names so far.
 */
function byRelation(
  text: string,
  words: Token[],
  at: number,
  define: Define,
  defined: (name: string) => boolean,
): void {
  const token = words[at];
  const phrase = introduced(words, at) && phraseAt(words, at + 1);
  if (!phrase) return;
  const some = !OWNERS.has(token.word); // "a dog", "two daughters"
  const { relations } = phrase;
  const said = text.slice(words[at + 1].start, words[phrase.next - 1].end);
  // "my sister Hanne", "my daughters Ana and Mia"
  if (!phrase.possessive) define(namesFrom(text, words, phrase.next, phrase.many), relations, said);
  // "my boss is called Karen", "a dog named Pepper", "my dentist is Dr Okafor"
  const called = calledAt(words, phrase.next, some);
  if (called !== undefined) define(namesFrom(text, words, called, phrase.many), relations, said);
  // "Ruairi is my godson"
  const is = before(words, at, IS);
  const named = is !== undefined && nameUpTo(text, words, is);
  if (named) define([named], relations, said);
  // "Carol, my mum, …", "Tomás (my husband) …": the phrase set apart on both sides
  const apposed = /^\s*[,(]\s*$/.test(text.slice(words[at - 1]?.end, token.start)) &&
    /^\s*[,)]/.test(text.slice(words[phrase.next - 1].end)) && nameUpTo(text, words, at - 1);
  if (apposed) define([apposed], relations, said);
  // "Bartek is married to my sister"; not "… my father's friend", nor whom the text already
  // names ("My mother Eileen married my father")
  const married = phrase.possessive ? undefined : before(words, at, MARRIED);
  const spouse = married !== undefined && nameUpTo(text, words, married);
  const inLaws = spouse && !defined(spouse) ? composed(relations, ["partner"]) : [];
  if (spouse && inLaws.length) define([spouse], inLaws);
}

/** Who the words at token `at` name without "my": a neighbour, a kin title, a spouse. */
function byOtherWords(text: string, words: Token[], at: number, define: Define): void {
  const token = words[at];
  const name = token.word === "lives" && NEIGHBOURS.test(text.slice(token.start)) &&
    nameUpTo(text, words, at - 1);
  if (name) define([name], ["neighbour"]);
  // "Gearóid from next door …", not "… from Tesco next door" nor "Noise from next door …"
  const from = token.word === "from" && FROM_NEXT_DOOR.test(text.slice(token.start)) &&
    nameUpTo(text, words, at - 1);
  const opens = from && opensSentence(text, words, at - tokens(from).length);
  if (opens && !NOT_NEIGHBOURS.has(from.toLowerCase())) define([from], ["neighbour"]);
  // "Mags and I have been best friends", "Tom and I are colleagues"
  const together = token.word === "and" && words[at + 1]?.word === "i" &&
    togetherAs(words, at + 2);
  const pair = together && nameUpTo(text, words, at - 1);
  if (pair && opensSentence(text, words, at - tokens(pair).length)) define([pair], together);
  // "Uncle Pete", "Grandma Rosa": a kin word as a title
  const kin = token.capital && KIN_TITLES.has(token.word) && nameFrom(text, words, at + 1);
  if (kin) define([kin], relationsOf(token.word)!);
  // "Tomás and I got married", where the name opens its sentence (not "… to Paris and I got …")
  const wed = token.word === "and" && words[at + 1]?.word === "i" &&
    WED.test(words.slice(at + 2, at + 5).map((w) => w.word).join(" ")) &&
    nameUpTo(text, words, at - 1);
  if (wed && opensSentence(text, words, at - tokens(wed).length)) define([wed], ["partner"]);
  // "I'm married to Tomás", not "I married Anna's sister Kate"
  for (const verb of MARRIED_TO_THE_USER) {
    if (!verb.every((part, i) => words[at + i]?.word === part)) continue;
    const [spouse] = namesFrom(text, words, at + verb.length);
    if (spouse && !words[at + verb.length + tokens(spouse).length - 1].possessive) {
      define([spouse], ["partner"]);
    }
  }
}

/**
 * Whether the words from `at` introduce a relation of the user's: "my", "our"; "I have (two)",
 * "we've got a"; or "a" before a relation that is named ("a dog named Pepper").
 */
function introduced(words: Token[], at: number): boolean {
  const word = words[at].word;
  if (OWNERS.has(word)) return true;
  if (!["a", "an", ...NUMBERS].includes(word)) return false;
  const owner = words.slice(Math.max(0, at - 3), at).map((w) => w.word).join(" ");
  if (/\b(i|we) (have|'ve got|have got|had)$|\b(i've|we've) got$/.test(owner)) return true;
  const phrase = phraseAt(words, at + 1);
  return phrase !== undefined && calledAt(words, phrase.next, true) !== undefined;
}

const NUMBERS = ["one", "two", "three", "four", "five", "six"];

/** Kin words used as a title before a name ("Uncle Pete"); not those that are names too. */
const KIN_TITLES = new Set("uncle aunt auntie aunty grandma grandpa grandad cousin".split(" "));

/** Verbs after "… and I" before what the two are to each other ("have been best friends"). */
const ARE = ["are", "were", "have been", "became"].map((verb) => verb.split(" "));

/**
 * The relations words from token `at` say two people are to each other: a verb of `ARE`, perhaps
 * a word such as "best", then a plural relation ("friends", "colleagues"), not kin.
 */
function togetherAs(words: Token[], at: number): string[] | false {
  const verb = ARE.find((parts) => parts.every((part, i) => words[at + i]?.word === part));
  if (!verb) return false;
  let next = at + verb.length;
  if (["best", "good", "close", "old", "great"].includes(words[next]?.word)) next++;
  const relations = words[next]?.word.endsWith("s") && relationsOf(words[next].word);
  // Not "Tom and I are friends with the Smiths", "… friends of the family".
  if (["with", "of"].includes(words[next + 1]?.word)) return false;
  return relations && PEERS.has(relations[0]) ? relations : false;
}

/** What two people can be to each other, said of both ("we are colleagues"). */
const PEERS = new Set(["friend", "colleague", "neighbour", "housemate"]);

/** "married" or "engaged" right after "… and I", perhaps after "got", "are" or "were". */
const WED = /^(?:(?:got|are|were|just got|have been) )?(?:married|engaged)\b/;

/** Whether token `i` starts the text or a sentence or clause. */
function opensSentence(text: string, words: Token[], i: number): boolean {
  return i === 0 || (i > 0 && /[.!?;:]\s*$/.test(text.slice(words[i - 1].end, words[i].start)));
}

/** Words that make a name the user's partner ("I'm married to Tomás"). */
const MARRIED_TO_THE_USER = ["i'm married to", "i am married to", "i'm engaged to", "i married"]
  .map((verb) => verb.split(" "));

/** The names from token `at`: one, or with `many` a list ("Ana and Mia", "Ana, Ben and Leo"). */
function namesFrom(text: string, words: Token[], at: number, many = false): string[] {
  const names: string[] = [];
  // Not a name of the next sentence: "I told my kids. Ana was upset."
  if (at > 0 && words[at] && opensSentence(text, words, at)) return names;
  for (let next = at; names.length < (many ? 4 : 1);) {
    const name = nameFrom(text, words, next);
    if (!name) break;
    names.push(name);
    const end = words[next].start + name.length;
    while (words[next] && words[next].start < end) next++;
    if (words[next]?.word === "and") next++;
    else if (!/^\s*,\s*$/.test(text.slice(words[next - 1].end, words[next]?.start))) break;
  }
  return names;
}

/** The relations a text defines someone by, as terms for the lexical index (`relationTerm`). */
export function definedRelations(text: string): string[] {
  return [...new Set(definitions(text).flatMap((d) => d.relations))].map(relationTerm);
}

/**
 * The term a memory that defines someone by `relation` holds: apart from every word's term (no
 * word holds a NUL), so only a relation asked for finds it.
 */
export function relationTerm(relation: string): string {
  return `relation\0${relation}`;
}

/** A relation a question asks about, where it names it ("my brother-in-law"). */
export interface AskedRelation {
  /** Where "my …" starts in the question. */
  start: number;
  /** Where it ends (before any "'s"). */
  end: number;
  relations: string[];
}

/** Pets, which a question may name with "the" ("Where does the cat sleep?"). */
const PETS = new Set(["dog", "cat", "horse", "rabbit", "hamster", "budgie", "tortoise"]);

/**
 * Whether token `at`, after "the", is a pet word alone: not "the best dog food", "the dogs" nor
 * "the dog next door".
 */
function thePet(words: Token[], at: number): boolean {
  const word = words[at]?.word;
  return word !== undefined && PETS.has(word) &&
    !["next", "across", "over", "upstairs", "downstairs"].includes(words[at + 1]?.word);
}

/**
 * The relations `question` names with "my" or "our", then a pet named with "the", but not with
 * the user ("my wife and I": what they share is said of "we", not of a name).
 */
export function askedRelations(question: string): AskedRelation[] {
  const words = tokens(question);
  const withUser = (at: number) =>
    (words[at]?.word === "and" && ["i", "me"].includes(words[at + 1]?.word)) ||
    (words[at - 1]?.word === "and" && ["i", "me"].includes(words[at - 2]?.word));
  const after = (opens: (at: number) => boolean) =>
    words.flatMap((token, at) => {
      const phrase = opens(at) && phraseAt(words, at + 1);
      if (!phrase || withUser(phrase.next) || withUser(at)) return [];
      return [{ start: token.start, end: words[phrase.next - 1].end, relations: phrase.relations }];
    });
  return [
    ...after((at) => OWNERS.has(words[at].word)),
    ...after((at) => words[at].word === "the" && thePet(words, at + 1)),
  ];
}

/** Whether `token` of `text` is written in capitals ("TV", "BMW"). */
const acronym = (text: string, token: Token) =>
  /^\p{Lu}{2,}$/u.test(text.slice(token.start, token.end));

/** Someone a question names ("Where does Niamh work?"), and where. */
export interface AskedName {
  start: number;
  end: number;
  name: string;
}

/** The names `question` asks about. */
export function askedNames(question: string): AskedName[] {
  const words = tokens(question);
  const found: AskedName[] = [];
  // The first word is capitalised as the question's start ("Can I …", "Tell me …"); one in
  // capitals after "my" or "our" is a thing's ("our TV"), not a person's ("my Tom").
  for (let at = 1; at < words.length; at++) {
    if (OWNERS.has(words[at - 1].word) && acronym(question, words[at])) continue;
    const name = nameWord(words[at]) && nameFrom(question, words, at);
    if (!name) continue;
    const end = words[at].start + name.length;
    found.push({ start: words[at].start, end, name });
    while (words[at + 1]?.start < end) at++;
  }
  return found;
}

/** `question` with the words at `asked` replaced by `words`. */
export function askedOf(
  question: string,
  asked: { start: number; end: number },
  words: string,
): string {
  return question.slice(0, asked.start) + words + question.slice(asked.end);
}
