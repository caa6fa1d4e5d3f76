/**
 * The things an English question asks about ("my road bike", "the piano", "our boat"), where it
 * says them, and the name a memory gives one ("My car is a Volvo estate": the car is "Volvo").
 * Recall asks a question about a thing again of its name ("How long have I had my car?" as "How
 * long have I had the Volvo?"); "nothing matches" reads a thing's memories.
 *
 * @example
 * ```ts
 * askedThings("How much did my road bike cost?"); // ["road bike"]
 * thingSpan("How much did my road bike cost?", "road bike"); // { start: 13, end: 25 }
 * thingName("My road bike is a Cannondale SuperSix.", "road bike"); // "Cannondale SuperSix"
 * thingName("We call our house Rose Villa.", "house"); // "Rose Villa"
 * ```
 * @module
 */
import { isTimeWord, wordsOfText } from "./answer_types.ts";
import { namesRelation } from "./relations.ts";
import { STOP_WORDS } from "./stop_words.ts";
import { PLACED, singulars } from "./things.ts";

/**
 * The things `query` names after "my", "our" or "the", in its order: up to three words before a
 * common one or the end. Right after "did", "does" or "do" the last word may be the question's
 * verb ("road bike" in "How much did my road bike cost?"). Not someone ("my physio", "the man"),
 * a time or an event ("the week", "my birthday"), a place ("at the hospital", "in my house") or
 * what the question asks of a thing ("the postcode of our flat").
 */
export function askedThings(query: string): string[] {
  const words = wordsOfText(query);
  return words.flatMap((word, at) => {
    if (!DETERMINERS.has(word) || PLACED.has(words[at - 1])) return [];
    let end = at + 1;
    while (end < words.length && !STOP_WORDS.has(words[end])) end++;
    const run = words.slice(at + 1, end);
    if (
      run.length === 0 || run.length > 3 || ["of", "for"].includes(words[end]) ||
      run.some((word) =>
        word.includes("'") || isTimeWord(word) || isSomeone(word) || EVENTS.has(word)
      )
    ) return [];
    const inverted = ["do", "does", "did"].includes(words[at - 1]) && end === words.length;
    return inverted && run.length > 1 ? [run.slice(0, -1).join(" ")] : [run.join(" ")];
  });
}

/** The most things of a question that are looked for ("my road bike", "the piano"). */
export const THINGS_MAX = 3;

/** The words before a thing. */
const DETERMINERS = new Set(["my", "our", "the"]);

/** Events, which a time answers rather than what a memory says of a thing. */
const EVENTS = new Set(
  "birthday anniversary wedding holiday holidays honeymoon party retirement funeral".split(" "),
);

/** Words for someone, besides a relation ("the man who owns our holiday cottage"). */
const PEOPLE = new Set("man woman men women guy lady girl person people baby".split(" "));

/** Whether `word` names someone: a relation ("physio", "kids") or a person ("man"). */
const isSomeone = (word: string) => PEOPLE.has(word) || namesRelation(word);

/** `text`'s words as a thing's are compared: without a possessive ("car's" → "car"). */
export const thingWords = (text: string) =>
  wordsOfText(text).map((word) => word.replace(/'s$/, ""));

/** Whether `words` holds `phrase`'s words in a row, any of them singular or plural. */
export function holdsPhrase(words: string[], phrase: string[]): boolean {
  return words.some((_, at) => phraseAt(words, at, phrase));
}

/** Whether `phrase`'s words stand in `words` from `at` on, any of them singular or plural. */
function phraseAt(words: string[], at: number, phrase: string[]): boolean {
  return phrase.every((word, n) => {
    const forms = singulars(word);
    return words[at + n] !== undefined &&
      singulars(words[at + n]).some((form) => forms.includes(form));
  });
}

/**
 * Where `query` says `thing` (one of `askedThings`), with its "my", "our" or "the";
 * `undefined` when its words are written otherwise there.
 */
export function thingSpan(
  query: string,
  thing: string,
): { start: number; end: number } | undefined {
  const before = [...DETERMINERS].join("|");
  const words = thing.split(" ").join("\\s+");
  const found = new RegExp(`(?<![\\p{L}\\p{N}])(?:${before})\\s+${words}(?![\\p{L}\\p{N}])`, "iu")
    .exec(query);
  return found ? { start: found.index, end: found.index + found[0].length } : undefined;
}

/** Words between a thing and its name: "is", "is called", "are the", "was a". */
const IS = new Set(["is", "are", "was"]);
const CALLED = new Set(["called", "named"]);
const ARTICLES = new Set(["a", "an", "the"]);
/** Words before a thing that its name follows: "We call our house Rose Villa". */
const CALLS = new Set(["call", "called", "name", "named"]);
/** The most words a name is read for, and between an article and a name ("a blue Volvo"). */
const NAME_WORDS = 3;
const DESCRIBING = 2;

/**
 * The name `text` gives `thing` ("Volvo" in "My car is a blue Volvo estate", "Sea Sprite" in "Our
 * boat is called Sea Sprite", "Rose Villa" in "We call our house Rose Villa"): the capitalised
 * words right after "my|our|the <thing> is|are|was" (then maybe "called" or "named", an article
 * and up to two words that are neither common nor capitalised), or after "call|name my|our|the
 * <thing>". `undefined` when it gives none.
 */
export function thingName(text: string, thing: string): string | undefined {
  const said = text.split(/\s+/).filter(Boolean);
  const words = said.map((word) => thingWords(word)[0] ?? "");
  const phrase = thingWords(thing);
  for (let at = 0; at < words.length; at++) {
    if (!DETERMINERS.has(words[at]) || !phraseAt(words, at + 1, phrase)) continue;
    let next = at + 1 + phrase.length;
    if (!CALLS.has(words[at - 1])) {
      if (!IS.has(words[next]) || ended(said[next - 1])) continue;
      next += CALLED.has(words[next + 1]) ? 2 : 1;
      if (ARTICLES.has(words[next])) {
        next++;
        for (let n = 0; n < DESCRIBING && describes(said[next], words[next]); n++) next++;
      }
    }
    const name = nameAt(said, next);
    if (name) return name;
  }
  return undefined;
}

/**
 * Whether a word said before a name describes the thing: lower case or a number, not common, and
 * not the end of a clause ("My car is a wreck. Tom …" names nothing).
 */
const describes = (said: string | undefined, word: string | undefined) =>
  said !== undefined && word !== undefined && /^[\p{Ll}\p{N}]/u.test(said) &&
  !STOP_WORDS.has(word) && !ended(said);

/** Whether a word ends a clause (a full stop, a comma …). */
const ended = (said: string | undefined) => said !== undefined && /[.,;:!?]$/.test(said);

/**
 * The capitalised words of `said` from `at` on, at most `NAME_WORDS`, up to the end of a clause
 * or a single letter ("Dell" in "a Dell I got"); none when the first is a time ("May") or
 * someone's ("Priya's").
 */
function nameAt(said: string[], at: number): string | undefined {
  const name: string[] = [];
  for (let n = at; n < said.length && name.length < NAME_WORDS; n++) {
    const word = said[n].replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
    if (!/^\p{Lu}/u.test(word) || word.length < 2) break;
    name.push(word);
    if (ended(said[n])) break;
  }
  const [first] = name;
  if (!first || /['’]s$/.test(first) || isTimeWord(first.toLowerCase())) return undefined;
  return name.join(" ");
}

/**
 * Whether `text` calls something by a word of `name` as a name: capitalised as it is, maybe with
 * an "s" ("the Sonys'"), so "the maple leaf" does not say "Nissan Leaf".
 */
export function saysName(text: string, name: string): boolean {
  const words = new Set(name.split(" "));
  return (text.match(/[\p{L}\p{N}-]+/gu) ?? []).some((word) =>
    words.has(word) || (word.endsWith("s") && words.has(word.slice(0, -1)))
  );
}
