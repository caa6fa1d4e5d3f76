import assert from "node:assert/strict";
import { SettingsReader, shown } from "./settings_reader.ts";

Deno.test("shown: a value is quoted without a user's part, a query or control characters", () => {
  assert.equal(shown("db:99999?k=s3cret"), '"db:99999?…"');
  assert.equal(shown("htp://u:pa/ss@h/x"), '"htp://…@h/x"');
  assert.equal(shown("http://a@b@host/p?token=1#f"), '"http://…@host/p?…"');
  assert.equal(shown("two\nlines"), '"two\\nlines"');
  assert.equal(shown("f".repeat(64)), "a value of 64 characters");
  assert.equal(shown(`https://example.com/${"x".repeat(80)}`), "a value of 100 characters");
});

Deno.test("httpUrls: a list of http(s) URLs, each other entry a problem that does not quote it whole", () => {
  const read = new SettingsReader({
    SVC_URLS: " http://a.example , https://b.example/v1,,htp://me:s3cret@c.example",
  });
  assert.deepEqual(read.httpUrls("SVC_URLS"), [
    "http://a.example",
    "https://b.example/v1",
    "htp://me:s3cret@c.example",
  ]);
  assert.deepEqual(read.problems, [
    'SVC_URLS must list http(s) URLs (got "htp://…@c.example")',
  ]);
  assert.deepEqual(read.httpUrls("SVC_ABSENT"), []);
});
