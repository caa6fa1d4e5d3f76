import assert from "node:assert/strict";
import { jsonProblem, LoneSurrogateError, parseJson } from "./json.ts";

Deno.test("parseJson: a string or key holding half a surrogate pair is refused; a pair is not", () => {
  for (
    const text of [
      String.raw`"\ud800"`,
      String.raw`{"a":[1,{"b":"x\udc00"}]}`,
      String.raw`{"\udbff":1}`,
    ]
  ) {
    assert.throws(() => parseJson(text), LoneSurrogateError, text);
  }
  assert.deepEqual(parseJson(String.raw`{"a":"\ud83d\ude00"}`), { a: "😀" });
  // An escaped backslash before "ud800" is six ordinary characters.
  assert.deepEqual(parseJson(String.raw`["\\ud800"]`), [String.raw`\ud800`]);
  assert.throws(() => parseJson("{"), SyntaxError);
  // Nested deeper than a recursive walk could go.
  const deep = "[".repeat(100_000) + String.raw`"\ud83d\ude00"` + "]".repeat(100_000);
  assert.equal(Array.isArray(parseJson(deep)), true);
  assert.throws(() => parseJson(deep.replace(String.raw`\ude00`, "")), LoneSurrogateError);
  const long = `[${"1,".repeat(1_000_000)}"\\ud800"]`;
  assert.throws(() => parseJson(long), LoneSurrogateError);
  assert.equal(jsonProblem(new SyntaxError(`Unexpected token in "my secret"`)), "not valid JSON");
});
