/**
 * The in-memory `Llm`: no model, a few fixed rules, so tests know exactly what it answers.
 *
 * - `extractFacts` splits the text into sentences (at `.`, `!` or `?` followed by a space, and
 *   at line breaks) and keeps the statements about the user: those starting with "I" or "My"
 *   that are not questions and do not report speech ("said", "told", "asked"), at most 20,
 *   each once. Each is rewritten in the third person by its first words: "I'm"/"I am" → "The
 *   user is", "I've"/"I have" → "The user has", "I was" → "The user was", "I'd" → "The user
 *   would", "I'll" → "The user will", "My" → "The user's", "I <verb>" → "The user <verb>s";
 *   it ends with a full stop.
 * - `answer` quotes the memory that shares the most words with the question (the earlier one
 *   on a tie, the first one when none shares a word): `From your memories: "<memory>"`; with
 *   no memories it says "I found nothing in your memories about that."
 *
 * @example
 * ```ts
 * import { MemoryLlm } from "./memory_llm.ts";
 *
 * const llm = new MemoryLlm();
 * await llm.extractFacts("Hi! I live in Oslo. What time is it?"); // ["The user lives in Oslo."]
 * await llm.answer("Where do I live?", ["I have a cat", "I live in Oslo"]);
 * // 'From your memories: "I live in Oslo"'
 * ```
 * @module
 */
import { MAX_FACTS } from "../text_limits.ts";
import type { CallOptions, Llm } from "../backends/types.ts";

const FIRST_PERSON = /^(?:I|My)\b/;
const REPORTED_SPEECH = /\b(?:said|says|told|tells|asked|asks)\b/i;
/** Verbs that stay as they are after "The user": modals and common past tenses. */
const UNCHANGED = new Set(
  "can could will would shall should must may might did had was went made got".split(" "),
);
const FUNCTION_WORDS = new Set(
  ("a an the and or but of to in on at for with is are was were be am i me my you your it " +
    "its we our they their this that what which who how when where do does did").split(" "),
);

/** "like" → "likes", "watch" → "watches", "study" → "studies", "have" → "has", "do" → "does". */
function thirdPerson(verb: string): string {
  if (verb === "have") return "has";
  if (verb === "do" || verb === "go") return `${verb}es`;
  if (UNCHANGED.has(verb) || verb.endsWith("ed")) return verb;
  if (/[^aeiou]y$/.test(verb)) return `${verb.slice(0, -1)}ies`;
  if (/(?:s|sh|ch|x|z)$/.test(verb)) return `${verb}es`;
  return `${verb}s`;
}

/** A first-person sentence in the third person, by its first words. */
function aboutTheUser(sentence: string): string {
  const text = sentence
    .replace(/^I(?:'m| am)\b/, "The user is")
    .replace(/^I(?:'ve| have)\b/, "The user has")
    .replace(/^I was\b/, "The user was")
    .replace(/^I'd\b/, "The user would")
    .replace(/^I'll\b/, "The user will")
    .replace(/^My\b/, "The user's")
    .replace(/^I ([a-z]+)\b/, (_, verb: string) => `The user ${thirdPerson(verb)}`)
    .replace(/^I\b/, "The user");
  return text.replace(/[\s.!]*$/, ".");
}

function contentWords(text: string): Set<string> {
  return new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      .map((word) => word.length > 3 ? word.replace(/(?<=[^s])s$/, "") : word)
      .filter((word) => !FUNCTION_WORDS.has(word)),
  );
}

/** Deterministic extraction and answers; see the module documentation. */
export class MemoryLlm implements Llm {
  readonly name = "memory";
  readonly model = "svc-memory-rules-v1";

  extractFacts(text: string, options?: CallOptions): Promise<string[]> {
    if (options?.signal?.aborted) return Promise.reject(options.signal.reason);
    const facts: string[] = [];
    for (const raw of text.split(/(?<=[.!?])\s+|\n+/)) {
      const sentence = raw.trim();
      if (!FIRST_PERSON.test(sentence) || sentence.endsWith("?")) continue;
      if (REPORTED_SPEECH.test(sentence)) continue;
      const fact = aboutTheUser(sentence);
      if (!facts.includes(fact)) facts.push(fact);
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
    let best = 0, bestOverlap = 0;
    memories.forEach((memory, i) => {
      const overlap = [...contentWords(memory)].filter((word) => asked.has(word)).length;
      if (overlap > bestOverlap) [best, bestOverlap] = [i, overlap];
    });
    return Promise.resolve(`From your memories: "${memories[best]}"`);
  }
}
