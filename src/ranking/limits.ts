/**
 * The user's limits: what they cannot do or do not have, what makes them ill, what they fear,
 * what ran out. A memory that states one (`statesLimit`) is marked at write time; a question
 * whether the user may do something (`askedLimit`) is also asked of those memories, as whether
 * something keeps them from it.
 *
 * @example
 * ```ts
 * askedLimit("Could I hire a car on holiday?");
 * // { question: "Is there a reason I can't hire a car on holiday?", about: "a reason I can't" }
 * statesLimit("I don't have a driving licence."); // true
 * statesLimit("Callum is allergic to shellfish."); // false
 * ```
 * @module
 */

/**
 * The openings of a question whether the user may do something, and how it is asked again: "Can
 * I hire a car?" as "Is there a reason I can't hire a car?".
 */
const WHETHER: [RegExp, string][] = [
  [/^(can|could|may) i /i, "I can't"],
  [/^(can|could|may) we /i, "we can't"],
  [/^(should|shall) i /i, "I shouldn't"],
  [/^(should|shall) we /i, "we shouldn't"],
  [/^(am i (able|allowed) to|is it (ok|okay|all right|alright) for me to) /i, "I can't"],
  [/^is it (safe|wise|a good idea) for me to /i, "I shouldn't"],
];

/**
 * `question`, when it asks whether the user may do something, asked as whether something keeps
 * them from it; `about` is what it asks about ("a reason I can't"), as `explain` shows it.
 */
export function askedLimit(question: string): { question: string; about: string } | undefined {
  const trimmed = question.trim();
  for (const [opening, not] of WHETHER) {
    const match = opening.exec(trimmed);
    if (!match) continue;
    const about = `a reason ${not}`;
    return { question: `Is there ${about} ${trimmed.slice(match[0].length)}`, about };
  }
}

/** The user, in a memory: a limit of someone else's is not theirs. */
const USER = /\b(i|i'm|i've|i'd|me|my|we|we're|we've|us|our)\b/;
/**
 * What keeps someone from doing something: what they cannot do or do not have, what makes them
 * ill, what they fear, what has run out or was taken away.
 */
const LIMIT = new RegExp(
  "\\b((can't|cannot|can not|couldn't)(?! wait)|unable|mustn't|must not|not allowed|no longer|" +
    "(don't|doesn't|didn't) (have(?! to)|own|drive|eat|drink)|" +
    "(haven't|hasn't) (got|had|renewed|recovered|healed)|never (learned|learnt|passed)|" +
    "no (pets|smoking|alcohol)|avoid|allergic|allergy|allergies|intolerant|intolerance|coeliac|" +
    "celiac|diabetic|ill|sick|seasick|nauseous|bloated|cramps|migraines?|rash|asthma|blind|deaf|" +
    "pregnant|injured|injury|broken|sprained|operation|surgery|recovering|afraid|scared|" +
    "terrified|phobia|claustrophobic|expired|ran out|run out|cancelled|canceled|banned|" +
    "suspended|revoked|taken away|vegan|vegetarian|teetotal|sober|sworn off|kosher|halal)\\b",
);

/**
 * Whether `text` says what keeps the user from doing something: "I don't have a driving licence",
 * "Gluten gives me cramps", not "Callum is allergic to shellfish".
 */
export function statesLimit(text: string): boolean {
  const lower = text.toLowerCase().replace(/[’‘]/g, "'");
  return USER.test(lower) && LIMIT.test(lower);
}
