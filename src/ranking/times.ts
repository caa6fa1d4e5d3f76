/**
 * Time said relative to now. "Two years ago" in a question asked in 2026 is 2024, and "last
 * summer" June to August 2026: a question that says one is asked again about the time it names
 * (`askedTimes`). A memory's own relative times are read against when it was written
 * (`writtenTimes`): "last year" in a memory of 2025 is indexed as 2024 too. Dates are read by
 * chrono-node (English); seasons are the northern hemisphere's.
 *
 * @example
 * ```ts
 * const at = Date.parse("2026-11-28");
 * askedTimes("Which marathon did I run two years ago?", at);
 * // [{ start: 25, end: 38, said: "in 2024", mentions: "2024" }]
 * writtenTimes("Last summer we hiked the Kerry Way.", Date.parse("2025-10-01")); // ["2025"]
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
 * ago", "last month"); not by day ("yesterday"), which is said of the moment, nor a length of
 * time ("for ten years"). Text without `RELATIVE_WORDS` is not parsed (most questions; parsing
 * one costs about 0.2 ms).
 */
function relativeTimes(text: string, at: number): ParsedResult[] {
  if (!RELATIVE_WORDS.test(text)) return [];
  return parse(text, new Date(at)).filter(({ start, text }) =>
    start.isCertain("year") && !start.isCertain("day") && !/\d{4}/.test(text) &&
    !/^for\b/i.test(text)
  );
}

/** The English name of month `month` (1 to 12). */
function monthName(month: number): string {
  return new Date(Date.UTC(2000, month - 1)).toLocaleString("en", {
    month: "long",
    timeZone: "UTC",
  });
}

/** Each season's first month; it lasts three. */
const SEASON_STARTS: Record<string, number> = {
  spring: 3,
  summer: 6,
  autumn: 9,
  fall: 9,
  winter: 12,
};
const COUNTS: Record<string, number> = { a: 1, one: 1, two: 2, three: 3, four: 4, five: 5 };
const SEASON = "spring|summer|autumn|fall|winter";
/** "last summer", "this winter", "next spring", "two summers ago". */
const SEASON_SAID = new RegExp(
  `\\b(?:(last|this|next)\\s+(${SEASON})|(a|one|two|three|four|five|[1-9])\\s+` +
    `(springs|summers|autumns|winters)\\s+ago)\\b`,
  "gi",
);

/** A season as text says it, and the year it begins in. */
interface SaidSeason {
  index: number;
  text: string;
  season: string;
  year: number;
}

/**
 * The year the season `start` (its first month) begins in, as `which` says it at `at`: the
 * last one to end, the one under way (else the one that begins this year), the next to begin,
 * or `ago` before the last.
 */
function seasonYear(start: number, which: string, at: number, ago = 1): number {
  const now = new Date(at);
  const month = now.getUTCFullYear() * 12 + now.getUTCMonth();
  const first = (year: number) => year * 12 + start - 1;
  const years = [-7, -6, -5, -4, -3, -2, -1, 0, 1].map((d) => now.getUTCFullYear() + d);
  if (which === "next") return years.find((year) => first(year) > month)!;
  const ended = years.filter((year) => first(year) + 2 < month).at(-1)!;
  if (which === "last") return ended - (ago - 1);
  const current = years.find((year) => first(year) <= month && month <= first(year) + 2);
  return current ?? now.getUTCFullYear();
}

/** The seasons `text` says, with their years relative to `at`. */
function saidSeasons(text: string, at: number): SaidSeason[] {
  return [...text.matchAll(SEASON_SAID)].map((match) => {
    const [said, which, season, count, seasons] = match;
    const name = (season ?? seasons.replace(/s$/, "")).toLowerCase();
    const start = SEASON_STARTS[name];
    const base = { index: match.index, text: said, season: name };
    if (which) return { ...base, year: seasonYear(start, which.toLowerCase(), at) };
    const ago = COUNTS[count.toLowerCase()] ?? Number(count);
    return { ...base, year: seasonYear(start, "last", at, ago) };
  });
}

/** The months of `season` begun in `year`, each with its year (a winter ends in the next). */
function seasonMonths(season: string, year: number): { name: string; year: number }[] {
  return [0, 1, 2].map((i) => {
    const month = SEASON_STARTS[season] - 1 + i;
    return { name: monthName(month % 12 + 1), year: year + Math.floor(month / 12) };
  });
}

/** A relative time a question asks about, where it says it, and what it names. */
export interface AskedTime {
  start: number;
  end: number;
  /** The time it names, as a question would say it: "in 2024", "in June, July or August 2026". */
  said: string;
  /** The words a memory about that time mentions, any of them: "2024", "summer June July …". */
  mentions: string;
}

/** The relative times and the seasons `question` asks about at `now`. */
export function askedTimes(question: string, now: number): AskedTime[] {
  const times = relativeTimes(question, now).map(({ start, index, text }) => {
    const year = String(start.get("year"));
    const month = start.isCertain("month") ? `${monthName(start.get("month")!)} ` : "";
    return { start: index, end: index + text.length, said: `in ${month}${year}`, mentions: year };
  });
  const seasons = saidSeasons(question, now).map(({ index, text, season, year }) => {
    const months = seasonMonths(season, year);
    // Each year said after its last month: "December 2025, January or February 2026".
    const [first, second, third] = months.map(({ name, year }, i) =>
      months[i + 1]?.year === year ? name : `${name} ${year}`
    );
    return {
      start: index,
      end: index + text.length,
      said: `in ${first}, ${second} or ${third}`,
      mentions: [season, ...months.map(({ name }) => name)].join(" "),
    };
  });
  return [...times, ...seasons].sort((a, b) => a.start - b.start);
}

/** How much of a memory is read for its relative times: parsing costs about 0.7 µs a character. */
const WRITTEN_CHARS = 2_048;

/**
 * The words a memory written at `at` says its relative times with, in its first `WRITTEN_CHARS`:
 * the year ("last year" → "2025") and the month ("last month" → "October", "2026"), and a
 * season's years ("last winter" → "2025", "2026"). Indexed beside its own words.
 */
export function writtenTimes(memory: string, at: number): string[] {
  const text = memory.slice(0, WRITTEN_CHARS);
  const times = relativeTimes(text, at).flatMap(({ start }) => [
    ...start.isCertain("month") ? [monthName(start.get("month")!)] : [],
    String(start.get("year")),
  ]);
  const seasons = saidSeasons(text, at).flatMap(({ season, year }) =>
    seasonMonths(season, year).map((month) => String(month.year))
  );
  return [...new Set([...times, ...seasons])];
}
