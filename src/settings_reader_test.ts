import assert from "node:assert/strict";
import { shown } from "./settings_reader.ts";

Deno.test("shown: a value is quoted without a user's part, a query or control characters", () => {
  assert.equal(shown("db:99999?k=s3cret"), '"db:99999?…"');
  assert.equal(shown("htp://u:pa/ss@h/x"), '"htp://…@h/x"');
  assert.equal(shown("http://a@b@host/p?token=1#f"), '"http://…@host/p?…"');
  assert.equal(shown("two\nlines"), '"two\\nlines"');
  assert.equal(shown("f".repeat(64)), "a value of 64 characters");
  assert.equal(shown(`https://example.com/${"x".repeat(80)}`), "a value of 100 characters");
});
