/**
 * The offline `Llm` of the embedded default: no model, just careful text handling.
 *
 * - Extraction keeps the first-person statements that describe the user (preferences, habits,
 *   plans, biography, constraints), drops questions, greetings and reported speech, and
 *   rewrites each as a third-person sentence: "I'm allergic to nuts" → "The user is allergic
 *   to nuts."
 * - Answering is extractive: it quotes the memories that best match the question and says
 *   which ones it used.
 *
 * @example
 * ```ts
 * const llm = new LocalExtractiveLlm();
 * await llm.extractFacts("Hi! I'm vegetarian and I love hiking."); // ["The user is vegetarian and loves hiking."]
 * ```
 */
import { type CallOptions, type Llm, MAX_FACTS, words } from "../../src/kit.ts";

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

/** Rewrites a first-person sentence about the user in the third person. */
export function toThirdPerson(sentence: string): string {
  let text = sentence.trim();
  while (FILLER.test(text)) text = text.replace(FILLER, "");
  text = text
    .replace(/\bI(?:'m| am)\b/g, "the user is")
    .replace(/\bI was\b/g, "the user was")
    .replace(/\bI(?:'ve| have)\b/g, "the user has")
    .replace(/\bI'd\b/g, "the user would")
    .replace(/\bI(?:'ll| will)\b/g, "the user will")
    .replace(/\bI (?:don't|do not)\b/g, "the user does not")
    .replace(/\bI (?:didn't|did not)\b/g, "the user did not")
    .replace(/\bI (?:can't|cannot|can not)\b/g, "the user cannot")
    .replace(/\bI won't\b/g, "the user will not")
    .replace(
      /\bI (\w+ly |also |still |never |often )?([a-z]+)\b/g,
      (_, adverb = "", verb) => `the user ${adverb}${thirdPerson(verb)}`,
    )
    .replace(
      /\b(?:and|but|or) (?:also )?(like|love|enjoy|prefer|hate|have|go|work|live)\b/g,
      (m, verb) => m.replace(verb, thirdPerson(verb)),
    )
    .replace(/\bmyself\b/gi, "themselves")
    .replace(/\b(?:my|mine)\b/gi, "the user's")
    .replace(/\bme\b/g, "the user")
    .replace(/\s+/g, " ")
    .replace(/\s*[.!]*$/, ".");
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
    for (const raw of text.split(/(?<=[.!?])\s+|\n+/)) {
      const sentence = normalized(raw.trim());
      if (sentence.length < 6 || sentence.length > 400 || sentence.endsWith("?")) continue;
      if (CHIT_CHAT.test(sentence) && !ABOUT_THE_USER.test(sentence.replace(CHIT_CHAT, ""))) {
        continue;
      }
      if (NOT_A_FACT.test(sentence) || !ABOUT_THE_USER.test(sentence)) continue;
      const clause = sentence.replace(new RegExp(`^${CHIT_CHAT.source}[!,.]*\\s*`, "i"), "");
      const fact = toThirdPerson(clause);
      const key = fact.toLowerCase();
      if (!fact.includes("he user") || seen.has(key)) continue;
      seen.add(key);
      facts.push(fact);
      if (facts.length === MAX_FACTS) break;
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
