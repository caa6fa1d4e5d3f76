import assert from "node:assert/strict";
import { askedTimes } from "./times.ts";

const NOW = Date.parse("2026-11-28T12:00:00Z");

Deno.test("askedTimes: a relative year or month, as the question would say it", () => {
  const question = "Which marathon did I run two years ago?";
  const [time, ...more] = askedTimes(question, NOW);
  assert.deepEqual(more, []);
  assert.deepEqual(time, { start: 25, end: 38, said: "in 2024", year: "2024" });
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
