/**
 * Which one of a kind of thing an English question asks for ("What instrument does Ivan play?",
 * "What is Priya's favourite food?", "What breed of cat is Mungo?", "What does Noor do for a
 * living?"), and whether a memory's text names one. The words of each kind are WordNet's
 * (`things.json`, written by `tests/lexicon/things.py`), with words that speak of one without
 * naming it ("Ivan plays …", "Priya's favourite …"). "Nothing matches" reads them: when no
 * memory about Ivan names an instrument, none answers.
 *
 * @example
 * ```ts
 * askedThing("What instrument does Ivan play?"); // "instrument"
 * namesThing("Ivan has a battered old cello.", "instrument"); // true
 * namesThing("Ivan conducts the choir.", "instrument"); // false
 * ```
 * @module
 */
import { isTimeWord } from "./answer_types.ts";
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
  /^(?:what|which) (breed)\b/u,
  /^what (?:does|did) .+ (do)(?: for a living| for work)?\??$/u,
  /^(?:what|which)(?:'s| is| was| are| were)? .*\b(?:favourite|favorite) (\p{L}+)/u,
  /^(?:what|which) (\p{L}+) (?:does|do|did|is|was|are|were|has|have|had|can|could|would|will)\b/u,
  /^what(?:'s| is| was) \p{L}+(?: \p{L}+)?['’]s (\p{L}+)\??$/u,
];

/**
 * The kind of thing `question` asks which one of (`"instrument"`, `"food"`, `"breed"`, `"job"`
 * …); `undefined` when it asks for none the lexicon knows.
 */
export function askedThing(question: string): string | undefined {
  const asked = question.trim().toLowerCase().replace(/[’‘]/g, "'");
  for (const pattern of PATTERNS) {
    const noun = pattern.exec(asked)?.[1];
    const kind = noun && (ASKED.get(noun) ?? ASKED.get(singular(noun)));
    if (kind) return kind;
  }
  return undefined;
}

/**
 * Whether `text` names a thing of `kind`, or speaks of one ("plays", "favourite"). A name after
 * an article or a possessive names one too ("a battered Land Rover", "his Fender", "a Persian"),
 * unless it is one of `known` (lower case: whom the question asks about).
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
  return forms.some((word, at) =>
    [word, `${forms[at - 1]} ${word}`, `${forms[at - 2]} ${forms[at - 1]} ${word}`]
      .some((phrase) => words.has(phrase) || words.has(singular(phrase))) ||
    (NAMED.has(kind) && isThingName(said[at], at) && !known.has(word) &&
      forms.slice(Math.max(0, at - 3), at).some((before) => DETERMINERS.has(before))) ||
    // What someone does may be any verb after their name: "Ahmed repairs boilers".
    (kind === "job" && known.has(forms[at - 1]) && /^\p{Ll}{3,}s$/u.test(said[at]) &&
      !NO_JOB.has(word))
  );
}

/** Verbs after a name that say what someone does other than for a living. */
const NO_JOB = new Set(
  ("lives loves likes hates wants needs gets goes comes keeps says knows thinks feels seems " +
    "looks sleeps hides brings turns takes has does was is").split(" "),
);

/** Whether `word`, the `at`th of its text, may name a thing: a name not first, not "I" or a time. */
function isThingName(word: string, at: number): boolean {
  return at > 0 && /^\p{Lu}/u.test(word) && !/^I('|$)/.test(word) &&
    !isTimeWord(word.toLowerCase());
}

/** Words before a name used as a thing's ("a Skoda", "every Maigret"). */
const DETERMINERS = new Set("a an his her their every".split(" "));

/** `noun` without a plural's ending ("cellos" → "cello", "berries" → "berry"). */
function singular(noun: string): string {
  if (/ies$/.test(noun)) return `${noun.slice(0, -3)}y`;
  if (/(s|x|ch|sh)es$/.test(noun)) return noun.slice(0, -2);
  return noun.replace(/s$/, "");
}
