/**
 * Time said relative to now: "two years ago" in a question asked in 2026 is 2024. A question
 * that asks about a relative time is asked again about the year or month it names
 * (`askedTimes`). Dates are read by chrono-node (English).
 *
 * @example
 * ```ts
 * const at = Date.parse("2026-11-28");
 * askedTimes("Which marathon did I run two years ago?", at);
 * // [{ start: 25, end: 38, said: "in 2024", year: "2024" }]
 * ```
 * @module
 */
import { parse, type ParsedResult } from "chrono-node";

/**
 * A number or a word of chrono-node's units of a year or a month, or of time from now: no time is
 * said relative to now by year or by month without one.
 */
const RELATIVE_WORDS =
  /\d|\b(?:ago|later|within|y|yrs?|years?|mos?|months?|w|wks?|weeks?|decades?|qtrs?|quarters?|fortnights?)\b/i;

/**
 * The times `text` says relative to `at` (Unix milliseconds) by year or by month ("two years
 * ago", "last month"); not by day ("yesterday"), which is said of the moment. Text without
 * `RELATIVE_WORDS` is not parsed (most questions; parsing one costs about 0.2 ms).
 */
function relativeTimes(text: string, at: number): ParsedResult[] {
  if (!RELATIVE_WORDS.test(text)) return [];
  return parse(text, new Date(at)).filter(({ start, text }) =>
    start.isCertain("year") && !start.isCertain("day") && !/\d{4}/.test(text)
  );
}

/** The English name of month `month` (1 to 12). */
function monthName(month: number): string {
  return new Date(Date.UTC(2000, month - 1)).toLocaleString("en", {
    month: "long",
    timeZone: "UTC",
  });
}

/** A relative time a question asks about, where it says it, and what it names. */
export interface AskedTime {
  start: number;
  end: number;
  /** The time it names, as a question would say it: "in 2024", "in August 2026". */
  said: string;
  year: string;
}

/** The relative times `question` asks about at `now`. */
export function askedTimes(question: string, now: number): AskedTime[] {
  return relativeTimes(question, now).map(({ start, index, text }) => {
    const year = String(start.get("year"));
    const month = start.isCertain("month") ? `${monthName(start.get("month")!)} ` : "";
    return { start: index, end: index + text.length, said: `in ${month}${year}`, year };
  });
}
