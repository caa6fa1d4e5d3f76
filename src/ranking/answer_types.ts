/**
 * The kind of answer an English question asks for, and whether a memory's text holds one: a
 * time ("When is my appraisal?" — "on the 20th of June", "every Tuesday", "in 2019"), a place
 * ("Where do I work out?" — a name, "gym", "station"), a person ("Who is my dentist?" — a name,
 * "Dr.", "my sister"), a number ("How much do I earn?", "What is her phone number?" — digits,
 * "twelve"), a colour ("What colour is the van?" — "red", "ginger"), a name ("What is Fergus's
 * surname?", "What is the boat called?" — a capitalised word) or a date ("When is Bartek's
 * birthday?" — "in March", "on the 3rd", "the day after Christmas"), a weight ("How much does
 * Juno weigh?" — "40 kilos", "two stone"), where someone is from ("Where did Rosalind grow
 * up?" — a name, "born", "raised") or a code ("What is the postcode of our flat?" — "BS8 1AB",
 * "4719", "the code is …"). A standalone fact
 * asked about in other words shares few words with its question; holding the kind of answer
 * asked for is then a good sign (a classic of question answering). Recall weighs it for
 * memories without a thread, whose plaintext it reads anyway for the re-ranker.
 *
 * @example
 * ```ts
 * questionType("When is my appraisal?"); // "time"
 * holdsAnswer("I have a performance review on the 20th of June.", "time"); // true
 * holdsAnswer("I mentor two junior developers.", "time"); // false
 * ```
 * @module
 */
import { STOP_WORDS } from "./stop_words.ts";

/** What a question asks for. */
export type AnswerType =
  | "time"
  | "place"
  | "person"
  | "number"
  | "colour"
  | "name"
  | "date"
  | "weight"
  | "origin"
  | "code";

const TYPES: [AnswerType, RegExp][] = [
  [
    "time",
    /^(when|since when|how often|how long|what time|what date|what day|which days?|what year|which year|what month|which month)\b/,
  ],
  [
    "place",
    /^(where|(which|what) (city|country|town|village|place|street|station|hospital|school|university|supermarket|shop|café|cafe|restaurant|gym|club|address))\b/,
  ],
  ["person", /^(who|whom|whose)\b/],
  [
    "number",
    /^how (much|many|old|far|big|tall|heavy)\b|^what('s| is| was)\b.*\b(phone|house|room|flat) number\b/,
  ],
  ["colour", /^(what|which) colou?r\b/],
];

/** A question for a name, which only `answerKinds` tells (ranking does not weigh it). */
const NAME =
  /^what('s| is| was)\b.*\b(surname|maiden name|first name|last name|full name|nickname)\b|^what('s| is| are)\b.*\bcalled\??$|^what('s| is| was) the name of\b/;
/** A question for a part of someone's own name: another person's name is no answer. */
const OWN_NAME = /^what('s| is| was)\b.*\b(surname|maiden name|first name|last name|full name)\b/;
/** A time that is a day of the year, which only `answerKinds` tells. */
const DATE =
  /^(when|what date|which date)\b.*\b(birthday|anniversary)\??$|^(when|what)\b.*\bdate of birth\??$/;

/** A question for a weight, which only `answerKinds` tells. */
const WEIGHT = /^how heavy\b|^how much (?:does|did|do|is|was) .+ weigh\??$/;
/** A question for where someone is from, which only `answerKinds` tells. */
const ORIGIN =
  /^where (?:did|does|do|was|were|is|are) .+ (?:grow up|grew up|born|raised|come from|from)\??$/;
/** A question for a code ("What is the postcode of our flat?"), which only `answerKinds` tells. */
const CODE =
  /^what(?:'s| is| was)\b(?!.*\bdress code\b).*\b(?:post ?code|zip ?code|eircode|password|passcode|pin|pin number|pin code|combination|code)\b(?: (?:of|for|to|on) (?:the|my|our|his|her|their|a|an)\b.*)?\??$/;
/** A question for a favourite colour, which only `answerKinds` tells. */
const FAVOURITE_COLOUR = /^what(?:'s| is| was| are) .*\bfavou?rite colou?rs?\??$/;

/** `question` as its kind is read from: trimmed, lower case, apostrophes straight. */
export const asked = (question: string) => question.trim().toLowerCase().replace(/[’‘]/g, "'");

/** `text`'s words: lower case, in one Unicode form, apostrophes straight ("o'brien's"). */
export function wordsOfText(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().replace(/[’‘]/g, "'")
    .match(/[\p{L}\p{N}]+(?:'\p{L}+)?/gu) ?? [];
}

/**
 * The kind of answer `question` asks for, as ranking weighs it (never a name); `undefined` when it
 * asks for none of them.
 */
export function questionType(question: string): AnswerType | undefined {
  return TYPES.find(([, pattern]) => pattern.test(asked(question)))?.[0];
}

/**
 * The kinds of answer that answer `question`: the one it asks for, and a number too for "How
 * long …", which asks for a time or a length; a name; a date for a birthday or an anniversary;
 * a weight; where someone is from; a code; a favourite colour. None when it asks for no kind.
 */
export function answerKinds(question: string): AnswerType[] {
  if (DATE.test(asked(question))) return ["date"];
  if (WEIGHT.test(asked(question))) return ["weight"];
  if (ORIGIN.test(asked(question))) return ["origin"];
  if (CODE.test(asked(question))) return ["code"];
  if (FAVOURITE_COLOUR.test(asked(question))) return ["colour"];
  const type = questionType(question);
  if (!type) return NAME.test(asked(question)) ? ["name"] : [];
  return type === "time" && /^how long\b/.test(asked(question)) ? [type, "number"] : [type];
}

/** Whether `question` asks for a part of someone's own name ("What is Fergus's surname?"). */
export function asksOwnName(question: string): boolean {
  return OWN_NAME.test(asked(question));
}

const MONTHS = "january february march april may june july august september october november " +
  "december jan feb mar apr jun jul aug sep sept oct nov dec";
/** A day of the week: "on Friday" may be a date, "on Fridays" is not. */
const DAYS = "monday tuesday wednesday thursday friday saturday sunday";
const WEEKDAYS = `${DAYS} mondays tuesdays wednesdays thursdays fridays saturdays sundays ` +
  "weekend weekends weekday weekdays";
const TIME_WORDS = new Set(
  (`${MONTHS} ${WEEKDAYS} morning mornings afternoon afternoons evening evenings night nights ` +
    "noon midnight tonight today tomorrow yesterday daily weekly monthly yearly annually every " +
    "ago since until christmas easter summer winter spring autumn year years month months " +
    "week weeks day days hour hours minute minutes o'clock").split(" "),
);
const DATE_WORDS = new Set(
  (`${MONTHS} ${DAYS} spring summer autumn winter christmas easter halloween hallowe'en ` +
    "valentine's valentine thanksgiving diwali eid hanukkah midsummer yesterday today tomorrow " +
    "ago day days week weeks weekend fortnight month months year years").split(" "),
);
/** A date by its numbers: a year, "the 3rd", "12/03". */
const DATE_PATTERN = /\b(1[89]|20)\d\d\b|\b\d+(st|nd|rd|th)\b|\b\d{1,2}[/.]\d{1,2}\b/;
const NUMBER_WORDS = new Set(
  ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen " +
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety " +
    "hundred thousand million half dozen couple once twice teens twenties thirties forties " +
    "fifties sixties seventies eighties nineties").split(" "),
);
const WEIGHT_WORDS = new Set(
  ("weigh weighs weighed weight kilo kilos kilogram kilograms kilogramme kilogrammes kg kgs " +
    "gram grams pound pounds lb lbs " +
    "stone stones ounce ounces ton tons tonne tonnes heavy heavier light lighter").split(" "),
);
const PLACE_WORDS = new Set(
  ("street road avenue lane square city town village country station airport hospital school " +
    "university office park beach river valley mountains coast island abroad home flat house " +
    "garage campsite gym shop café cafe restaurant pub church upstairs downstairs nearby " +
    "overseas locally").split(" "),
);
const COLOURS = new Set(
  ("red orange yellow green blue purple violet pink brown black white grey gray silver gold " +
    "golden ginger tabby beige cream navy teal turquoise maroon crimson scarlet amber bronze " +
    "copper tan chestnut brindle tortoiseshell piebald auburn blonde blond lilac lavender " +
    "magenta khaki olive").split(" "),
);
const PERSON_WORDS = new Set(
  ("dr mr mrs ms doctor dentist mother father mum dad mom brother sister wife husband son " +
    "daughter uncle aunt cousin nephew niece grandmother grandfather stepdad stepmum stepmother " +
    "stepfather manager boss friend colleague partner").split(" "),
);

/** Whether `word` (lower case) says when: a month, a day, a season, "morning", "ago" … */
export function isTimeWord(word: string): boolean {
  return TIME_WORDS.has(word);
}

/** `word`'s letters, as a name is compared: "O'Brien's" → "OBrien". */
export function nameLetters(word: string): string {
  return word.replace(/['’]s$/, "").replace(/[^\p{L}]/gu, "");
}

/** The capitalised words of `text` after its first, as `nameLetters` gives them, in lower case. */
function namesIn(text: string): string[] {
  return text.split(/\s+/).slice(1).flatMap((word) => {
    if (/^I(['’]|$)/.test(word)) return []; // "I", "I'm"
    const letters = nameLetters(word);
    // "KPMG" and "O'Brien" are names too.
    return /^\p{Lu}/u.test(letters) && letters.length > 1 && !TIME_WORDS.has(letters.toLowerCase())
      ? [letters.toLowerCase()]
      : [];
  });
}

/** A capitalised word after the first, other than those of `known`: a place's or a person's. */
const hasName = (text: string, known: ReadonlySet<string>) =>
  namesIn(text).some((name) => !known.has(name));

/**
 * Whether `text` holds an answer of the kind `type`; a name among `known` (lower case: whom the
 * question asks about) is not one.
 */
export function holdsAnswer(
  text: string,
  type: AnswerType,
  known: ReadonlySet<string> = new Set(),
): boolean {
  const words = wordsOfText(text);
  switch (type) {
    case "time":
      return words.some((word) => TIME_WORDS.has(word)) ||
        /\b(1[89]|20)\d\d\b|\b\d+(st|nd|rd|th)\b|\b\d+(:\d\d)?\s?(am|pm)\b|\b(at|by) \d/i.test(
          text,
        );
    case "number":
      return /\d/.test(text) || words.some((word) => NUMBER_WORDS.has(word));
    case "place":
      return hasName(text, known) || words.some((word) => PLACE_WORDS.has(word));
    case "person":
      return hasName(text, known) || words.some((word) => PERSON_WORDS.has(word));
    case "colour":
      return words.some((word) => COLOURS.has(word));
    case "name":
      return hasName(text, known) || NAMING.test(text);
    case "weight":
      return words.some((word) => WEIGHT_WORDS.has(word)) ||
        /\d\s?(kgs?|g|lbs?|oz|st)\b/i.test(text);
    case "date":
      return words.some((word) => DATE_WORDS.has(word)) || DATE_PATTERN.test(text);
    case "origin":
      return holdsAnswer(text, "place", known) || ORIGIN_WORDS.test(text);
    case "code":
      return CODE_WORDS.test(text) || (text.match(/[\p{L}\p{N}]+/gu) ?? []).some(isCode);
  }
}

/** Words that say where someone is from ("grew up on a farm", "a native of", "as a kid"). */
const ORIGIN_WORDS =
  /\b(grew up|grow up|growing up|brought up|born|raised|native|childhood|upbringing|hometown|from|lived|as a (kid|child|boy|girl))\b/i;

/** Words that say a code is meant ("the code is the year Mam was born", "opens with"). */
const CODE_WORDS =
  /\b(post ?codes?|zip ?codes?|eircodes?|passwords?|passcodes?|pins?|combinations?|codes?|key|unlocks?|opens with)\b/i;

/** Whether a word may be a code: it holds a digit, and is no year ("2023") nor "1st". */
const isCode = (word: string) =>
  /\d/.test(word) && !/^(19|20)\d\d$/.test(word) && !/^\d+(st|nd|rd|th)$/i.test(word);

/** Words that say what someone or something is called ("Byrne is Fergus's surname"). */
const NAMING = /\b(surname|name|named|called|née|nee)\b/i;

/**
 * A phrase that may place something: "in the hot press", "behind the dishwasher", "for the
 * council", "lives in dublin", "next door".
 */
const LOCATIVE =
  /\b(in|on|at|behind|under|beneath|near|beside|by|outside|inside|above|below|over|into|onto|next to|out to|up in|down in|for|with|from|to)\s+(the|a|an|my|our|his|her|their|its)\b|\b(lives?|lived|living|works?|worked|working|based|born|grew up|moved|went|studie[sd]|studying)\s+(in|at|near|from|to)\s+\p{L}+|\bnext door\b/iu;

/** Words that often open a sentence and are no name. */
const OPENERS = new Set(
  ("after before once last next during while because although though sometimes usually often " +
    "never always most each both user yes please thanks let").split(" "),
);

/**
 * Whether `text` begins with a name not among `known`: a capitalised word other than a common
 * one ("Aoife is Fergus's wife", "O'Brien's is …", not "After my operation …" or "Don't …").
 */
function startsWithName(text: string, known: ReadonlySet<string>): boolean {
  const [first = ""] = text.trimStart().split(/\s+/, 1);
  const word = first.replace(/[^\p{L}'’]+$/u, "");
  if (/n['’]t$/i.test(word)) return false; // "Don't", "Can't"
  // "Aoife's" is Aoife, "I'm" I, "He'd" he.
  const letters = nameLetters(word.replace(/['’](d|ll|re|ve|m)$/i, ""));
  const lower = letters.toLowerCase();
  return /^\p{Lu}/u.test(letters) && letters.length > 1 && !STOP_WORDS.has(lower) &&
    !OPENERS.has(lower) && !TIME_WORDS.has(lower) && !known.has(lower);
}

/**
 * Whether `text` may hold an answer of the kind `type`: what `holdsAnswer` finds; for a place
 * any phrase that places something; for a place, a name or an origin, a name as the first word. For
 * telling that no memory answers a question.
 */
export function mayHoldAnswer(
  text: string,
  type: AnswerType,
  known: ReadonlySet<string> = new Set(),
): boolean {
  return holdsAnswer(text, type, known) || (type === "place" && LOCATIVE.test(text)) ||
    (["place", "name", "origin"].includes(type) && startsWithName(text, known));
}
