import assert from "node:assert/strict";
import { askedTimes, writtenTimes } from "./times.ts";

const NOW = Date.parse("2026-11-28T12:00:00Z");

Deno.test("askedTimes: a relative year or month, as the question would say it", () => {
  const question = "Which marathon did I run two years ago?";
  const [time, ...more] = askedTimes(question, NOW);
  assert.deepEqual(more, []);
  assert.deepEqual(time, { start: 25, end: 38, said: "in 2024", mentions: "2024" });
  assert.equal(askedTimes("Who did I meet 3 months ago?", NOW)[0].said, "in August 2026");
  assert.equal(askedTimes("Where did I go last year?", NOW)[0].said, "in 2025");
});

Deno.test("askedTimes: nothing for a stated year, a day, or no time", () => {
  assert.deepEqual(askedTimes("Where did I go in March 2021?", NOW), []);
  assert.deepEqual(askedTimes("What did I do yesterday?", NOW), []);
  assert.deepEqual(askedTimes("How do I get to work?", NOW), []);
});

Deno.test("askedTimes: every way of saying a time from now by year or month", () => {
  const said = (phrase: string) => askedTimes(`What did I do ${phrase}?`, NOW)[0]?.said;
  assert.equal(said("a couple of years ago"), "in 2024");
  assert.equal(said("half a year ago"), "in May 2026");
  assert.equal(said("this year"), "in 2026");
  assert.equal(said("within 2 years"), "in 2028");
  assert.equal(said("3 years later"), "in 2029");
  assert.equal(said("+2 months"), "in January 2027");
  assert.equal(said("next month"), "in December 2026");
  assert.equal(said("earlier this YEAR"), "in 2026");
});

Deno.test("askedTimes: a season, as its months", () => {
  const said = (phrase: string) => askedTimes(`What did we do ${phrase}?`, NOW)[0];
  assert.deepEqual(said("last summer"), {
    start: 15,
    end: 26,
    said: "in June, July or August 2026",
    mentions: "summer June July August",
  });
  assert.equal(said("this summer").said, "in June, July or August 2026");
  assert.equal(said("next summer").said, "in June, July or August 2027");
  assert.equal(said("two summers ago").said, "in June, July or August 2025");
  assert.equal(said("this winter").said, "in December 2026, January or February 2027");
  assert.equal(said("last winter").said, "in December 2025, January or February 2026");
  assert.deepEqual(askedTimes("What do I do in the autumn?", NOW), [], "no year: asked as it is");
  assert.equal(said("last fall").mentions, "fall September October November");
  // In January, the winter under way is this one, and last winter the one before.
  const january = Date.parse("2027-01-10T12:00:00Z");
  assert.equal(
    askedTimes("this winter", january)[0].said,
    "in December 2026, January or February 2027",
  );
  assert.equal(
    askedTimes("last winter", january)[0].said,
    "in December 2025, January or February 2026",
  );
  assert.deepEqual(askedTimes("I love summer evenings.", NOW), []);
});

Deno.test("writtenTimes: a memory's relative times, as the years and months they name", () => {
  assert.deepEqual(writtenTimes("Last year I ran the Paris marathon.", NOW), ["2025"]);
  assert.deepEqual(writtenTimes("I started pottery three months ago.", NOW), ["August", "2026"]);
  assert.deepEqual(writtenTimes("Last summer we hiked the Kerry Way.", NOW), ["2026"]);
  assert.deepEqual(writtenTimes("Last winter the pipes froze.", NOW), ["2025", "2026"]);
  assert.deepEqual(writtenTimes("I ran Paris in 2024, in the summer.", NOW), []);
  assert.deepEqual(writtenTimes("I saw Niamh yesterday.", NOW), []);
  // A length of time is no time from now.
  assert.deepEqual(writtenTimes("I've worked at KPMG for 10 years.", NOW), []);
  assert.deepEqual(askedTimes("Where did I live for three years?", NOW), []);
});

Deno.test("writtenTimes: a long memory's first 2,048 characters are read", () => {
  const filler = "and then we walked on. ".repeat(100);
  assert.deepEqual(writtenTimes(`Last year I ran Paris, ${filler}`, NOW), ["2025"]);
  assert.deepEqual(writtenTimes(`${filler} Last year I ran Paris.`, NOW), []);
});
