/**
 * "Nothing matches" for a question about someone or something: when no memory about whom or what
 * a question asks holds the kind of answer it asks for ("How old is Callum?", and no memory about
 * Callum holds a number), recall answers nothing. The kind is a time, a date, a number, a weight,
 * a colour, a place, where someone is from, a code or a name (`answerKinds`), or else a kind of
 * thing ("What instrument does Ivan play?", `askedThing`). Whom it asks about is a relation ("my
 * sister", with the names the store gives her), a name ("Callum") or a thing ("my road bike"). A
 * subject no memory mentions is left to the ranking, as is a person more than `ABOUT_MAX`
 * memories mention (a speaker of a conversation): then the answer may be anywhere. For a thing,
 * one of the recall's best answers holding the kind of answer also answers (`Lacking`).
 *
 * @example
 * ```ts ignore
 * await lackedAnswer(subjects, "How old is Callum?", []);
 * // { why: { about: "Callum", asks_for: "number" } }
 * ```
 */
import {
  answerKinds,
  type AnswerType,
  asksOwnName,
  mayHoldAnswer,
  nameLetters,
  wordsOfText,
} from "../ranking/answer_types.ts";
import type { NamespaceIndex } from "../ranking/lexical_index.ts";
import { askedNames, askedRelations, bareName, definitions } from "../ranking/relations.ts";
import { askedThing, namesThing } from "../ranking/things.ts";
import {
  askedThings,
  holdsPhrase,
  saysName,
  thingName,
  THINGS_MAX,
  thingWords,
} from "../ranking/asked_things.ts";
import type { TermHasher } from "../ranking/terms.ts";
import { rankedText } from "../text_limits.ts";

/** The most memories about one subject that are read to look for the kind of answer. */
const ABOUT_MAX = 12;

/** Why recall found nothing: whom the question asks about, and the kind of answer it lacks. */
export interface LackedAnswer {
  /** Whom the question asks about ("Callum", "my sister"). */
  about: string;
  /** The kind of answer none of their memories holds: an `AnswerType`, or a kind of thing
   * (`askedThing`: "instrument", "food"). */
  asks_for: string;
}

/** Where a recall looks for the memories about someone. */
export interface SubjectLookup {
  owner: string;
  hasher: TermHasher;
  index: NamespaceIndex;
  /** Whether the recall may show a memory. */
  shown(id: string): boolean;
  /** The memories' texts, in order; `null` for one that cannot be read. */
  read(ids: string[]): Promise<(string | null)[]>;
}

/**
 * Why `query` has no answer, if it has none: see the module documentation. `names`: those the
 * store gives the relation the query asks about, or what the store says the person it names is
 * to the user ("best friend").
 */
export async function lackedAnswer(
  lookup: SubjectLookup,
  query: string,
  names: string[],
): Promise<Lacking | undefined> {
  const kinds = answerKinds(query);
  const thing = kinds.length === 0 ? askedThing(query) : undefined;
  const asks_for = thing ?? kinds[0];
  // Not a person: "Who is Nemo?" asks what Nemo is, which any memory about Nemo may say.
  if (!asks_for || asks_for === "person") return undefined;
  const found = await memoriesAbout(lookup, query, names);
  if (!found) return undefined;
  const { subject, about: { ids, texts } } = found;
  const known = knownNames(query, kinds, subject.about, names, texts);
  const holds = thing
    ? namesOf(thing, known, texts)
    : (text: string) => kinds.some((kind) => mayHoldAnswer(text, kind, known));
  const lacks = texts.every((text) => text !== null && !holds(text));
  if (!lacks) return undefined;
  const why = { about: subject.about, asks_for };
  return subject.thing ? { why, thing: { ids: new Set(ids), holds } } : { why };
}

/** Why a question has no answer; for a thing, what the recall's best answers must lack too. */
export interface Lacking {
  why: LackedAnswer;
  /**
   * For a thing ("my road bike"): its memories, and whether a text holds the kind of answer
   * asked for. A memory may call the thing otherwise ("Bought the Honda in 2019" for "my car"),
   * so one the recall ranks above them that holds it is an answer after all.
   */
  thing?: { ids: ReadonlySet<string>; holds(text: string): boolean };
}

/**
 * The names (lower case, as `nameLetters` gives them) that answer no name `query` asks for (its
 * `kinds` of answer): those of whom it asks about ("Fergus" is not Fergus's surname, "Killian"
 * not where my stepson went to school), and for a part of their own name, the first names of
 * the other people their memories `texts` name ("my brother Finbarr" is not Breda's maiden name;
 * "my uncle Finbarr Kelly" may hold it) and the places they name ("in Douglas"). Whom a name
 * holding theirs, or what the store says they are (`names`), defines is them; a name right after
 * theirs is theirs ("Fergus Ryan coaches my son Ryan" holds Fergus's surname).
 */
function knownNames(
  query: string,
  kinds: AnswerType[],
  about: string,
  names: string[],
  texts: (string | null)[],
): Set<string> {
  const said = new Set(names.flatMap(wordsOf));
  const known = new Set(wordsOf(about));
  // The names the store gives whom a question asks about answer a name, nothing else.
  if (!kinds.includes("name")) return new Set([...known, ...said]);
  if (!asksOwnName(query)) return known;
  const read = texts.filter((text) => text !== null);
  const theirs = (words: string[], relations: string[]) =>
    words.some((word) => known.has(word) || said.has(word)) ||
    relations.some((relation) => wordsOf(relation).some((word) => said.has(word)));
  const others = read.flatMap(definitions)
    .filter(({ name, relations }) => !theirs(wordsOf(name), relations))
    .map(({ name }) => wordsOf(name)[0]);
  const following = new Set(read.flatMap((text) => namesAfter(text, known)));
  const places = read.flatMap(placesIn);
  return new Set([...known, ...[...others, ...places].filter((word) => !following.has(word))]);
}

/**
 * The names right after "in", "at" or "from" in `text`, places ("Douglas" in "the church in
 * Douglas"); not a family ("the Kelly family").
 */
function placesIn(text: string): string[] {
  return [...text.matchAll(/\b(?:at|in|from)(?: the)? (\p{Lu}[\p{L}'’]*)(?! family)/gu)]
    .map(([, word]) => nameLetters(word).toLowerCase());
}

/**
 * Whether a text names a thing of `kind`; the people `texts` name are no things ("my sister
 * Hanne"), nor is whom the question asks about (`known`).
 */
function namesOf(kind: string, known: Set<string>, texts: (string | null)[]) {
  const people = new Set([
    ...known,
    ...texts.flatMap((text) => text === null ? [] : definitions(text)).flatMap(({ name }) =>
      wordsOf(name)
    ),
  ]);
  return (text: string) => namesThing(text, kind, people);
}

/** `name`'s words, as `nameLetters` gives them, in lower case. */
function wordsOf(name: string): string[] {
  return name.split(/\s+/).map((word) => nameLetters(word).toLowerCase());
}

/** The capitalised words right after one of `known` in `text` ("Ryan" in "Fergus Ryan"). */
function namesAfter(text: string, known: ReadonlySet<string>): string[] {
  const words = text.split(/\s+/);
  return words.slice(1).flatMap((word, at) =>
    known.has(nameLetters(words[at]).toLowerCase()) && /^\p{Lu}/u.test(nameLetters(word))
      ? [nameLetters(word).toLowerCase()]
      : []
  );
}

/**
 * Whom or what a question asks about: the term sets their memories are found by, and whether a
 * memory found calls them by their name, by what they are to the user, or by the thing's words.
 */
interface Subject {
  about: string;
  terms: string[][];
  calls?: (text: string) => boolean;
  /** Whether it is a thing ("my road bike"), not a person. */
  thing?: boolean;
}

/**
 * Whom `query` asks about and the texts of the memories about them: the first of its relation,
 * the name it asks about and the things it names ("my road bike") that memories are about. A
 * person more than `ABOUT_MAX` memories hold ends the search.
 */
async function memoriesAbout(
  lookup: SubjectLookup,
  query: string,
  names: string[],
): Promise<{ subject: Subject; about: About } | undefined> {
  for await (const subject of subjectsOf(lookup, query, names)) {
    const ids = aboutIds(lookup, subject.terms);
    // Too many memories name a person for one to be about them; fewer may hold a thing's name.
    if (ids.length > ABOUT_MAX && !subject.thing) return undefined;
    if (ids.length === 0 || ids.length > ABOUT_MAX) continue;
    const about = await readCalling(lookup, ids, subject.calls);
    if (about.texts.length === 0) continue;
    if (!subject.thing) return { subject, about };
    const more = await alsoAbout(lookup, subject.about, about);
    return more && {
      subject,
      about: { ids: [...about.ids, ...more.ids], texts: [...about.texts, ...more.texts] },
    };
  }
  return undefined;
}

/** Memories about a subject: their ids, and their texts cut to what is ranked (`null`: unread). */
interface About {
  ids: string[];
  texts: (string | null)[];
}

/** The memories `ids` that `calls` (when given) holds. */
async function readCalling(
  lookup: SubjectLookup,
  ids: string[],
  calls?: (text: string) => boolean,
): Promise<About> {
  const read = (await lookup.read(ids)).map((text) => text === null ? null : rankedText(text));
  const kept = ids.flatMap((_, i) => read[i] === null || !calls || calls(read[i]!) ? [i] : []);
  return { ids: kept.map((i) => ids[i]), texts: kept.map((i) => read[i]) };
}

/**
 * The other memories about `thing`: those that hold its last word ("My bike cost £800" for "my
 * road bike") or say the name the memories `found` give it (`thingName`: "I bought the Volvo in
 * 2021" for "My car is a Volvo"). `undefined` when too many do to read them all.
 */
async function alsoAbout(
  lookup: SubjectLookup,
  thing: string,
  { ids: found, texts }: About,
): Promise<About | undefined> {
  const head = thingWords(thing).at(-1)!;
  const names = [
    ...new Set(texts.flatMap((text) => text === null ? [] : thingName(text, thing) ?? [])),
  ];
  const terms = await lookup.hasher.hashQuery(lookup.owner, [head, ...names].join(" "));
  const ids = aboutIds(lookup, [terms]);
  const others = ids.filter((id) => !found.includes(id));
  if (ids.length > ABOUT_MAX || texts.length + others.length > ABOUT_MAX) return undefined;
  return await readCalling(
    lookup,
    others,
    (text) => holdsPhrase(thingWords(text), [head]) || names.some((name) => saysName(text, name)),
  );
}

/** Whom `query` may ask about, in the order `memoriesAbout` reads them. */
async function* subjectsOf(
  { owner, hasher }: SubjectLookup,
  query: string,
  names: string[],
): AsyncGenerator<Subject> {
  const [relation] = askedRelations(query);
  if (relation) {
    const terms = [await hasher.relations(owner, relation.relations)];
    for (const name of names) terms.push(await hasher.hashQuery(owner, bareName(name)));
    yield { about: query.slice(relation.start, relation.end), terms };
  }
  const [named] = askedNames(query);
  if (named) {
    // A memory may name them by what they are to the user ("my husband's best friend"), but not
    // one that only shares a word with it ("two friends").
    const name = bareName(named.name);
    const terms = await Promise.all(
      [name, ...names].map((words) => hasher.hashQuery(owner, words)),
    );
    yield { about: named.name, terms, calls: callsBy(name, names) };
  }
  for (const thing of askedThings(query).slice(0, THINGS_MAX)) {
    const words = thingWords(thing);
    yield {
      about: thing,
      terms: [await hasher.hashQuery(owner, thing)],
      calls: (text) => holdsPhrase(thingWords(text), words),
      thing: true,
    };
  }
}

/**
 * Whether a text calls someone by the first word of `name` ("Fergus" for "Fergus Ryan"), or by
 * what they are to the user (`relations`, "best friend"): its last word within three words after
 * "my" or "our" ("my oldest friend"), or right after "the" ("the dog").
 */
function callsBy(name: string, relations: string[]): (text: string) => boolean {
  const [first] = wordsOfText(name);
  const lasts = new Set(relations.flatMap((relation) => wordsOfText(relation).slice(-1)));
  return (text) => {
    const words = wordsOfText(text);
    return words.some((word, at) =>
      word.replace(/'s$/, "") === first ||
      (word === "the" && lasts.has(words[at + 1])) ||
      ((word === "my" || word === "our") &&
        words.slice(at + 1, at + 4).some((w) => lasts.has(w.replace(/'s$/, ""))))
    );
  };
}

/** The memories the recall may show that hold one of the term sets, up to `ABOUT_MAX + 1`. */
function aboutIds({ index, shown }: SubjectLookup, terms: string[][]): string[] {
  const ids = new Set<string>();
  for (const set of terms) {
    if (set.length === 0) continue;
    for (const { id } of index.search(set, ABOUT_MAX + 1).hits) if (shown(id)) ids.add(id);
  }
  return [...ids].slice(0, ABOUT_MAX + 1);
}
