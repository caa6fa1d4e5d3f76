/**
 * The offline `Llm` of the embedded default: no model, just careful text handling.
 *
 * - Extraction keeps the first-person statements that describe the user (preferences, habits,
 *   plans, biography, constraints), drops questions, greetings and reported speech, and
 *   rewrites each as a note, as people jot one down: "I'm allergic to nuts" → "Allergic to
 *   nuts"
 * - Answering is extractive: it quotes the memories that best match the question and says
 *   which ones it used.
 *
 * @example
 * ```ts
 * const llm = new LocalExtractiveLlm();
 * await llm.extractFacts("Hi! I'm vegetarian and I love hiking."); // ["Vegetarian and loves hiking"]
 * ```
 */
import type { CallOptions, Llm } from "@svc/relayer/kit";
import { words } from "@svc/util/words";

export type { CallOptions, Llm } from "@svc/relayer/kit";

const CHIT_CHAT =
  /^(hi|hello|hey|thanks|thank you|ok|okay|lol|haha|bye|good (morning|evening|night)|how are you|nice to meet you)\b/i;
const NOT_A_FACT =
  /\b(he|she|they|you) (said|says|told|asked)\b|^I (wonder|guess|think|mean|know)\b/i;
const FILLER = /^(so|well|oh|also|and|but|actually|btw|by the way|anyway|honestly|okay|ok),?\s+/i;
const ABOUT_THE_USER = new RegExp(
  [
    String.raw`\bI(?:'m| am| was)\b`,
    String.raw`\bI(?:'ve| have| had)\b`,
    String.raw`\bI (?:\w+ly |also |still |don't |do not |can't |cannot |never |will |'ll )?` +
    "(?:like|love|adore|enjoy|prefer|hate|dislike|eat|drink|live|work|study|play|go|run|" +
    "cook|own|speak|avoid|use|read|watch|listen|travel|visit|plan|want|need|was born|grew up|" +
    "moved|started|quit|teach|write|wake|sleep|train|practi[cs]e|support|collect|volunteer|" +
    "drive|ride|take|keep|follow|believe|care|stand|mind|celebrate|meditate|wear|commute|bike|" +
    "cycle|walk|swim|hike|jog|climb|ski|surf|dance|sing|paint|draw|knit|bake|garden|fish|camp|" +
    "exercise|spend|save|rent|attend|belong|pray|fast)",
    String.raw`\bmy \w+(?: \w+)? (?:is|are|was|were|has|have|had|lives|lived|live|works|` +
    String.raw`worked|work|goes|go|went|likes|like|loves|love)\b`,
    String.raw`\ballergic\b|\bintolerant\b`,
  ].join("|"),
  "i",
);
const UNCHANGED = new Set(
  ("can will should must may might could would shall went was had did made met grew bought " +
    "began became came got gave knew left lost ran saw sold spent thought told took wrote " +
    "taught learnt learned quit put read").split(" "),
);
const STOP = new Set(
  "a an the and or but of to in on at for with is are was were be am i me my you your do does did what which who how when where why"
    .split(" "),
);

/**
 * "like" → "likes", "watch" → "watches", "study" → "studies", "have" → "has"; modal verbs and
 * past tenses stay as they are.
 */
function thirdPerson(verb: string): string {
  const lower = verb.toLowerCase();
  if (lower === "have") return "has";
  if (lower === "do") return "does";
  if (lower === "go") return "goes";
  if (UNCHANGED.has(lower) || lower.endsWith("ed")) return verb;
  if (/[^aeiou]y$/i.test(verb)) return verb.slice(0, -1) + "ies";
  if (/(s|sh|ch|x|z|o)$/i.test(verb)) return verb + "es";
  return verb + "s";
}

/** Where a sentence ends: not after a title ("St. Olav's", "Dr. Lund") or an initial. */
const SENTENCE_END = /(?<!\b(?:St|Dr|Mr|Mrs|Ms|Prof|Jr|Sr|Mt|vs|etc|[A-Z])\.)(?<=[.!?])\s+|\n+/;

/**
 * "Note: …", "Remember that …", "I told my doctor that …", "I said that …": what follows is the
 * fact.
 */
const REPORTED = new RegExp(
  [
    String.raw`^[^:]{1,40}: `,
    String.raw`^(?:please )?(?:remember|note|keep in mind)(?: that)?,? `,
    String.raw`^I (?:told|tell|informed|reminded|said to|mentioned to) [^,]{1,60}? that `,
    String.raw`^I (?:said|mentioned)(?: that)? `,
  ].map((form) => form + String.raw`(?=(?:I|my)\b)`).join("|"),
  "i",
);
/** A word naming the user; a statement without one is about someone else. */
const NAMES_THE_USER = /\b(?:I|[Mm]y|[Mm]e|[Mm]ine|[Mm]yself)\b/;
/** Marks "I" where a note drops it (at the start, after "and", "but", "or")… */
const DROPPED = "\uE000";
/** …and where it becomes "they" (after "because", "when", "that" and the like). */
const THEY = "\uE001";

/** What follows a subject "I": as a note without it, and after "they". */
const SUBJECT_FORMS: [RegExp, string, string][] = [
  [/^(?:'m| am) (?=(?:a|an|the|one)\b|\p{Lu})/u, "is ", "are "],
  [/^(?:'m| am)\b/, "", "are"],
  [/^ was born\b/, "born", "were born"],
  [/^ was\b/, "was", "were"],
  [/^(?:'ve| have)\b/, "has", "have"],
  [/^(?:'d| would)\b/, "would", "would"],
  [/^(?:'ll| will)\b/, "will", "will"],
  [/^ (?:don't|do not)\b/, "does not", "do not"],
  [/^ (?:didn't|did not)\b/, "did not", "did not"],
  [/^ (?:can't|cannot|can not)\b/, "cannot", "cannot"],
  [/^ won't\b/, "will not", "will not"],
];
/** Any other verb after "I", with the adverb before it. */
const VERB = /^ (\w+ly |also |still |never |often )?([a-z]+)\b/;

/** The words after a marked subject, rewritten for the note or for "they". */
function subject(marker: string, rest: string): string {
  const dropped = marker === DROPPED;
  for (const [form, note, they] of SUBJECT_FORMS) {
    const found = rest.match(form);
    if (found) return (dropped ? note : `they ${they}`) + rest.slice(found[0].length);
  }
  if (!VERB.test(rest)) return (dropped ? "" : "they") + rest;
  return rest.replace(
    VERB,
    (_, adverb = "", verb) => dropped ? `${adverb}${thirdPerson(verb)}` : `they ${adverb}${verb}`,
  );
}

/**
 * Rewrites a first-person sentence about the user as a note, as people jot one down: "I'm
 * allergic to penicillin" → "Allergic to penicillin"; "My sister lives in Lisbon and I visit
 * her" → "Sister lives in Lisbon and visits her"; "I take the bus because I can't drive" →
 * "Takes the bus because they cannot drive".
 */
export function asNote(sentence: string): string {
  let text = sentence.trim();
  while (FILLER.test(text) || REPORTED.test(text)) {
    text = text.replace(FILLER, "").replace(REPORTED, "");
  }
  text = text
    .replace(/(^|\b(?:and|but|or) (?:also )?)I\b/g, `$1${DROPPED}`)
    .replace(/\bI\b/g, THEY);
  const parts = text.split(/([\uE000\uE001])/);
  text = parts[0];
  for (let i = 1; i < parts.length; i += 2) text += subject(parts[i], parts[i + 1]);
  text = text
    .replace(
      /\b(?:and|but|or) (?:also )?(like|love|enjoy|prefer|hate|have|go|work|live)\b/g,
      (m, verb) => m.replace(verb, thirdPerson(verb)),
    )
    .replace(/^my\s+/i, "")
    .replace(/\bmyself\b/gi, "themselves")
    .replace(/\bmine\b/gi, "theirs")
    .replace(/\bmy\b/gi, "their")
    .replace(/\bme\b/g, "them")
    .replace(/\s+/g, " ")
    .replace(/[\s.!]+$/, "")
    .trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A sentence as typed in a hurry, as the rules read it: curly apostrophes straight, a sentence in
 * capitals lowered (its names too), and "i" (as in "i'm") as "I". "Im" is not read as "I'm": it
 * is German for "in the".
 */
function normalized(sentence: string): string {
  return (/\p{Ll}/u.test(sentence) ? sentence : sentence.toLowerCase())
    .replace(/[‘’]/g, "'")
    .replace(/\bi\b(?!\.\w)/g, "I");
}

/** The content words of a text, plurals folded. */
function contentWords(text: string): Set<string> {
  return new Set(
    words(text, { nfkc: false, joiners: "none" })
      .map((w) => w.replace(/(?<=[^s])s$/, ""))
      .filter((w) => !STOP.has(w)),
  );
}

/** Extracts facts and answers questions offline, from the text alone; no model is run. */
export class LocalExtractiveLlm implements Llm {
  readonly name = "local-extractive";
  readonly model = "svc-extractive-v1";

  /** The model, as every plugin is opened; it needs no I/O. */
  static open(): Promise<LocalExtractiveLlm> {
    return Promise.resolve(new LocalExtractiveLlm());
  }

  extractFacts(text: string, options?: CallOptions): Promise<string[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const facts: string[] = [];
    const seen = new Set<string>();
    for (const raw of text.split(SENTENCE_END)) {
      const sentence = normalized(raw.trim());
      if (sentence.length < 6 || sentence.length > 400 || sentence.endsWith("?")) continue;
      if (CHIT_CHAT.test(sentence) && !ABOUT_THE_USER.test(sentence.replace(CHIT_CHAT, ""))) {
        continue;
      }
      if (NOT_A_FACT.test(sentence) || !ABOUT_THE_USER.test(sentence)) continue;
      const clause = sentence.replace(new RegExp(`^${CHIT_CHAT.source}[!,.]*\\s*`, "i"), "");
      if (!NAMES_THE_USER.test(clause)) continue;
      const fact = asNote(clause);
      const key = fact.toLowerCase();
      if (fact === "" || seen.has(key)) continue;
      seen.add(key);
      facts.push(fact);
    }
    return Promise.resolve(facts);
  }

  answer(question: string, memories: string[], options?: CallOptions): Promise<string> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    if (memories.length === 0) {
      return Promise.resolve("I found nothing in your memories about that.");
    }
    const asked = contentWords(question);
    const ranked = memories
      .map((text, i) => ({
        text,
        i,
        overlap: [...contentWords(text)].filter((w) => asked.has(w)).length,
      }))
      .filter((m) => m.overlap > 0)
      .sort((a, b) => b.overlap - a.overlap || a.i - b.i)
      .slice(0, 3);
    const used = ranked.length ? ranked : [{ text: memories[0], i: 0 }];
    const quoted = used.map((m) => `"${m.text.replace(/\s+/g, " ").trim()}" (memory ${m.i + 1})`);
    return Promise.resolve(`From your memories: ${quoted.join("; ")}.`);
  }
}
