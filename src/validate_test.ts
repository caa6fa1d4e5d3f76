import assert from "node:assert/strict";
import { utf8Header } from "./validate.ts";

Deno.test("utf8Header: a header's bytes read as UTF-8, else one character each", () => {
  const bytes = (text: string) => String.fromCharCode(...new TextEncoder().encode(text));
  assert.equal(utf8Header(bytes("café 日本")), "café 日本");
  assert.equal(utf8Header("caf\u00e9"), "café", "Latin-1, as older clients send it");
  assert.equal(utf8Header(bytes("\ufeffnotes")), "\ufeffnotes", "a BOM is kept, not dropped");
  assert.equal(utf8Header("plain"), "plain");
});
