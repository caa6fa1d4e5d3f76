/**
 * Which one of a kind of thing an English question asks for ("What instrument does Ivan play?",
 * "What is Priya's favourite food?", "What breed of cat is Mungo?", "What does Noor do for a
 * living?", "What make is the piano?"), and whether a memory's text names one. The words of each
 * kind are WordNet's (`things.json`, written by `tests/lexicon/things.py`), with words that speak
 * of one without naming it ("Ivan plays …", "Priya's favourite …"). "Nothing matches" reads
 * them: when no memory about Ivan names an instrument, none answers.
 *
 * @example
 * ```ts
 * askedThing("What instrument does Ivan play?"); // "instrument"
 * namesThing("Ivan has a battered old cello.", "instrument"); // true
 * namesThing("Ivan conducts the choir.", "instrument"); // false
 * ```
 * @module
 */
import { asked, isTimeWord } from "./answer_types.ts";
import lexicon from "./things.json" with { type: "json" };

/** The kinds often called by a make, a breed or a title ("a Skoda", "a Persian"). */
const NAMED = new Set(
  Object.entries(lexicon.kinds).flatMap(([kind, { named }]) => named ? [kind] : []),
);
const KINDS = new Map(
  Object.entries(lexicon.kinds).map(([kind, { words }]) => [kind, new Set(words)]),
);
/** Each noun a question may ask by, and its kind ("movie" → "film"). */
const ASKED = new Map(
  Object.entries(lexicon.kinds).flatMap(([kind, { asked }]) => asked.map((noun) => [noun, kind])),
);

/** Where a question names the thing it asks which one of. */
const PATTERNS = [
  /^(?:what|which) (?:kind|type|sort|make|brand) of (\p{L}+)/u,
  /^(?:what|which) (breed|make|brand|model)\b/u,
  /^what does .+ (do)(?: for a living| for work)?\??$/u,
  /^what did .+ (do) for (?:a living|work)\??$/u,
  /^(?:what|which)(?:'s| is| was| are| were)? .*\b(?:favourite|favorite) (\p{L}+)/u,
  /^(?:what|which) (\p{L}+) (?:does|do|did|is|was|are|were|has|have|had|can|could|would|will)\b/u,
  /^what(?:'s| is| was) \p{L}+(?: \p{L}+)?['’]s (\p{L}+)\??$/u,
];

/**
 * The kind of thing `question` asks which one of (`"instrument"`, `"food"`, `"breed"`, `"job"`
 * …); `undefined` when it asks for none the lexicon knows.
 */
export function askedThing(question: string): string | undefined {
  for (const pattern of PATTERNS) {
    const noun = pattern.exec(asked(question))?.[1];
    const kind = noun && singulars(noun).map((form) => ASKED.get(form)).find(Boolean);
    if (kind) return kind;
  }
  return undefined;
}

/**
 * Whether `text` names a thing of `kind`, or speaks of one ("plays", "favourite"); "is a" only
 * when no word of another kind follows ("Grace is a solicitor"). A name may name a make, a car, a
 * drink, an instrument, a film, a book or a breed ("a battered Land Rover", "Bea's Tesla", "loves
 * Jaws"), unless it is one of `known` (lower case: the people the memories name), a person ("Mr
 * Pryce"), a place ("from Kilkenny"), a time, one letter or the first word. A job may be any verb
 * just after one of `known` ("Ahmed repairs boilers", "Paddy farmed").
 */
export function namesThing(
  text: string,
  kind: string,
  known: ReadonlySet<string> = new Set(),
): boolean {
  const words = KINDS.get(kind);
  if (!words) return false;
  const said = text.replace(/[’‘]/g, "'").match(/[\p{L}\p{N}'-]+/gu) ?? [];
  const forms = said.map((word) => word.toLowerCase().replace(/'s$/, ""));
  // A name of several words ("St Luke's", "Hanne Murphy") is read from its first; "Bea's"
  // before "Tesla" is another.
  const first: number[] = [];
  for (let at = 0; at < said.length; at++) {
    const joined = at > 0 && isCapital(said[at - 1]) && !said[at - 1].endsWith("'s");
    first.push(joined ? first[at - 1] : at);
  }
  const named = (at: number) =>
    NAMED.has(kind) && isThingName(said[at]) && first[at] > 0 && !known.has(forms[at]) &&
    !known.has(forms[first[at]]) && !PLACED.has(forms[first[at] - 1]) &&
    !TITLES.has(forms[first[at]]);
  const done = (at: number) =>
    kind === "job" && (known.has(forms[at - 1]) || known.has(forms[at - 2])) &&
    /^\p{Ll}{3,}(s|ed)$|^(taught|drove|ran|sold|built|wrote|made|kept)$/u.test(said[at]) &&
    !NO_JOB.has(forms[at]);
  // The word at `at`, and the two and three words ending there.
  const phrases = (at: number) =>
    [at, at - 1, at - 2].map((from) => forms.slice(Math.max(from, 0), at + 1).join(" "));
  // "Grace is a solicitor" names a thing of another kind.
  const other = (at: number) =>
    [at, at + 1, at + 2].some((next) =>
      next < forms.length && phrases(next).some((phrase) => ofOtherKind(phrase, kind))
    );
  return forms.some((_, at) => {
    const found = phrases(at).find((phrase) => singulars(phrase).some((form) => words.has(form)));
    // Anyone may be "a drummer" for a living.
    if (found) return !(CUES.has(found) && kind !== "job" && other(at + 1));
    return named(at) || done(at);
  });
}

/** Cues that only say what follows may name one: "is a" in "Ivan is a drummer". */
const CUES = new Set(["is a", "is an", "was a", "was an"]);

/** Whether `phrase` names a thing of a kind other than `kind`, and none of `kind`. */
function ofOtherKind(phrase: string, kind: string): boolean {
  const forms = singulars(phrase);
  const of = (words: Set<string>) => forms.some((form) => words.has(form) && !CUES.has(form));
  return !of(KINDS.get(kind)!) && [...KINDS].some(([other, words]) => other !== kind && of(words));
}

/** Verbs after a name that say what someone does other than for a living. */
const NO_JOB = new Set(
  ("lives loves likes hates wants needs gets goes comes keeps says knows thinks feels seems " +
    "looks sleeps hides brings turns takes has does was is lived loved liked hated wanted " +
    "needed moved died married retired visited called texted").split(" "),
);

/** Words before a place ("from Kilkenny", "at the hospital"), which is no thing. */
export const PLACED: ReadonlySet<string> = new Set([
  "in",
  "at",
  "from",
  "to",
  "near",
  "into",
  "on",
]);

/** Titles before a person's name ("Mr Pryce"), which names no thing. */
const TITLES = new Set(["mr", "mrs", "ms", "miss", "dr", "prof", "sir"]);

/** Whether `word` begins with a capital. */
const isCapital = (word: string) => /^\p{Lu}/u.test(word);

/**
 * Whether `word` may name a thing: a name ("Tesla", "iPhone"), not "I'm", one letter ("middle C")
 * nor a time.
 */
function isThingName(word: string): boolean {
  return (isCapital(word) || /^\p{Ll}\p{Lu}/u.test(word)) && word.length > 1 && !/^I'/.test(word) &&
    !isTimeWord(word.toLowerCase());
}

/** `noun` and what it may be without a plural's ending ("tomatoes" → "tomatoe", "tomato"). */
export function singulars(noun: string): string[] {
  return [noun, noun.replace(/s$/, ""), noun.replace(/es$/, ""), noun.replace(/ies$/, "y")];
}
